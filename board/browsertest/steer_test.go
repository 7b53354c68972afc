package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
)

// A step over its budget and a plan over its own are marked on the card, in both
// languages; a person raises the step's budget and the plan's from the card, the plan stays
// approved, and the marks go.
func TestOverBudgetIsMarkedAndAPersonRaisesTheBudgetsOnThePage(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	ctx := context.Background()
	body := "# Release\n- [x] Build (budget 1k tokens) (@w1) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s\n- [ ] Ship (budget 1m)\n"
	p, err := r.Store.Put(plan.WithActor(ctx, "planner"), plan.Update{Name: "release", Content: &body, Budget: "2k tokens"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Store.Approve(ctx, "release", p.Revision, "bob"); err != nil {
		t.Fatal(err)
	}
	marks := `(() => {
		const card = document.querySelector('article[data-plan="release"]');
		const chip = card.querySelector('li[data-step="1"] .over-budget');
		return [card.dataset.overBudget || '', card.querySelector('li[data-step="1"]').dataset.overBudget || '',
			card.querySelector('li[data-step="2"]').dataset.overBudget || '', chip ? chip.textContent : '',
			card.querySelector('.alert.over-budget') ? 'alert' : ''].join('|');
	})()`
	for lang, chip := range map[string]string{"zh-CN": "超出预算", "en-US": "over budget"} {
		page := r.openOn(lang, laptop)
		if got := evalString(t, page, marks); got != "1|1||"+chip+"|alert" {
			t.Fatalf("%s: over-budget marks %q", lang, got)
		}
		if lang != "en-US" {
			continue
		}
		raise := func(button, budget string) {
			t.Helper()
			err := chromedp.Do(page,
				chromedp.Click(chromedp.CSS(`article[data-plan="release"] `+button)),
				chromedp.WaitVisible(chromedp.CSS(`#ask[data-kind="budget"]`)),
				chromedp.SendKeys(chromedp.CSS(`#ask-text`), budget),
				chromedp.Click(chromedp.CSS(`#ask-send`)),
			)
			if err != nil {
				t.Fatal(err)
			}
		}
		raise(`li[data-step="1"] button.budget-open`, "5k tokens")
		waitFor(t, page, marks+` === '1||||alert'`, pageDeadline)
		raise(`.actions button.budget-open`, "10k tokens")
		waitFor(t, page, marks+` === '||||'`, pageDeadline)
		cur, err := r.Store.Get(ctx, "release")
		if err != nil {
			t.Fatal(err)
		}
		if s := plan.ParseSteps(cur.Content)[0]; s.Budget == nil || s.Budget.Tokens != 5000 || cur.Budget != "10k tokens" {
			t.Errorf("stored budgets: step %+v, plan %q", s.Budget, cur.Budget)
		}
		if cur.Approval == nil || cur.Approval.By != "bob" {
			t.Errorf("the approval did not stay: %+v", cur.Approval)
		}
		hist, err := r.Store.History(ctx, "release")
		if err != nil || hist[0].Author != "alice" {
			t.Errorf("history %+v %v", hist, err)
		}
	}
}

// A comment shows under its step, open ones marked and counted, as text whatever it says; a
// person comments on a step and on the plan from the card and resolves a comment there; the
// Store keeps each with the person's name.
func TestAPersonCommentsOnStepsAndResolvesThemOnThePage(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	ctx := context.Background()
	r.Put("release", releasePlan)
	if _, err := r.Store.Put(plan.WithActor(ctx, "bob"), plan.Update{Name: "release", Comment: &api.Comment{Step: 3, Text: "Sign the tag <b>now</b>"}}); err != nil {
		t.Fatal(err)
	}
	page := r.openOn("en-US", laptop)
	card := `article[data-plan="release"] `
	if got := textNow(t, page, card+`li[data-step="3"] .comment.open .body`); got != "Sign the tag <b>now</b>" {
		t.Fatalf("the open comment %q", got)
	}
	if got := textNow(t, page, card+`.alert.open-comments`); got != "1 comment waits for an answer" {
		t.Fatalf("the count %q", got)
	}
	if n := evalString(t, page, `String(document.querySelectorAll('.comment b').length)`); n != "0" {
		t.Fatalf("a comment's markup reached the page: %s elements", n)
	}
	comment := func(button, text string) {
		t.Helper()
		err := chromedp.Do(page,
			chromedp.Click(chromedp.CSS(card+button)),
			chromedp.WaitVisible(chromedp.CSS(`#ask[data-kind="comment"]`)),
			chromedp.SendKeys(chromedp.CSS(`#ask-text`), text),
			chromedp.Click(chromedp.CSS(`#ask-send`)),
		)
		if err != nil {
			t.Fatal(err)
		}
	}
	comment(`li[data-step="2"] button.comment-open`, "Run them twice")
	waitFor(t, page, `(() => { const b = document.querySelector('`+card+`li[data-step="2"] .comment.open .body'); return !!b && b.textContent === 'Run them twice'; })()`, pageDeadline)
	comment(`.actions button.comment-open`, "Who is on call?")
	waitFor(t, page, `(() => { const b = document.querySelector('`+card+`.plan-comments .comment.open .body'); return !!b && b.textContent === 'Who is on call?'; })()`, pageDeadline)
	if err := chromedp.Do(page, chromedp.Click(chromedp.CSS(card+`li[data-step="3"] .comment.open button.resolve`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, page, `(() => { const c = document.querySelector('`+card+`li[data-step="3"] .comment'); return !!c && c.classList.contains('closed') && c.textContent.includes('resolved by alice'); })()`, pageDeadline)
	if got := textNow(t, page, card+`.alert.open-comments`); got != "2 comments wait for an answer" {
		t.Errorf("the count %q", got)
	}
	p, err := r.Store.Get(ctx, "release")
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, c := range p.Comments {
		kept = append(kept, strings.Join([]string{c.Author, c.Text, c.ResolvedBy}, "/"))
	}
	if got := strings.Join(kept, " "); len(p.Comments) != 3 || p.Comments[0].Step != 3 || p.Comments[1].Step != 2 || p.Comments[2].Step != 0 ||
		got != "bob/Sign the tag <b>now</b>/alice alice/Run them twice/ alice/Who is on call?/" {
		t.Fatalf("stored comments %q", got)
	}
}

// evalString is the value of the JavaScript expression js, a string.
func evalString(t *testing.T, ctx context.Context, js string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return s
}
