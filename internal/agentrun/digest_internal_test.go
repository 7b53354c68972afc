package agentrun

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan/internal/document"
)

// The digest's texts in two languages, in other words than the root's tables: what these
// tests check is how a digest is built and found, not its wording.
var (
	digestEN = map[string]string{"digest.header": "\n## Plans at {time}\n", "digest.next": "next", "digest.more": "more: list_plans",
		"digest.unreadable": "unreadable: list_plans", "digest.title": "title", "digest.status": "status", "digest.done": "done", "digest.approved": "approved", "instruction.set": " (plans of {set})"}
	digestZH = map[string]string{"digest.header": "\n## 计划（截至 {time}）\n", "digest.next": "下一步", "digest.more": "更多：list_plans",
		"digest.unreadable": "无法读取：list_plans", "digest.title": "标题", "digest.status": "状态", "digest.done": "完成", "digest.approved": "已批准"}
)

// TestNewestFirstMatchesStableSort checks newestFirst against the first k of a stable sort
// by UpdatedAt, descending, including many plans updated at the same instant.
func TestNewestFirstMatchesStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 500; round++ {
		n := rng.IntN(40)
		plans := make([]*document.Summary, n)
		for i := range plans {
			plans[i] = &document.Summary{Name: string(rune('a' + i%26)), Revision: int64(i), UpdatedAt: base.Add(time.Duration(rng.IntN(8)) * time.Second)}
		}
		want := append([]*document.Summary(nil), plans...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].UpdatedAt.After(want[j].UpdatedAt) })
		for _, k := range []int{0, 1, 3, 12, 50} {
			got := newestFirst(plans, k)
			if len(got) != min(k, n) {
				t.Fatalf("n=%d k=%d: %d plans, want %d", n, k, len(got), min(k, n))
			}
			for i, p := range got {
				if p.Revision != want[i].Revision {
					t.Fatalf("n=%d k=%d: position %d holds plan %d, want %d", n, k, i, p.Revision, want[i].Revision)
				}
			}
		}
	}
}

// TestRenderDigestReusesOnlyTheLinesOfTheSameSummaries renders random listings once
// afresh and once from the lines of an earlier render, in which some plans have changed
// since: both texts must be the same, a line kept for a summary must be the one shown for
// it, and the lines returned must be exactly those shown.
func TestRenderDigestReusesOnlyTheLinesOfTheSameSummaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := 0; round < 300; round++ {
		n := 1 + rng.IntN(30)
		plans := make([]*document.Summary, n)
		for i := range plans {
			plans[i] = &document.Summary{Name: string(rune('a' + i%26)), Revision: 1, Title: "t", Status: "s", UpdatedAt: base.Add(time.Duration(rng.IntN(8)) * time.Second)}
		}
		maxPlans, maxBytes := 1+rng.IntN(14), 200+rng.IntN(1200)
		_, known := renderDigest(plans, 0, digestEN, maxPlans, maxBytes, nil)
		next := slices.Clone(plans)
		for i := range next {
			if rng.IntN(4) == 0 { // replaced, as the Store replaces a changed plan's summary
				p := *next[i]
				p.Revision++
				p.Status = "changed"
				p.UpdatedAt = p.UpdatedAt.Add(time.Duration(rng.IntN(8)) * time.Second)
				next[i] = &p
			}
		}
		unreadable := rng.IntN(2)
		want, wantLines := renderDigest(next, unreadable, digestEN, maxPlans, maxBytes, nil)
		got, gotLines := renderDigest(next, unreadable, digestEN, maxPlans, maxBytes, known)
		if got != want {
			t.Fatalf("round %d: rendered from kept lines:\n%s\nafresh:\n%s", round, got, want)
		}
		if len(gotLines) != len(wantLines) {
			t.Fatalf("round %d: %d lines returned, want %d", round, len(gotLines), len(wantLines))
		}
		for p, line := range gotLines {
			if wantLines[p] != line || !strings.Contains(got, line) {
				t.Fatalf("round %d: line %q of plan %s is not the one shown", round, line, p.Name)
			}
		}
	}
	// A kept line is used as it is, without formatting the summary again.
	p := &document.Summary{Name: "kept", Revision: 3, UpdatedAt: base}
	got, _ := renderDigest([]*document.Summary{p}, 0, digestEN, 12, 4000, digestLines{p: "- kept (as kept)\n"})
	if !strings.Contains(got, "- kept (as kept)\n") {
		t.Fatalf("a kept line was formatted again:\n%s", got)
	}
}

// TestLeadingDigestIsTheWholeDigestAndNothingAfterIt finds a digest rendered at another time
// (with more and unreadable plans, in either language, with a plan set) at the start of a
// text, whatever follows it, and finds none where no digest starts.
func TestLeadingDigestIsTheWholeDigestAndNothingAfterIt(t *testing.T) {
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var plans []*document.Summary
	for i := range 5 {
		plans = append(plans, &document.Summary{Name: "plan-" + string(rune('a'+i)), Revision: int64(i + 1), Title: "t\n- x r1 ", Status: "s",
			UpdatedAt: base.Add(time.Duration(i) * time.Hour), Progress: document.Progress{Total: 2, Completed: 1}})
	}
	tails := []string{"", "\n## Other\n- a list item\n", "- not a digest line\n", "- 3rd party\n", "## Plans\n"}
	for _, texts := range []map[string]string{digestEN, digestZH, withSetHeader(digestEN, "team plans")} {
		header := texts["digest.header"]
		for _, unreadable := range []int{0, 2} {
			digest, _ := renderDigest(plans, unreadable, texts, 3, 4000, nil)
			if !strings.Contains(digest, texts["digest.more"]) {
				t.Fatalf("the digest leaves no plan out:\n%s", digest)
			}
			for _, tail := range tails {
				if got := leadingDigest(digest+tail, header); got != digest {
					t.Fatalf("followed by %q:\n%q\nwant\n%q", tail, got, digest)
				}
				if got := leadingDigest(tail, header); got != "" {
					t.Fatalf("%q starts with no digest, found %q", tail, got)
				}
			}
		}
	}
}

// A history whose digest merely starts with the run's own (a plan listed there was deleted
// since) holds another digest: the whole of it is what a renewal replaces.
func TestADigestThatMerelyStartsWithTheRunsOwnIsAnother(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	alpha := &document.Summary{Name: "alpha", Revision: 3, Status: "s", UpdatedAt: at, Progress: document.Progress{Total: 2}}
	beta := &document.Summary{Name: "beta", Revision: 2, Status: "s", UpdatedAt: at.Add(-time.Hour), Progress: document.Progress{Total: 1}}
	both, _ := renderDigest([]*document.Summary{alpha, beta}, 0, digestEN, 12, 4000, nil)
	now, _ := renderDigest([]*document.Summary{alpha}, 0, digestEN, 12, 4000, nil)
	if !strings.HasPrefix(both, now) || both == now {
		t.Fatalf("the case needs a digest that starts with the other:\n%q\n%q", both, now)
	}
	msg := schema.SystemMessage("You work.\nANCHOR" + both + "\nMore instructions.")
	if got := digestInHistory([]*schema.Message{msg}, "ANCHOR", now, digestEN["digest.header"]); got != both {
		t.Fatalf("found %q, want the whole digest %q", got, both)
	}
	msg = schema.SystemMessage("You work.\nANCHOR" + now + "\nMore instructions.")
	if got := digestInHistory([]*schema.Message{msg}, "ANCHOR", now, digestEN["digest.header"]); got != now {
		t.Fatalf("the run's own digest read as %q", got)
	}
}
