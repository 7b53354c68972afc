package browsertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/cloudwego/eino/adk"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
	"github.com/einoplan/plan/board/internal/boardrig"
	"github.com/einoplan/plan/plantest"
)

// askApproval runs an orchestrator named planner until it pauses in request_plan_approval
// for plan name, and returns what it asked.
func askApproval(t *testing.T, store *plan.Store, name string) plan.ApprovalRequest {
	t.Helper()
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "planner", RequireApproval: true})
	if err != nil {
		t.Fatal(err)
	}
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans", Instruction: "You plan.",
		Model:    plantest.NewScriptedModel(plantest.CallTool("request_plan_approval", `{"name":"`+name+`"}`)),
		Handlers: []adk.ChatModelAgentMiddleware{mw}})
	if err != nil {
		t.Fatal(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: &plantest.CheckPoints{}}).Query(ctx, "plan", adk.WithCheckPointID(name))
	for {
		ev, ok := iter.Next()
		if !ok {
			t.Fatal("the run ended without asking")
		}
		if ev.Err != nil {
			t.Fatal(ev.Err)
		}
		if ev.Action != nil && ev.Action.Interrupted != nil {
			if req, ok := ev.Action.Interrupted.InterruptContexts[0].Info.(plan.ApprovalRequest); ok {
				return req
			}
		}
	}
}

// The page says nothing about "no plans" until its first list came.
func TestThePageWaitsForItsFirstListBeforeSayingThereAreNoPlans(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/api/plans" {
			time.Sleep(700 * time.Millisecond) // the list is slow to come
		}
		req.URL.Scheme, req.URL.Host = "", ""
		proxy(w, req, r.Srv.URL)
	}))
	t.Cleanup(slow.Close)
	ctx := browser(t, "en-US")
	if err := chromedp.Do(ctx, chromedp.Navigate(slow.URL+"/")); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 500*time.Millisecond; time.Sleep(20 * time.Millisecond) {
		shown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.querySelector('#empty').hidden && document.body.dataset.loaded !== '1'`))
		if err != nil {
			t.Fatal(err)
		}
		if shown {
			t.Fatal("the page said there are no plans before its list came")
		}
	}
	waitFor(t, ctx, `document.body.dataset.loaded === '1' && !document.querySelector('#empty').hidden`, pageDeadline)
}

// proxy passes req on to the server at base.
func proxy(w http.ResponseWriter, req *http.Request, base string) {
	out, err := http.NewRequestWithContext(req.Context(), req.Method, base+req.URL.RequestURI(), req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	res, err := http.DefaultClient.Do(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		if n > 0 {
			_, _ = w.Write(buf[:n])
			if f, ok := w.(http.Flusher); ok {
				f.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// A plan a run waits on says so on the page, who and on which revision; a rejection made in
// the page reaches a host waiting with WaitDecision, with its feedback, and the page shows it.
func TestThePageShowsTheWaitingRunAndItsRejectionReachesTheHost(t *testing.T) {
	for _, lang := range []string{"en-US", "zh-CN"} {
		r := newRig(t, asPerson("alice"))
		r.Put("release", "# Release\n- [ ] Build\n- [ ] Deploy (after 1)\n")
		req := askApproval(t, r.Store, "release")
		ctx := browser(t, lang)
		r.open(ctx)
		waitFor(t, ctx, `(() => { const w = document.querySelector('article[data-plan="release"] .waiting'); return !!w && w.dataset.revision === '2'; })()`, pageDeadline)
		got := textNow(t, ctx, `article[data-plan="release"] .waiting`)
		want := map[string]string{"en-US": "planner waits for a decision on revision 2 since", "zh-CN": "planner 自"}[lang]
		if !strings.Contains(got, want) {
			t.Fatalf("%s: waiting marker %q", lang, got)
		}
		after := textNow(t, ctx, `article[data-plan="release"] li[data-step="2"] .after`)
		if after != map[string]string{"en-US": "after 1", "zh-CN": "在 1 之后"}[lang] {
			t.Fatalf("%s: dependency %q", lang, after)
		}
		if step := textNow(t, ctx, `article[data-plan="release"] li[data-step="2"] .text`); step != "Deploy" {
			t.Fatalf("%s: step text %q", lang, step)
		}

		decided := make(chan plan.ApprovalDecision, 1)
		go func() {
			d, err := r.Store.WaitDecision(context.Background(), "release", req.Revision)
			if err != nil {
				t.Error(err)
			}
			decided <- d
		}()
		err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`article[data-plan="release"] button.review`)),
			chromedp.WaitVisible(chromedp.CSS(`#review[data-revision="2"]`)),
			chromedp.SendKeys(chromedp.CSS(`#review-feedback`), "Add a rollback step"),
			chromedp.Click(chromedp.CSS(`#review-reject`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		select {
		case d := <-decided:
			if d.Approved || d.By != "alice" || d.Feedback != "Add a rollback step" {
				t.Fatalf("decision %+v", d)
			}
		case <-time.After(pageDeadline):
			t.Fatal("the rejection never reached the waiting host")
		}
		// One read of the card, which the live stream may draw again at any time.
		waitFor(t, ctx, `(() => {
			const card = document.querySelector('article[data-plan="release"]');
			const r = card && card.querySelector('.rejected');
			return !!r && !card.querySelector('.waiting') && r.textContent.includes('alice') && r.textContent.includes('Add a rollback step');
		})()`, pageDeadline)
	}
}

// Reviewing a plan approved before shows what changed since the approved revision.
func TestTheReviewShowsWhatChangedSinceTheLastApproval(t *testing.T) {
	r := newRig(t, asPerson("alice"), board.OnDecision(func(context.Context, board.Decision) {}))
	r.Put("release", releasePlan)
	if _, err := r.Store.Approve(context.Background(), "release", 1, "bob"); err != nil {
		t.Fatal(err)
	}
	r.Put("release", releasePlan+"- [ ] Roll back if the smoke test fails\n") // r3: not approved
	ctx := browser(t, "en-US")
	r.open(ctx)
	review(t, ctx, "release", 3)
	waitFor(t, ctx, `!document.querySelector('#review-diff').hidden`, pageDeadline)
	if got := textNow(t, ctx, `#review-diff-label`); got != "Changes since revision 1, approved by bob:" {
		t.Fatalf("label %q", got)
	}
	if got := textNow(t, ctx, `#review-diff`); !strings.Contains(got, "+- [ ] Roll back if the smoke test fails") {
		t.Fatalf("diff %q", got)
	}
}

// A step held under a lease shows until when; a lease that ran out shows as expired.
func TestThePageShowsWhenAHoldRunsOut(t *testing.T) {
	backend, err := plan.NewLocalBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HoldTTL: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(board.New(store, asPerson("alice")))
	t.Cleanup(srv.Close)
	r := &rig{&boardrig.Rig{T: t, Store: store, Srv: srv}}
	r.Put("release", releasePlan)
	ctx := browser(t, "en-US")
	r.open(ctx)
	p, _, err := store.MoveStep(context.Background(), plan.StepMove{Name: "release", Step: 2, State: plan.StepInProgress, By: "worker-1"})
	if err != nil {
		t.Fatal(err)
	}
	sel := `article[data-plan="release"] li[data-step="2"] .lease`
	waitFor(t, ctx, `!!document.querySelector('`+sel+`')`, pageDeadline)
	expires, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('`+sel+`').dataset.expires`))
	if err != nil {
		t.Fatal(err)
	}
	if end, err := time.Parse(time.RFC3339Nano, expires); err != nil || !end.Equal(store.HeldUntil(p, 2)) {
		t.Fatalf("expires %q, want %v (%v)", expires, store.HeldUntil(p, 2), err)
	}
	if got := textNow(t, ctx, sel); !strings.HasPrefix(got, "until ") {
		t.Fatalf("lease %q", got)
	}
	time.Sleep(time.Until(store.HeldUntil(p, 2)) + 100*time.Millisecond)
	if _, err := store.SetStatus(context.Background(), "release", "late", nil); err != nil { // the card is drawn again
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('`+sel+`').dataset.expired === '1'`, pageDeadline)
	if got := textNow(t, ctx, sel); !strings.HasPrefix(got, "lease expired ") {
		t.Fatalf("lease %q", got)
	}
}

// textNow reads the text of the first element sel matches in one step, so a card the live
// stream draws again meanwhile cannot fail the read; "" when nothing matches.
func textNow(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	q, err := json.Marshal(sel)
	if err != nil {
		t.Fatal(err)
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.querySelector(`+string(q)+`); return e ? e.textContent : ''; })()`))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}
