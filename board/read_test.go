package board_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/einoplan/plan"
)

const releasePlan = "# Release 2.0\n- [x] Write the changelog\n- [ ] Run the checks\n- [ ] Tag and publish\n- [ ] Announce\n"

func TestListShowsEachPlansSummaryWithProgressAndItsCurrentAndNextStep(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	r.start("release", 2, "worker-1")
	r.Put("docs", "# Docs\n- [ ] Outline\n")
	var out struct {
		Plans []summaryJSON `json:"plans"`
		Total int           `json:"total"`
	}
	if st := r.get("/api/plans", &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if out.Total != 2 || len(out.Plans) != 2 || out.Plans[0].Name != "docs" || out.Plans[1].Name != "release" {
		t.Fatalf("plans %+v", out)
	}
	rel := out.Plans[1]
	if rel.Title != "Release 2.0" || rel.Revision != 2 || rel.Progress.Total != 4 || rel.Progress.Percent != 25 || rel.Steps != nil {
		t.Fatalf("release %+v", rel)
	}
	if rel.CurrentStep == nil || *rel.CurrentStep != (stepJSON{2, "in_progress", "Run the checks", "worker-1"}) {
		t.Fatalf("current step %+v", rel.CurrentStep)
	}
	if rel.NextStep == nil || *rel.NextStep != (stepJSON{3, "pending", "Tag and publish", ""}) {
		t.Fatalf("next step %+v", rel.NextStep)
	}
}

func TestListRefusesABadLimit(t *testing.T) {
	r := newRig(t)
	r.wantError("/api/plans?limit=-3", http.StatusBadRequest, "bad_request")
}

func TestOnePlanHasStepsHoldersApprovalBodyAndHistory(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	_, err := r.Store.Approve(context.Background(), "release", 1, "alice")
	mustNot(t, err)
	var p planJSON
	if st := r.get("/api/plans/release", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if p.Revision != 2 || p.Approval == nil || p.Approval.Revision != 1 || p.Approval.By != "alice" || p.Content != releasePlan {
		t.Fatalf("plan %+v", p)
	}
	if p.ChangedBy != "alice" || len(p.History) != 2 || p.History[0].Action != "approve" || p.History[1].Author != "planner" {
		t.Fatalf("history %+v", p.History)
	}
}

func TestUnknownPlanIsNotFound(t *testing.T) {
	r := newRig(t)
	r.wantError("/api/plans/nope", http.StatusNotFound, "not_found")
	r.wantError("/api/plans/..%2Fetc", http.StatusBadRequest, "invalid_argument")
}

func TestDiffShowsWhatChangedBetweenTwoRevisions(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	r.Put("release", strings.Replace(releasePlan, "Announce", "Announce on the blog", 1))
	var out struct {
		From, To int64
		Diff     string
	}
	if st := r.get("/api/plans/release/diff?from=1&to=2", &out); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if out.From != 1 || out.To != 2 || !strings.Contains(out.Diff, "-- [ ] Announce\n") || !strings.Contains(out.Diff, "+- [ ] Announce on the blog") {
		t.Fatalf("diff %+v", out)
	}
	if st := r.get("/api/plans/release/diff", &out); st != http.StatusOK || out.From != 1 || out.To != 2 {
		t.Fatalf("default diff %d %+v", st, out)
	}
	r.wantError("/api/plans/release/diff?from=x", http.StatusBadRequest, "")
	r.wantError("/api/plans/release/diff?from=1&to=9", http.StatusNotFound, "")
}

func TestPageFollowsTheBrowsersLanguageAndKeepsToItsOwnFiles(t *testing.T) {
	r := newRig(t)
	for accept, want := range map[string]string{
		"zh-CN,zh;q=0.9,en;q=0.8": `<html lang="zh">`,
		"en-US,en;q=0.9":          `<html lang="en">`,
		"fr-FR, zh;q=0.5":         `<html lang="zh">`,
		"":                        `<html lang="en">`,
		"de;q=x, ;;;,":            `<html lang="en">`,
	} {
		req, _ := http.NewRequest(http.MethodGet, r.Srv.URL+"/", nil)
		req.Header.Set("Accept-Language", accept)
		resp, err := http.DefaultClient.Do(req)
		mustNot(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) {
			t.Errorf("Accept-Language %q: want %s", accept, want)
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("CSP %q", csp)
		}
	}
	for _, f := range []string{"/static/board.js", "/static/board.css"} {
		if st := statusOf(t, r.Srv.URL+f); st != http.StatusOK {
			t.Errorf("%s: %d", f, st)
		}
	}
	if st := statusOf(t, r.Srv.URL+"/static/..%2fboard.go"); st != http.StatusNotFound {
		t.Errorf("a file outside the page: %d", st)
	}
}

func TestPageTextsExistInEnglishAndChinese(t *testing.T) {
	r := newRig(t)
	resp, err := http.Get(r.Srv.URL + "/static/board.js")
	mustNot(t, err)
	js, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	src := string(js)
	en, zh := src[strings.Index(src, "en: {"):strings.Index(src, "zh: {")], src[strings.Index(src, "zh: {"):]
	keys := func(block string) map[string]bool {
		out := map[string]bool{}
		for _, line := range strings.Split(block, "\n") {
			for _, part := range strings.Split(line, "', ") {
				part = strings.TrimSpace(part)
				if k, _, ok := strings.Cut(part, ": '"); ok && !strings.ContainsAny(k, " {(") {
					out[strings.Trim(k, "'")] = true
				}
			}
		}
		return out
	}
	ke, kz := keys(en), keys(zh[:strings.Index(zh, "\n    }\n")])
	if len(ke) < 50 {
		t.Fatalf("only %d English texts found", len(ke))
	}
	for k := range ke {
		if !kz[k] {
			t.Errorf("text %q has no Chinese", k)
		}
	}
	for k := range kz {
		if !ke[k] {
			t.Errorf("text %q has no English", k)
		}
	}
}

func TestMountedUnderAFolder(t *testing.T) {
	r := newRig(t)
	mux := http.NewServeMux()
	mux.Handle("/board/", http.StripPrefix("/board", r.Srv.Config.Handler))
	r.Put("docs", "# Docs\n- [ ] Outline\n")
	req := httptestRequest(t, mux, "/board/api/plans/docs")
	if req.Code != http.StatusOK || !strings.Contains(req.Body.String(), `"name":"docs"`) {
		t.Fatalf("%d %s", req.Code, req.Body)
	}
	exact := http.StripPrefix("/board", r.Srv.Config.Handler) // mounted at "/board" itself
	if rec := httptestRequest(t, exact, "/board?x=1"); rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/board/" {
		t.Fatalf("the folder without its slash: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	page := httptestRequest(t, mux, "/board/")
	if page.Code != http.StatusOK || !strings.Contains(page.Body.String(), "static/board.js") {
		t.Fatalf("page %d", page.Code)
	}
}

func TestStepsShowTheirTextWithoutTagsAndWhoHeldThem(t *testing.T) {
	r := newRig(t)
	r.Put("release", releasePlan)
	r.start("release", 2, "worker-1")
	ctx := context.Background()
	_, _, err := r.Store.MoveStep(ctx, plan.StepMove{Name: "release", Step: 2, State: plan.StepCompleted, By: "worker-1"})
	mustNot(t, err)
	r.start("release", 3, "worker-2")
	_, _, err = r.Store.MoveStep(plan.WithActor(ctx, "alice"), plan.StepMove{Name: "release", Step: 3, State: plan.StepInProgress, By: "", Takeover: true})
	mustNot(t, err)
	var p struct {
		Steps []struct {
			Number int    `json:"number"`
			State  string `json:"state"`
			Text   string `json:"text"`
			Holder string `json:"holder"`
			By     string `json:"by"`
		} `json:"steps"`
	}
	if st := r.get("/api/plans/release", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	done, released := p.Steps[1], p.Steps[2]
	if done.State != "completed" || done.Text != "Run the checks" || done.By != "worker-1" || done.Holder != "" {
		t.Errorf("finished step %+v", done)
	}
	if released.State != "in_progress" || released.Text != "Tag and publish" || released.Holder != "" || released.By != "" {
		t.Errorf("released step %+v", released)
	}
}

// A step's "(uses …)" reaches the page as its uses: what the review dialog lists.
func TestStepsCarryTheToolsTheyMayUse(t *testing.T) {
	r := newRig(t)
	r.Put("deploy", "# Deploy\n- [ ] Fix a typo\n- [ ] Deploy (after 1) (uses deploy_prod, write_file)\n")
	var p struct {
		Steps []struct {
			Number int      `json:"number"`
			Uses   []string `json:"uses"`
		} `json:"steps"`
	}
	if st := r.get("/api/plans/deploy", &p); st != http.StatusOK {
		t.Fatalf("status %d", st)
	}
	if len(p.Steps) != 2 || p.Steps[0].Uses != nil || strings.Join(p.Steps[1].Uses, ",") != "deploy_prod,write_file" {
		t.Fatalf("steps %+v", p.Steps)
	}
}
