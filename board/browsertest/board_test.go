package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
)

const releasePlan = "# Release 2.0\n- [x] Write the changelog\n- [ ] Run the checks\n- [ ] Tag and publish\n- [ ] Announce\n"

// releaseRig is a rig where alice is signed in and the planner has written releasePlan as
// plan release.
func releaseRig(t *testing.T) *rig {
	t.Helper()
	r := newRig(t, asPerson("alice"))
	r.Put("release", releasePlan)
	return r
}

// openRelease is a releaseRig with the board open in an en-US browser.
func openRelease(t *testing.T) (*rig, context.Context) {
	t.Helper()
	r := releaseRig(t)
	ctx := browser(t, "en-US")
	r.open(ctx)
	return r, ctx
}

func TestPageShowsThePlansAndFollowsAnAgentLive(t *testing.T) {
	r := releaseRig(t)
	r.Put("docs", "# Docs site\n- [ ] Outline\n- [ ] Write\n")
	ctx := browser(t, "en-US")
	r.open(ctx)

	if got := text(t, ctx, `article[data-plan="release"] h2`); got != "Release 2.0" {
		t.Fatalf("title %q", got)
	}
	if got := text(t, ctx, `article[data-plan="release"] .pct`); got != "1/4 · 25%" {
		t.Fatalf("progress %q", got)
	}
	if got := text(t, ctx, `article[data-plan="release"] .meta`); !strings.Contains(got, "Revision 1") || !strings.Contains(got, "planner") {
		t.Fatalf("meta %q", got)
	}
	if got := text(t, ctx, `#who`); got != "Signed in as alice" {
		t.Fatalf("who %q", got)
	}

	results := runAgent(t, r.Store, "worker-1", false, moveStep("release", 2, "in_progress"))
	if len(results) != 1 || errorCode(t, results[0]) != "" {
		t.Fatalf("the agent's move: %v", results)
	}
	took := waitFor(t, ctx, `(() => {
		const li = document.querySelector('article[data-plan="release"] li[data-step="2"]');
		return !!li && li.dataset.state === 'in_progress' && li.querySelector('.holder').textContent === '@worker-1';
	})()`, pageDeadline)
	t.Logf("the page showed the agent's move %v after the run", took)
	notReloaded(t, ctx)
	if got := text(t, ctx, `article[data-plan="release"] .meta`); !strings.Contains(got, "Revision 2") || !strings.Contains(got, "worker-1 moved a step") {
		t.Fatalf("meta %q", got)
	}

	// A person hands the step to another worker from the page.
	err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`article[data-plan="release"] li[data-step="2"] button.hand`)),
		chromedp.WaitVisible(chromedp.CSS(`#hand`)),
		chromedp.SendKeys(chromedp.CSS(`#hand-holder`), "worker-2"),
		chromedp.Click(chromedp.CSS(`#hand-give`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"] li[data-step="2"] .holder').textContent === '@worker-2'`, pageDeadline)
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Content, "Run the checks (@worker-2)") || p.Revision != 3 {
		t.Fatalf("stored %q at revision %d", p.Content, p.Revision)
	}
	hist, err := r.Store.History(context.Background(), "release")
	if err != nil || hist[0].Author != "alice" {
		t.Fatalf("history %+v %v", hist, err)
	}
	notReloaded(t, ctx)
}

func TestApprovingInThePageLetsTheAgentMoveSteps(t *testing.T) {
	r, ctx := openRelease(t)

	results := runAgent(t, r.Store, "worker-1", true, moveStep("release", 2, "in_progress"))
	if len(results) != 1 || errorCode(t, results[0]) != string(plan.CodeNotApproved) {
		t.Fatalf("before the approval: %v", results)
	}
	if got := text(t, ctx, `article[data-plan="release"] .approval`); got != "Not approved" {
		t.Fatalf("approval badge %q", got)
	}

	review(t, ctx, "release", 1)
	if got := text(t, ctx, `#review-approve`); got != "Approve revision 1" {
		t.Fatalf("button %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#review-approve`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"] .approval').textContent === 'Approved at revision 1 by alice'`, pageDeadline)
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil || p.Approval == nil || p.Approval.By != "alice" || p.Approval.Revision != 1 {
		t.Fatalf("stored %+v %v", p, err)
	}

	results = runAgent(t, r.Store, "worker-1", true, moveStep("release", 2, "in_progress"))
	if len(results) != 1 || errorCode(t, results[0]) != "" {
		t.Fatalf("after the approval: %v", results)
	}
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"] li[data-step="2"]').dataset.state === 'in_progress'`, pageDeadline)
	notReloaded(t, ctx)
}

func TestStaleApprovalShowsTheConflictAndChangesNothing(t *testing.T) {
	r, ctx := openRelease(t)
	review(t, ctx, "release", 1)
	// While the person reads revision 1, the planner rewrites the plan.
	r.Put("release", releasePlan+"- [ ] Roll back if the smoke test fails\n")
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"]').dataset.revision === '2'`, pageDeadline)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#review-approve`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('#review-error').dataset.code === 'revision_conflict' && !document.querySelector('#review-error').hidden`, pageDeadline)
	msg := text(t, ctx, `#review-error`)
	if !strings.Contains(msg, "you saw revision 1, it is now at revision 2") || !strings.Contains(msg, "Nothing was changed") {
		t.Fatalf("conflict message %q", msg)
	}
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil || p.Approval != nil || p.Revision != 2 {
		t.Fatalf("stored %+v %v", p, err)
	}
	// The person reviews the current revision and approves it.
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`#review-reload`)),
		chromedp.WaitVisible(chromedp.CSS(`#review[data-revision="2"]`)),
		chromedp.Click(chromedp.CSS(`#review-approve`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"] .approval').textContent === 'Approved at revision 2 by alice'`, pageDeadline)
}

func TestAReadOnlyBoardOffersNoAction(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	ctx := browser(t, "en-US")
	r.open(ctx)
	buttons, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('button.review, button.hand').length`))
	if err != nil {
		t.Fatal(err)
	}
	if buttons != 0 || text(t, ctx, `#who`) != "Read-only" {
		t.Fatalf("%d action buttons on a read-only board", buttons)
	}
}

func TestRejectingInThePageNeedsFeedbackAndPassesItOn(t *testing.T) {
	decisions := make(chan board.Decision, 4)
	r := newRig(t, asPerson("alice"), board.OnDecision(func(_ context.Context, d board.Decision) { decisions <- d }))
	r.Put("release", releasePlan)
	ctx := browser(t, "en-US")
	r.open(ctx)
	review(t, ctx, "release", 1, chromedp.Click(chromedp.CSS(`#review-reject`)))
	if got := text(t, ctx, `#review-error`); got != "Say why you reject the plan: write feedback first." {
		t.Fatalf("without feedback: %q", got)
	}
	err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#review-feedback`), "Add a rollback step"),
		chromedp.Click(chromedp.CSS(`#review-reject`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-decisions:
		if d.Approved || d.Feedback != "Add a rollback step" || d.By != "alice" || d.Revision != 1 || d.Name != "release" {
			t.Fatalf("decision %+v", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the rejection never reached the host")
	}
	waitFor(t, ctx, `!document.querySelector('#notice').hidden && document.querySelector('#notice').textContent === 'You rejected revision 1 of release.'`, pageDeadline)
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil || p.Revision != 2 || p.Approval != nil || p.Rejection == nil || p.Rejection.Feedback != "Add a rollback step" {
		t.Fatalf("stored %+v %v", p, err)
	}
}

// The review dialog lists, per step, the gated tools its "(uses …)" names, and "nothing" for
// a step that names none, so a person approves exactly that; in the browser's language.
func TestReviewListsWhatEachStepMayUse(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("deploy", "# Deploy\n- [ ] Fix a typo in the README\n- [ ] Deploy to production (after 1) (uses deploy_prod, write_file)\n")
	for _, tc := range []struct{ lang, none, named string }{
		{"en-US", "Step 1: nothing", "Step 2: deploy_prod, write_file"},
		{"zh-CN", "第 1 步：无", "第 2 步：deploy_prod, write_file"},
	} {
		ctx := browser(t, tc.lang)
		r.open(ctx)
		err := chromedp.Do(ctx,
			chromedp.Click(chromedp.CSS(`article[data-plan="deploy"] button.review`)),
			chromedp.WaitVisible(chromedp.CSS(`#review[data-revision="1"]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		if got := text(t, ctx, `#review-uses li[data-step="1"]`); got != tc.none {
			t.Errorf("%s: step 1 %q", tc.lang, got)
		}
		if got := text(t, ctx, `#review-uses li[data-step="2"]`); got != tc.named {
			t.Errorf("%s: step 2 %q", tc.lang, got)
		}
	}
}
