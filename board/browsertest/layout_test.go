package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/cloudwego/eino/components/tool"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/plantest"
)

// The sizes the board is read at: a laptop's window, a wide screen's, and a phone's.
type screen struct {
	name          string
	width, height int64
	phone         bool
}

var (
	laptop = screen{"1280", 1280, 900, false}
	wide   = screen{"2560", 2560, 1440, false}
	phone  = screen{"390", 390, 844, true}
)

// openOn opens the board of r in a browser speaking lang, sized as s.
func (r *rig) openOn(lang string, s screen) context.Context {
	r.T.Helper()
	ctx := browser(r.T, lang)
	opts := []chromedp.EmulateViewportOption{}
	if s.phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulatePortrait)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.width, s.height, opts...)); err != nil {
		r.T.Fatal(err)
	}
	r.open(ctx)
	return ctx
}

// evalJSON evaluates the JavaScript expression js, whose value is a JSON text, into out.
func evalJSON(t *testing.T, ctx context.Context, js string, out any) {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(`+js+`)`))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		t.Fatalf("reading %s: %v", s, err)
	}
}

// columnWidth is how wide a text box is, in characters of its own font: its width over the
// width of "0" in its font (CSS's ch).
type columnWidth struct {
	What string  `json:"what"`
	Ch   float64 `json:"ch"`
}

// textColumns measures every box sel matches.
func textColumns(t *testing.T, ctx context.Context, sel string) []columnWidth {
	t.Helper()
	q, _ := json.Marshal(sel)
	var out []columnWidth
	evalJSON(t, ctx, `[...document.querySelectorAll(`+string(q)+`)].map((e) => {
		const probe = document.createElement('span');
		probe.textContent = '0'.repeat(40);
		probe.style.cssText = 'position:absolute;visibility:hidden;white-space:nowrap;padding:0;border:0';
		e.append(probe);
		const zero = probe.getBoundingClientRect().width / 40;
		probe.remove();
		const card = e.closest('article');
		const li = e.closest('li');
		return { what: (card ? card.dataset.plan : '') + (li ? ' step ' + li.dataset.step : ''), ch: e.getBoundingClientRect().width / zero };
	})`, &out)
	return out
}

// box is an element's size in CSS pixels.
type box struct {
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

func boxOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	q, _ := json.Marshal(sel)
	var b box
	evalJSON(t, ctx, `(() => { const r = document.querySelector(`+string(q)+`).getBoundingClientRect(); return { width: r.width, height: r.height }; })()`, &b)
	return b
}

// showcase fills r with plan release, five steps the way a release looks halfway: one done
// with what it cost over its budget and the evidence its agent typed, one proven by a run the
// host observed, one held under a budget, two waiting for it; the plan approved by alice, its
// own budget spent; bob's open comment on step 4, and his comment on step 1 that alice
// resolved.
func (r *rig) showcase() {
	r.T.Helper()
	ctx := context.Background()
	body := "# Release 2.0\n" +
		"- [x] Write the changelog for every change since 1.9 (budget 2k tokens) (@writer) — cost: 2400+310 tokens, 3 calls, 2 tools, 95s — evidence: CHANGELOG.md lists 14 changes\n" +
		"- [ ] Fix the flaky parser test (uses edit_file) (proof run_tests)\n" +
		"- [ ] Tag and publish the release to the package registry (after 2) (uses publish) (budget 50k tokens, 20m)\n" +
		"- [ ] Announce the release on the blog and the mailing list (after 3)\n" +
		"- [ ] Close the milestone (after 4)\n"
	if _, err := r.Store.Put(plan.WithActor(ctx, "planner"), plan.Update{Name: "release", Content: &body, Status: "in-progress", Budget: "3k tokens"}); err != nil {
		r.T.Fatal(err)
	}
	p, err := r.Store.Get(ctx, "release")
	if err != nil {
		r.T.Fatal(err)
	}
	if _, err := r.Store.Approve(ctx, "release", p.Revision, "alice"); err != nil {
		r.T.Fatal(err)
	}
	call := plantest.CallTool
	usage := plantest.Usage{PromptTokens: 900, CompletionTokens: 120}
	results := runAgentWith(r.T, &plan.Config{Store: r.Store, AgentName: "coder"},
		[]tool.BaseTool{fixedTool{"edit_file", `{"edited":true}`}, fixedTool{"run_tests", `{"passed":12}`}},
		plantest.WithUsage(moveStep("release", 2, "in_progress"), usage),
		plantest.WithUsage(call("edit_file", `{"arg":"parser.go"}`), usage),
		plantest.WithUsage(call("run_tests", `{"arg":"./..."}`), usage),
		plantest.WithUsage(call(plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"completed","evidence":"go test ./... passed twice"}`), usage),
	)
	for i, res := range results {
		if errorCode(r.T, res) != "" {
			r.T.Fatalf("the coder's call %d: %s", i, res)
		}
	}
	if _, _, err := r.Store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 3, State: plan.StepInProgress, By: "publisher"}); err != nil {
		r.T.Fatal(err)
	}
	for _, u := range []plan.Update{
		{Name: "release", Comment: &api.Comment{Step: 1, Text: "List the breaking changes first."}},
		{Name: "release", Comment: &api.Comment{Step: 4, Text: "Say in the first line that 2.0 drops Go 1.22."}},
	} {
		if _, err := r.Store.Put(plan.WithActor(ctx, "bob"), u); err != nil {
			r.T.Fatal(err)
		}
	}
	if _, err := r.Store.Put(plan.WithActor(ctx, "alice"), plan.Update{Name: "release", Resolve: []string{"c1"}}); err != nil {
		r.T.Fatal(err)
	}
}

// Each step's text has a line of its own, at least 40 characters of its font wide, at a
// laptop's width and on a phone, in both languages: what the step carries (state, holder,
// cost, evidence, budget, comments) goes beneath it, never beside it; so does a comment's.
func TestEveryStepsTextKeepsFortyCharactersAtLaptopAndPhoneWidths(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.showcase()
	for _, s := range []screen{laptop, phone} {
		for _, lang := range []string{"en-US", "zh-CN"} {
			t.Run(s.name+"/"+lang, func(t *testing.T) {
				ctx := r.openOn(lang, s)
				cols := textColumns(t, ctx, `.step .text, .comment .body`)
				if len(cols) != 7 {
					t.Fatalf("%d step and comment texts, want 7", len(cols))
				}
				for _, c := range cols {
					if c.Ch < 40 {
						t.Errorf("%s: the text is %.1f characters wide", c.What, c.Ch)
					}
				}
				if w := boxOf(t, ctx, `html`).Width; w > float64(s.width) {
					t.Errorf("the page is %.0f px wide in a %d px window", w, s.width)
				}
				screenshot(t, ctx, "plan-"+s.name+"-"+strings.SplitN(lang, "-", 2)[0]+".png")
			})
		}
	}
}

// A card of three steps that carry what they cost and the evidence of their completion is
// read at a glance on a laptop: under 600 px tall.
func TestAThreeStepPlanWithCostAndEvidenceFitsUnder600Pixels(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("build", "# Build and ship\n"+
		"- [x] Build the binaries (@w1) — cost: 2000+100 tokens, 2 calls, 3 tools, 40s — evidence: make build exit 0\n"+
		"- [x] Run the tests (@w2) — cost: 1000+50 tokens, 1 call, 1 tool, 20s — evidence: go test ./... ok\n"+
		"- [ ] Ship it (after 2) (uses deploy_prod)\n")
	ctx := r.openOn("en-US", laptop)
	if h := boxOf(t, ctx, `article[data-plan="build"]`).Height; h >= 600 {
		t.Errorf("the card is %.0f px tall", h)
	}
	for _, c := range textColumns(t, ctx, `.step .text`) {
		if c.Ch < 40 {
			t.Errorf("%s: the text is %.1f characters wide", c.What, c.Ch)
		}
	}
}

// A plan whose steps are long takes the width its lines need on a wide screen, rather than
// a narrow column beside empty space.
func TestAPlanCardTakesTheWidthItsStepsNeed(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	long := strings.Repeat("migrate the orders table to the new schema and check every row ", 3)
	r.Put("migrate", "# Migrate\n- [ ] "+long+"\n- [ ] Switch the readers\n")
	ctx := r.openOn("en-US", wide)
	if w := boxOf(t, ctx, `article[data-plan="migrate"]`).Width; w < 1500 {
		t.Errorf("the card is %.0f px wide in a %d px window", w, wide.width)
	}
}

// A decision (the approval, a rejection, a run waiting for one) looks like a decision; the
// plan's free-text status is a plain label apart from them.
func TestDecisionsLookLikeDecisionsAndTheStatusLikeALabel(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("approved", "# Approved\n- [ ] Build\n")
	if _, err := r.Store.Approve(context.Background(), "approved", 1, "bob"); err != nil {
		t.Fatal(err)
	}
	r.Put("rejected", "# Rejected\n- [ ] Build\n")
	if _, err := r.Store.Reject(context.Background(), "rejected", 1, "bob", "Add a rollback step"); err != nil {
		t.Fatal(err)
	}
	r.Put("waiting", "# Waiting\n- [ ] Build\n")
	askApproval(t, r.Store, "waiting")
	ctx := r.openOn("en-US", laptop)
	var got map[string]struct {
		Decisions []string `json:"decisions"`
		Status    struct {
			Text      string `json:"text"`
			InBar     bool   `json:"in_bar"`
			Decision  string `json:"decision"`
			Bg        string `json:"bg"`
			BgDecided string `json:"bg_decided"`
		} `json:"status"`
	}
	evalJSON(t, ctx, `Object.fromEntries([...document.querySelectorAll('article.plan')].map((card) => {
		const s = card.querySelector('.status');
		const a = card.querySelector('.approval');
		return [card.dataset.plan, {
			decisions: [...card.querySelectorAll('[data-decision]')].map((d) => d.dataset.decision),
			status: { text: s.textContent, in_bar: !!s.closest('.decisions'), decision: s.dataset.decision || '',
				bg: getComputedStyle(s).backgroundColor, bg_decided: getComputedStyle(a).backgroundColor },
		}];
	}))`, &got)
	want := map[string]string{"approved": "approved", "rejected": "rejected", "waiting": "waiting"}
	for name, decision := range want {
		g := got[name]
		if !containsString(g.Decisions, decision) {
			t.Errorf("%s: decisions %v, want %q among them", name, g.Decisions, decision)
		}
		if g.Status.InBar || g.Status.Decision != "" || g.Status.Bg == g.Status.BgDecided {
			t.Errorf("%s: the status %+v looks like a decision", name, g.Status)
		}
		if g.Status.Text != "status: draft" {
			t.Errorf("%s: status %q", name, g.Status.Text)
		}
	}
	if containsString(got["approved"].Decisions, "unapproved") || !containsString(got["rejected"].Decisions, "unapproved") {
		t.Errorf("approval decisions %v and %v", got["approved"].Decisions, got["rejected"].Decisions)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// What a step cost reads as people say it, singular and plural, in the browser's language.
func TestCostReadsInTheBrowsersLanguageWithItsPlurals(t *testing.T) {
	r := newRig(t, asPerson("alice"))
	r.Put("costs", "# Costs\n- [x] One (@w1) — cost: 1000+0 tokens, 1 call, 1 tool, 1s\n- [x] Two (@w2) — cost: 1+1 tokens, 2 calls, 2 tools, 2s\n")
	for lang, want := range map[string][2]string{
		"en-US": {"1,000 tokens · 1 model call · 1 tool call · 1 s", "2 tokens · 2 model calls · 2 tool calls · 2 s"},
		"zh-CN": {"1,000 个 token · 1 次模型调用 · 1 次工具调用 · 1 秒", "2 个 token · 2 次模型调用 · 2 次工具调用 · 2 秒"},
	} {
		ctx := r.openOn(lang, laptop)
		for i, w := range want {
			if got := textNow(t, ctx, fmt.Sprintf(`li[data-step="%d"] .cost`, i+1)); got != w {
				t.Errorf("%s: step %d cost %q, want %q", lang, i+1, got, w)
			}
		}
	}
}
