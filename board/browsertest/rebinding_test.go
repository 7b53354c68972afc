package browsertest

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestAPageOnAReboundHostNameCannotApprove: a page served from http://rebound.test:PORT, a
// name that now resolves to the board's address (DNS rebinding), sends the approval the
// board's own page would send, same-origin as far as the browser can tell. The board
// refuses it and the plan stays unapproved.
func TestAPageOnAReboundHostNameCannotApprove(t *testing.T) {
	r := releaseRig(t)
	u, err := url.Parse(r.Srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, "en-US", chromedp.Flag("host-resolver-rules", "MAP rebound.test 127.0.0.1"))
	origin := "http://rebound.test:" + u.Port()
	if err := chromedp.Do(ctx, chromedp.Navigate(origin+"/")); err != nil {
		t.Fatal(err)
	}
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.origin`)); err != nil || got != origin {
		t.Fatalf("the page's origin is %q (%v), want %s", got, err, origin)
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch('/api/plans/release/approve', {
		method: 'POST', credentials: 'same-origin',
		headers: {'Content-Type': 'application/json', 'X-Plan-Board': '1'},
		body: JSON.stringify({revision: 1})
	}).then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if status != 421 {
		t.Errorf("the approval from the rebound page answered %d, want 421", status)
	}
	read, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch('/api/plans').then(r => r.status)`, chromedp.EvalAwaitPromise))
	if err != nil || read != 421 {
		t.Errorf("the plans read from the rebound page: %d %v, want 421", read, err)
	}
	p, err := r.Store.Get(context.Background(), "release")
	if err != nil {
		t.Fatal(err)
	}
	if p.Approval != nil || p.Revision != 1 {
		t.Fatalf("the plan changed: approval %+v at revision %d", p.Approval, p.Revision)
	}
}
