package board_test

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// bigPlan is a plan body of about size bytes: a title, then steps of long text, one of them
// far longer than a step the page shows whole.
func bigPlan(title string, size int) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n")
	b.WriteString("- [ ] " + strings.Repeat("<long step> ", 10_000) + "\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "- [ ] Step %d: %s\n", i, strings.Repeat("check the <output> & log ", 8))
	}
	return b.String()
}

// rawGet returns the status and the raw body of a GET.
func (r *rig) rawGet(path string) (int, []byte) {
	r.T.Helper()
	resp, err := http.Get(r.Srv.URL + path)
	mustNot(r.T, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	mustNot(r.T, err)
	return resp.StatusCode, body
}

func TestTheListOfLargePlansStaysUnderItsByteCap(t *testing.T) {
	r := newRig(t)
	for i := range 12 {
		r.Put(fmt.Sprintf("big-%02d", i), bigPlan(strings.Repeat("T", 2000), api.DefaultMaxContentBytes-4096))
	}
	r.get("/api/plans", nil) // the Store reads the plans once, for every later listing
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, body := r.rawGet("/api/plans")
	runtime.ReadMemStats(&after)
	if st != http.StatusOK {
		t.Fatalf("status %d: %.300s", st, body)
	}
	if len(body) > 64<<10 {
		t.Fatalf("12 plans of 1 MiB listed in %d bytes", len(body))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 48<<20 { // the plans are read and their steps parsed once
		t.Errorf("one listing allocated %d MiB", alloc>>20)
	}
	var out struct {
		Plans []summaryJSON `json:"plans"`
		Total int           `json:"total"`
	}
	r.get("/api/plans", &out)
	if out.Total != 12 || len(out.Plans) != 12 {
		t.Fatalf("total %d, %d plans", out.Total, len(out.Plans))
	}
	p := out.Plans[0]
	if len(p.Title) > 300 || !strings.HasSuffix(p.Title, "…") || p.CurrentStep == nil || len(p.CurrentStep.Text) > 300 || p.Progress.Total < 1000 {
		t.Fatalf("summary %.500v", p)
	}
}

func TestStepsComePerPlanInPagesCappedInBytes(t *testing.T) {
	r := newRig(t)
	body := bigPlan("Big", api.DefaultMaxContentBytes-4096)
	r.Put("big", body)
	r.start("big", 3, "worker-1")
	want := len(plan.ParseSteps(body))
	type page struct {
		Name     string `json:"name"`
		Revision int64  `json:"revision"`
		Steps    []struct {
			Number int    `json:"number"`
			State  string `json:"state"`
			Text   string `json:"text"`
			Holder string `json:"holder"`
			Cut    bool   `json:"cut"`
		} `json:"steps"`
		NextFrom int `json:"next_from"`
	}
	seen, pages := 0, 0
	for from := 1; ; pages++ {
		st, raw := r.rawGet(fmt.Sprintf("/api/plans/big/steps?from=%d", from))
		if st != http.StatusOK {
			t.Fatalf("status %d: %.300s", st, raw)
		}
		if len(raw) > 300<<10 {
			t.Fatalf("a page of steps is %d bytes", len(raw))
		}
		var p page
		decodeBytes(t, raw, &p)
		if p.Name != "big" || p.Revision != 2 || len(p.Steps) == 0 {
			t.Fatalf("page from %d: %s %d, %d steps", from, p.Name, p.Revision, len(p.Steps))
		}
		for _, s := range p.Steps {
			seen++
			if s.Number != seen {
				t.Fatalf("step %d where %d was due", s.Number, seen)
			}
			switch {
			case s.Number == 1 && (!s.Cut || len(s.Text) > 2048):
				t.Fatalf("the long step came %d bytes, cut %v", len(s.Text), s.Cut)
			case s.Number == 3 && (s.State != "in_progress" || s.Holder != "worker-1" || s.Cut):
				t.Fatalf("step 3 %+v", s)
			}
		}
		if p.NextFrom == 0 {
			break
		}
		from = p.NextFrom
	}
	if seen != want || pages < 2 {
		t.Fatalf("%d steps in %d pages, want %d", seen, pages+1, want)
	}
	r.wantError("/api/plans/big/steps?from=0", http.StatusBadRequest, "")
	r.wantError("/api/plans/nope/steps", http.StatusNotFound, "")
}

func TestListPagesAreCappedInBytesAndTheCursorGoesThroughEveryPlan(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("<", 400) // six bytes each in JSON
	const n = 150
	for i := range n {
		r.Put(fmt.Sprintf("p-%03d", i), "# "+long+"\n- [ ] "+long+"\n- [ ] "+long+"\n")
	}
	names := map[string]bool{}
	cursor, pages := "", 0
	for {
		st, raw := r.rawGet("/api/plans?limit=1000&cursor=" + cursor)
		if st != http.StatusOK {
			t.Fatalf("status %d", st)
		}
		if len(raw) > 300<<10 {
			t.Fatalf("page %d is %d bytes", pages, len(raw))
		}
		var out struct {
			Plans      []summaryJSON `json:"plans"`
			Total      int           `json:"total"`
			NextCursor string        `json:"next_cursor"`
		}
		decodeBytes(t, raw, &out)
		pages++
		if out.Total != n || len(out.Plans) == 0 {
			t.Fatalf("page %d: total %d, %d plans", pages, out.Total, len(out.Plans))
		}
		for _, p := range out.Plans {
			if names[p.Name] {
				t.Fatalf("%s listed twice", p.Name)
			}
			names[p.Name] = true
		}
		if out.NextCursor == "" {
			break
		}
		cursor = out.NextCursor
	}
	if len(names) != n || pages < 2 {
		t.Fatalf("%d plans in %d pages", len(names), pages)
	}
}
