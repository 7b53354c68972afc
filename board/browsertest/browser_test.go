package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/einoplan/plan/board"
	"github.com/einoplan/plan/board/internal/boardrig"
)

// chromiumPath finds a Chromium to drive; without one the test is skipped, or fails under
// CI=true, where a missing browser is a broken machine rather than a choice.
func chromiumPath(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("PLAN_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	const why = "no Chromium found ($PLAN_CHROMIUM, /usr/bin/chromium, chromium, chromium-browser, google-chrome); install Debian's chromium package to run the browser tests"
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
	return ""
}

// browser starts a headless Chromium with a fresh profile and no network beyond loopback,
// speaking lang (e.g. "en-US", "zh-CN"), with any extra options, and returns a tab context.
func browser(t *testing.T, lang string, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	path := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", lang),
		chromedp.Flag("accept-lang", lang),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 900),
	}
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// review opens the review of plan name in the page and waits for it to show revision rev,
// then runs then; a failure ends the test.
func review(t *testing.T, ctx context.Context, name string, rev int, then ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	actions := append([]chromedp.Action[chromedp.Void]{
		chromedp.Click(chromedp.CSS(`article[data-plan="` + name + `"] button.review`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#review[data-revision="%d"]`, rev))),
	}, then...)
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// rig is a board over a real Store on a LocalBackend, served on loopback.
type rig struct{ *boardrig.Rig }

func newRig(t *testing.T, opts ...board.Option) *rig {
	t.Helper()
	return &rig{boardrig.NewRig(t, opts...)}
}

// asPerson signs every request in as who.
var asPerson = boardrig.AsPerson

// open loads the board and waits until it has shown the plans and follows the stream.
func (r *rig) open(ctx context.Context) {
	r.T.Helper()
	err := chromedp.Do(ctx,
		chromedp.Navigate(r.Srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`body[data-loaded="1"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#live[data-state="live"]`)),
	)
	if err == nil {
		// A mark that a reload would wipe out.
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.loadedOnce = true`))
	}
	if err != nil {
		r.T.Fatalf("opening the board: %v", err)
	}
}

// text returns the text of the first element sel matches.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return s
}

// waitFor waits until the JavaScript expression cond is true, at most within.
// pageDeadline is how long a page may take to show a change before a test fails: a
// liveness bound, generous for a loaded machine; how long it took is logged, never asserted.
const pageDeadline = 10 * time.Second

func waitFor(t *testing.T, ctx context.Context, cond string, within time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
		if err != nil {
			t.Fatalf("evaluating %s: %v", cond, err)
		}
		if ok {
			return time.Since(start)
		}
		if time.Since(start) > within {
			t.Fatalf("not true within %v: %s", within, cond)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// notReloaded fails the test if the page was loaded again since open.
func notReloaded(t *testing.T, ctx context.Context) {
	t.Helper()
	still, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.loadedOnce === true`))
	if err != nil || !still {
		t.Fatalf("the page was reloaded (%v)", err)
	}
}
