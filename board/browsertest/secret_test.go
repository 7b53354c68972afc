package browsertest

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/einoplan/plan/board"
)

// A person opens the board by the URL with its secret, as planctl serve prints it: the page
// loads, follows the stream and approves, the address bar no longer shows the secret, and
// the page's script cannot read the cookie that holds it. A tab opened without the secret
// reads nothing.
func TestThePersonOpensTheSecretURLAndActs(t *testing.T) {
	secret, err := board.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, asPerson("alice"), board.WithSecret(secret))
	r.Put("release", releasePlan)

	stranger := browser(t, "en-US")
	if err := chromedp.Do(stranger, chromedp.Navigate(r.Srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(stranger, chromedp.Evaluate[int](`fetch('/api/plans').then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || status != 401 {
		t.Fatalf("a browser without the secret read the plans: %d %v", status, err)
	}
	if body, _ := chromedp.Run(stranger, chromedp.Text(chromedp.CSS(`body`))); strings.Contains(body, "Release 2.0") {
		t.Fatalf("the page without the secret shows the plan: %s", body)
	}

	ctx := browser(t, "en-US")
	err = chromedp.Do(ctx,
		chromedp.Navigate(r.Srv.URL+"/?"+board.SecretParam+"="+secret),
		chromedp.WaitVisible(chromedp.CSS(`body[data-loaded="1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#live[data-state="live"]`)),
	)
	if err != nil {
		t.Fatalf("opening the secret URL: %v", err)
	}
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href`))
	if err != nil || strings.Contains(href, secret) || href != r.Srv.URL+"/" {
		t.Fatalf("the address bar shows %q (%v)", href, err)
	}
	if cookie, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.cookie`)); err != nil || cookie != "" {
		t.Fatalf("the page's script reads the cookie %q (%v)", cookie, err)
	}

	review(t, ctx, "release", 1)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#review-approve`))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.querySelector('article[data-plan="release"] .approval').textContent === 'Approved at revision 1 by alice'`, pageDeadline)
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil || p.Approval == nil || p.Approval.By != "alice" {
		t.Fatalf("stored %+v %v", p, err)
	}
}
