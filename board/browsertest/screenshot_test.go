package browsertest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/einoplan/plan"
)

// demo fills r with three plans in the middle of their work: one approved and being
// released, one whose docs writer stopped, one done.
func (r *rig) demo() {
	r.T.Helper()
	ctx := context.Background()
	move := func(name string, step int, state plan.StepState, by string) {
		r.T.Helper()
		if _, _, err := r.Store.MoveStep(ctx, plan.StepMove{Name: name, Step: step, State: state, By: by}); err != nil {
			r.T.Fatal(err)
		}
	}
	status := func(name, s string) {
		r.T.Helper()
		if _, err := r.Store.SetStatus(plan.WithActor(ctx, "planner"), name, s, nil); err != nil {
			r.T.Fatal(err)
		}
	}
	r.Put("release-2-0", "# Release 2.0\n- [ ] Write the changelog\n- [ ] Run the preflight checks\n- [ ] Tag and publish\n- [ ] Announce on the blog\n")
	status("release-2-0", "in-progress")
	if _, err := r.Store.Approve(ctx, "release-2-0", 2, "alice"); err != nil {
		r.T.Fatal(err)
	}
	move("release-2-0", 1, plan.StepInProgress, "release-worker")
	move("release-2-0", 1, plan.StepCompleted, "release-worker")
	move("release-2-0", 2, plan.StepInProgress, "release-worker")

	r.Put("docs-site", "# Docs site\n- [ ] Collect the pages\n- [ ] Convert them to Markdown\n- [ ] Check every link\n")
	status("docs-site", "in-progress")
	move("docs-site", 1, plan.StepInProgress, "docs-writer")
	move("docs-site", 1, plan.StepCompleted, "docs-writer")
	move("docs-site", 2, plan.StepInProgress, "docs-writer")
	if _, _, err := r.Store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "docs-site", Step: 2, State: plan.StepInProgress, By: "", Takeover: true}); err != nil {
		r.T.Fatal(err)
	}

	r.Put("flaky-tests", "# Fix the flaky tests\n- [ ] Find them\n- [ ] Fix the race in the cache\n- [ ] Skip the network test\n")
	move("flaky-tests", 1, plan.StepInProgress, "tester")
	move("flaky-tests", 1, plan.StepCompleted, "tester")
	move("flaky-tests", 2, plan.StepInProgress, "tester")
	move("flaky-tests", 2, plan.StepCompleted, "tester")
	move("flaky-tests", 3, plan.StepSkipped, "tester")
	if _, err := r.Store.SetStatus(plan.WithActor(ctx, "tester"), "flaky-tests", "done", nil); err != nil {
		r.T.Fatal(err)
	}
}

// screenshot writes the page as DIR/file when BOARD_SCREENSHOTS=DIR.
func screenshot(t *testing.T, ctx context.Context, file string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if len(png) < 1000 {
		t.Fatalf("a screenshot of %d bytes", len(png))
	}
	dir := os.Getenv("BOARD_SCREENSHOTS")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", filepath.Join(dir, file))
}

func TestPageSpeaksTheBrowsersLanguage(t *testing.T) {
	for _, c := range []struct {
		lang, file              string
		title, inProgress, who  string
		released, approvedBadge string
	}{
		{"en-US", "board-en.png", "Plan board", "In progress", "Signed in as alice", "held by nobody", "Approved at revision 2 by alice"},
		{"zh-CN", "board-zh.png", "计划看板", "进行中", "当前用户：alice", "无人负责", "已由 alice 批准（第 2 版）"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			r := newRig(t, asPerson("alice"))
			r.demo()
			ctx := browser(t, c.lang)
			r.open(ctx)
			for sel, want := range map[string]string{
				"h1": c.title, "#who": c.who,
				`article[data-plan="release-2-0"] li[data-step="2"] .state`: c.inProgress,
				`article[data-plan="docs-site"] li[data-step="2"] .holder`:  c.released,
				`article[data-plan="release-2-0"] .approval`:                c.approvedBadge,
			} {
				if got := text(t, ctx, sel); got != want {
					t.Errorf("%s: %q, want %q", sel, got, want)
				}
			}
			// The history of one plan open, as a person following it would have it.
			err := chromedp.Do(ctx,
				chromedp.Click(chromedp.CSS(`article[data-plan="docs-site"] button.history-toggle`)),
				chromedp.WaitVisible(chromedp.CSS(`article[data-plan="docs-site"] .history li`)),
			)
			if err != nil {
				t.Fatal(err)
			}
			if hist := text(t, ctx, `article[data-plan="docs-site"] .history li`); !strings.Contains(hist, "alice") {
				t.Errorf("newest revision %q does not name alice", hist)
			}
			time.Sleep(time.Second) // the highlight of the reopened card fades
			screenshot(t, ctx, c.file)
		})
	}
}
