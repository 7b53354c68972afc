package redisbackend

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// Machines that share only Redis write one plan at once, unguarded, so many
// compare-and-swaps lose. The history every machine reads is the same, newest first,
// bounded, and every kept revision reads back as the write that made it.
func TestHistoryAcrossMachines(t *testing.T) {
	requireServer(t)
	b, _ := newBackend(t)
	ctx := context.Background()
	const machines, writes = 4, 20
	stores := make([]*plan.Store, machines)
	for i := range stores {
		stores[i] = machine(t, b.prefix, nil)
	}
	if _, err := stores[0].Put(ctx, plan.Update{Name: "ship", Content: ptr("- [ ] build\n"), Status: "m0-0"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for m, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 1; i <= writes; i++ {
				if _, err := s.SetStatus(ctx, "ship", fmt.Sprintf("m%d-%d", m, i), nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()

	const total = 1 + machines*writes
	h, err := stores[1].History(ctx, "ship")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != api.DefaultHistoryLimit {
		t.Fatalf("history holds %d revisions, want %d", len(h), api.DefaultHistoryLimit)
	}
	last := map[string]int{}
	for i, r := range h {
		if want := int64(total - i); r.Revision != want {
			t.Fatalf("history[%d] is revision %d, want %d", i, r.Revision, want)
		}
		if r.Action != plan.ActionStatus {
			t.Errorf("revision %d: action %q", r.Revision, r.Action)
		}
		p, err := stores[2].GetRevision(ctx, "ship", r.Revision)
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != r.Status {
			t.Errorf("revision %d reads as status %q, history says %q", r.Revision, p.Status, r.Status)
		}
		// Newest first, so each machine's counter falls.
		who, n, _ := strings.Cut(r.Status, "-")
		k, _ := strconv.Atoi(n)
		if prev, ok := last[who]; ok && k >= prev {
			t.Errorf("revision %d: %s after %s-%d", r.Revision, r.Status, who, prev)
		}
		last[who] = k
	}
	d, err := stores[3].Diff(ctx, "ship", int64(total-1), total)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("status: %q -> %q\n", h[1].Status, h[0].Status); d != want {
		t.Errorf("diff %q, want %q", d, want)
	}
	infos, err := b.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans/.history/ship"})
	if err != nil {
		t.Fatal(err)
	}
	// Each kept file is the revision its name says, kept by the swap that replaced it; a
	// swap that lost kept nothing, so there is one per revision, consecutive up to the one
	// before the plan file's. Pruning runs every max(8, HistoryLimit/2) revisions and
	// leaves HistoryLimit-1 entries beside the plan file; newer ones add up until the next.
	revs := map[int64]bool{}
	for _, fi := range infos {
		num, _, _ := strings.Cut(fi.Path[strings.LastIndex(fi.Path, "/")+1:], ".")
		rev, err := strconv.ParseInt(num, 10, 64)
		if err != nil || revs[rev] {
			t.Fatalf("entry %s: a name of no revision, or a second entry of one", fi.Path)
		}
		revs[rev] = true
		if p, err := document.DecodePlan("ship", backendtest.MustRead(t, b, fi.Path)); err != nil || p.Revision != rev {
			t.Fatalf("entry %s holds %+v, %v; want revision %d", fi.Path, p, err, rev)
		}
	}
	every := max(8, api.DefaultHistoryLimit/2)
	if most := api.DefaultHistoryLimit - 1 + every - 1; len(infos) < api.DefaultHistoryLimit-1 || len(infos) > most {
		t.Errorf("%d entry files, want %d to %d", len(infos), api.DefaultHistoryLimit-1, most)
	}
	for rev := total - int64(len(infos)); rev < total; rev++ {
		if !revs[rev] {
			t.Errorf("no entry of revision %d among %d entries up to %d", rev, len(infos), total-1)
		}
	}

	if _, err := stores[0].Delete(ctx, "ship", nil); err != nil {
		t.Fatal(err)
	}
	if infos, _ := b.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans/.history/ship"}); len(infos) != 0 {
		t.Errorf("%d entry files after delete", len(infos))
	}
	p, err := stores[1].Put(ctx, plan.Update{Name: "ship", Content: ptr("- [ ] again\n")})
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != total+1 {
		t.Errorf("revision %d after delete, want %d", p.Revision, total+1)
	}
	if h, err := stores[2].History(ctx, "ship"); err != nil || len(h) != 1 {
		t.Errorf("history after re-create: %v, %v", h, err)
	}
}
