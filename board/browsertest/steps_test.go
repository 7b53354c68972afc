package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCardsShowEachPlansStepsAndALargePlansStepsPageByPage: the page lists plan summaries
// and fetches each card's steps per plan: a small plan shows every step at once, a plan of
// about 1 MiB its first page and a button that brings the next.
func TestCardsShowEachPlansStepsAndALargePlansStepsPageByPage(t *testing.T) {
	r := releaseRig(t)
	var big strings.Builder
	big.WriteString("# Big\n")
	steps := 0
	for ; big.Len() < 1_000_000; steps++ {
		fmt.Fprintf(&big, "- [ ] Step %d: %s\n", steps+1, strings.Repeat("check the output ", 10))
	}
	r.Put("big", big.String())
	ctx := browser(t, "en-US")
	r.open(ctx)

	count := func(plan string) int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('article[data-plan="`+plan+`"] li.step').length`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("release"); n != 4 {
		t.Fatalf("release shows %d steps, want 4", n)
	}
	if got := text(t, ctx, `article[data-plan="release"] li[data-step="2"] .text`); got != "Run the checks" {
		t.Fatalf("step 2 %q", got)
	}
	first := count("big")
	if first < 100 || first >= steps {
		t.Fatalf("big shows %d of %d steps on its first page", first, steps)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`article[data-plan="big"] button.more-steps`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, fmt.Sprintf(`document.querySelectorAll('article[data-plan="big"] li.step').length > %d`, first), pageDeadline)
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector('article[data-plan="big"] li[data-step="%d"] .text').textContent`, first+1)))
	if err != nil || got != fmt.Sprintf("Step %d: %s", first+1, strings.Repeat("check the output ", 10)) {
		t.Fatalf("the step after the first page: %q %v", got, err)
	}
	notReloaded(t, ctx)
}
