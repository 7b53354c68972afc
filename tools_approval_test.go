package plan_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// dirCheckPoints keeps each checkpoint as a file, as a server keeps them across restarts.
type dirCheckPoints struct{ dir string }

func (d dirCheckPoints) Get(_ context.Context, id string) ([]byte, bool, error) {
	b, err := os.ReadFile(filepath.Join(d.dir, id))
	if os.IsNotExist(err) {
		return nil, false, nil
	}
	return b, err == nil, err
}

func (d dirCheckPoints) Set(_ context.Context, id string, cp []byte) error {
	return os.WriteFile(filepath.Join(d.dir, id), cp, 0o600)
}

const (
	approvalPlan    = "# Release\n- [ ] Write the changelog\n- [ ] Tag the release\n"
	approvalRevised = "# Release\n- [ ] Write the changelog\n- [ ] Tag the release\n- [ ] Roll back if the smoke test fails\n"
	checkPointID    = "release-run"
)

// approvalRig is one orchestrator on a real Runner with a CheckPointStore, its plans on
// backend, and what its runs reported.
type approvalRig struct {
	t       *testing.T
	ctx     context.Context
	backend plan.Backend
	cps     adk.CheckPointStore
	store   *plan.Store
	lang    adk.Language

	mu      sync.Mutex
	changes []plan.Change
}

func newApprovalRig(t *testing.T, backend plan.Backend, cps adk.CheckPointStore) *approvalRig {
	t.Helper()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: 20})
	require.NoError(t, err)
	return &approvalRig{t: t, ctx: context.Background(), backend: backend, cps: cps, store: store, lang: adk.LanguageEnglish}
}

// middleware is a fresh plan middleware of the rig's orchestrator.
func (r *approvalRig) middleware() adk.ChatModelAgentMiddleware {
	r.t.Helper()
	mw, err := plan.New(r.ctx, &plan.Config{Store: storeOf(r.t, plan.StoreConfig{Backend: r.backend, HistoryLimit: 20}),
		RequireApproval: true, AgentName: "planner", Language: r.lang, OnChange: func(_ context.Context, c plan.Change) {
			r.mu.Lock()
			r.changes = append(r.changes, c)
			r.mu.Unlock()
		}})
	require.NoError(r.t, err)
	return mw
}

// runner builds a fresh middleware, agent and Runner around model, as a restarted server would.
func (r *approvalRig) runner(model *plantest.ScriptedModel) *adk.Runner {
	r.t.Helper()
	agent, err := adk.NewChatModelAgent(r.ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{r.middleware()}})
	require.NoError(r.t, err)
	return adk.NewRunner(r.ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: r.cps})
}

// asked is one approval interrupt: the request a person sees and the ID to resume.
type asked struct {
	req plan.ApprovalRequest
	id  string
}

// untilPause drains a run and returns the approval requests it paused on (none when it ended).
func (r *approvalRig) untilPause(iter *adk.AsyncIterator[*adk.AgentEvent]) []asked {
	r.t.Helper()
	var out []asked
	for {
		ev, ok := iter.Next()
		if !ok {
			return out
		}
		require.NoError(r.t, ev.Err)
		if ev.Action == nil || ev.Action.Interrupted == nil {
			continue
		}
		for _, ic := range ev.Action.Interrupted.InterruptContexts {
			if req, ok := ic.Info.(plan.ApprovalRequest); ok && ic.IsRootCause {
				out = append(out, asked{req: req, id: ic.ID})
			}
		}
		require.NotEmpty(r.t, out, "the run paused for something else than an approval")
	}
}

func (r *approvalRig) start(runner *adk.Runner) []asked {
	return r.untilPause(runner.Query(r.ctx, "ship the release", adk.WithCheckPointID(checkPointID)))
}

func (r *approvalRig) resume(runner *adk.Runner, targets map[string]any) []asked {
	r.t.Helper()
	iter, err := runner.ResumeWithParams(r.ctx, checkPointID, &adk.ResumeParams{Targets: targets})
	require.NoError(r.t, err)
	return r.untilPause(iter)
}

func (r *approvalRig) get(name string) *plan.Plan {
	r.t.Helper()
	p, err := r.store.Get(r.ctx, name)
	require.NoError(r.t, err)
	return p
}

func (r *approvalRig) actions() []plan.Action {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []plan.Action
	for _, c := range r.changes {
		out = append(out, c.Action)
	}
	return out
}

// asking runs the rig's planner through writing approvalPlan and asking for its approval,
// then through turns once resumed; it returns the model, the Runner to resume and the one
// request the run paused on.
func (r *approvalRig) asking(turns ...plantest.Turn) (*plantest.ScriptedModel, *adk.Runner, asked) {
	r.t.Helper()
	model := plantest.NewScriptedModel(append([]plantest.Turn{writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`)}, turns...)...)
	runner := r.runner(model)
	paused := r.start(runner)
	require.Len(r.t, paused, 1)
	return model, runner, paused[0]
}

func writePlanCall(name, body string, rev int) plantest.Turn {
	return plantest.CallTool("write_plan", `{"name":"`+name+`","content":`+quote(body)+`,"last_known_revision":`+strconv.Itoa(rev)+`}`)
}

// resultAt is the last tool result the model saw in call i.
func resultAt(t *testing.T, m *plantest.ScriptedModel, i int) string {
	t.Helper()
	calls := m.Calls()
	require.Greater(t, len(calls), i, "model call %d was made", i)
	return lastToolResult(calls[i])
}

// request_plan_approval interrupts the run with the plan as the person sees it; nothing is
// approved while they look, and once they approve the result says who approved which revision
// and the steps can move.
func TestApprovalApproved(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release","message":"ready for review"}`),
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed","last_known_revision":3}`),
		plantest.Answer("changelog written"),
	)
	runner := r.runner(model)
	paused := r.start(runner)
	require.Len(t, paused, 1)
	assert.Equal(t, plan.ApprovalRequest{Name: "release", Revision: 2, Title: "Release", Content: approvalPlan,
		Message: "ready for review", Steps: plan.ParseSteps(approvalPlan)}, paused[0].req, "the person decides on the revision that says the run waits")
	require.Nil(t, r.get("release").Approval, "nothing is approved while the person looks")

	assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: plan.ApprovalDecision{Approved: true, By: "ana"}}))
	res := resultAt(t, model, 2)
	assert.Contains(t, res, `"approved":true`)
	assert.Contains(t, res, `"approval":{"revision":2,"by":"ana"`)
	assert.Empty(t, errorCode(t, resultAt(t, model, 3)), "the step moves once approved")

	p := r.get("release")
	require.NotNil(t, p.Approval)
	assert.Equal(t, int64(2), p.Approval.Revision)
	assert.Equal(t, "ana", p.Approval.By)
	assert.False(t, p.Approval.At.IsZero())
	assert.Nil(t, p.Waiting, "the decision ends the wait")
	assert.EqualValues(t, 4, p.Revision)
	assert.Equal(t, []plan.Action{plan.ActionWrite, "await", plan.ActionApprove, plan.ActionStep}, r.actions())
	hist, err := r.store.History(r.ctx, "release")
	require.NoError(t, err)
	require.Len(t, hist, 4)
	assert.Equal(t, plan.ActionApprove, hist[1].Action)
	assert.Equal(t, "ana", hist[1].Author, "the history names the person who approved, not the agent that asked")
}

// The approval request lists each step with the gated tools it may use, so a person
// approves exactly that: a step that names none may use none.
func TestTheApprovalRequestListsWhatEachStepMayUse(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	body := "# Release\n- [ ] Run the tests\n- [ ] Deploy to production (after 1) (uses deploy_prod)\n- [ ] Announce it (uses post_message, write_file)\n"
	model := plantest.NewScriptedModel(
		writePlanCall("release", body, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),
		plantest.Answer("waiting"),
	)
	paused := r.start(r.runner(model))
	require.Len(t, paused, 1)
	steps := paused[0].req.Steps
	require.Len(t, steps, 3)
	assert.Nil(t, steps[0].Uses)
	assert.Equal(t, "Deploy to production (after 1) (uses deploy_prod)", steps[1].Text)
	assert.Equal(t, []string{"deploy_prod"}, steps[1].Uses)
	assert.Equal(t, []int{1}, steps[1].After)
	assert.Equal(t, []string{"post_message", "write_file"}, steps[2].Uses)
}

// A rejection writes nothing and hands the person's feedback to the model, which revises the
// plan and asks again.
func TestApprovalRejectedThenRevisedAndApproved(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model, runner, first := r.asking(
		writePlanCall("release", approvalRevised, 3),
		plantest.CallTool("request_plan_approval", `{"name":"release","message":"added a rollback step"}`),
		plantest.Answer("approved"),
	)
	paused := r.resume(runner, map[string]any{first.id: plan.ApprovalDecision{By: "ana", Feedback: "add a rollback step"}})
	res := resultAt(t, model, 2)
	assert.Contains(t, res, `"approved":false`)
	assert.Contains(t, res, `"feedback":"add a rollback step"`)
	assert.Contains(t, res, "request_plan_approval", "the model is told what to do next")
	assert.Nil(t, r.get("release").Approval)
	assert.Equal(t, []plan.Action{plan.ActionWrite, "await", plan.ActionReject, plan.ActionWrite, "await"}, r.actions(), "a rejection is kept")
	hist, err := r.store.History(r.ctx, "release")
	require.NoError(t, err)
	require.Equal(t, plan.ActionReject, hist[2].Action)
	assert.Equal(t, "ana", hist[2].Author)
	assert.Equal(t, &api.Rejection{Revision: 2, By: "ana", At: hist[2].Rejection.At, Feedback: "add a rollback step"}, hist[2].Rejection)

	require.Len(t, paused, 1, "the revised plan is asked for again")
	assert.EqualValues(t, 5, paused[0].req.Revision)
	assert.Equal(t, approvalRevised, paused[0].req.Content)
	assert.Empty(t, paused[0].req.Diff, "no revision was approved before")
	assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: plan.ApprovalDecision{Approved: true, By: "ana"}}))
	p := r.get("release")
	require.NotNil(t, p.Approval)
	assert.EqualValues(t, 5, p.Approval.Revision)
	assert.Equal(t, approvalRevised, p.Content)
}

// The rejection result names the revision the person rejected and the plan's current one,
// which the reject wrote: a model that revises from "revision" writes without a conflict.
func TestARejectionResultNamesTheRevisionToReviseFrom(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	reviseFromResult := func(input []*schema.Message) *schema.Message {
		var res struct {
			Revision int `json:"revision"`
		}
		for i := len(input) - 1; i >= 0; i-- {
			if input[i].Role == schema.Tool {
				require.NoError(t, json.Unmarshal([]byte(input[i].Content), &res))
				break
			}
		}
		return writePlanCall("release", approvalRevised, res.Revision)(input)
	}
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),
		reviseFromResult,
		plantest.Answer("revised"),
	)
	runner := r.runner(model)
	paused := r.start(runner)
	require.Len(t, paused, 1)
	assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: plan.ApprovalDecision{By: "ana", Feedback: "add a rollback step"}}))
	res := resultAt(t, model, 2)
	assert.EqualValues(t, 2, resultField(t, res, "rejected_revision"), res)
	assert.EqualValues(t, 3, resultField(t, res, "revision"), "the reject wrote revision 3: %s", res)
	assert.Empty(t, errorCode(t, resultAt(t, model, 3)), "the model revises from the result's revision")
	assert.Equal(t, approvalRevised, r.get("release").Content)
}

// A person who edits the plan while approving approves the edited revision, and the model is
// told so.
func TestApprovalWithEditedBody(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model, runner, paused := r.asking(
		plantest.CallTool("update_plan_step", `{"name":"release","step":3,"status":"in_progress"}`),
		plantest.Answer("ok"),
	)
	edited := approvalRevised
	assert.Empty(t, r.resume(runner, map[string]any{paused.id: plan.ApprovalDecision{Approved: true, By: "ana",
		Content: &edited, Feedback: "I added the rollback step"}}))
	res := resultAt(t, model, 2)
	assert.Contains(t, res, `"revision":3`)
	assert.Contains(t, res, `"approval":{"revision":3,"by":"ana"`)
	assert.Contains(t, res, "I added the rollback step")
	assert.Empty(t, errorCode(t, resultAt(t, model, 3)), "the person's new step can start")
	p := r.get("release")
	require.NotNil(t, p.Approval)
	assert.EqualValues(t, 3, p.Approval.Revision, "the edited revision is the approved one")
	assert.EqualValues(t, 4, p.Revision)
	assert.Equal(t, strings.Replace(approvalRevised, "- [ ] Roll back if the smoke test fails", "- [~] Roll back if the smoke test fails (@planner)", 1), p.Content)
}

// An approval of a revision that changed while the person looked is a revision_conflict
// telling the model to ask again, in the run's language.
func TestApprovalPlanChangedWhileWaiting(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
		r.lang = lang
		model, runner, paused := r.asking(plantest.Answer("will ask again"))
		body := approvalRevised
		_, err := r.store.Put(r.ctx, plan.Update{Name: "release", Content: &body}) // a teammate's edit
		require.NoError(t, err)
		assert.Empty(t, r.resume(runner, map[string]any{paused.id: plan.ApprovalDecision{Approved: true, By: "ana"}}))
		res := resultAt(t, model, 2)
		assert.Equal(t, "revision_conflict", errorCode(t, res))
		assert.Contains(t, res, "request_plan_approval")
		assert.Contains(t, res, `"current_revision":3`)
		assert.Equal(t, lang == adk.LanguageChinese, hasHan(res), res)
		_, msg := errorMessage(t, res)
		n, words := englishRun(msg)
		assert.Equal(t, lang == adk.LanguageEnglish, n >= 2, "English %q in %s", words, msg)
		p := r.get("release")
		assert.Nil(t, p.Approval, "what the person did not see is not approved")
		assert.EqualValues(t, 3, p.Revision)
	}
}

// TestApprovalNeedsADecision: a resume with no data, with data of another type, or aimed
// at another interrupt never approves; a pointer to a decision does.
func TestApprovalNeedsADecision(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	r.lang = adk.LanguageChinese
	ask := plantest.CallTool("request_plan_approval", `{"name":"alpha"}`)
	model := plantest.NewScriptedModel(
		writePlanCall("alpha", approvalPlan, 0),
		writePlanCall("beta", approvalPlan, 0),
		ask,
		ask,
		ask,
		plantest.CallTools(plantest.ToolCall{Name: "request_plan_approval", Arguments: `{"name":"alpha"}`},
			plantest.ToolCall{Name: "request_plan_approval", Arguments: `{"name":"beta"}`}),
		plantest.Answer("both approved"),
	)
	runner := r.runner(model)
	paused := r.start(runner)
	for i, data := range []any{nil, "yes", map[string]any{"ok": true}} {
		require.Len(t, paused, 1, "resume %d", i)
		paused = r.resume(runner, map[string]any{paused[0].id: data})
		res := resultAt(t, model, 3+i)
		assert.Equal(t, "not_approved", errorCode(t, res), "resume with %#v", data)
		_, msg := errorMessage(t, res)
		assert.True(t, hasHan(msg), msg)
		n, words := englishRun(msg)
		assert.Less(t, n, 2, "English %q in %s", words, msg)
		assert.Nil(t, r.get("alpha").Approval, "resume with %#v", data)
	}
	require.Len(t, paused, 2, "two requests at once")
	ids := map[string]string{}
	for _, a := range paused {
		ids[a.req.Name] = a.id
	}
	paused = r.resume(runner, map[string]any{ids["alpha"]: plan.ApprovalDecision{Approved: true, By: "ana"}})
	require.Len(t, paused, 1, "the request nobody answered is asked again")
	assert.Equal(t, "beta", paused[0].req.Name)
	assert.EqualValues(t, 2, paused[0].req.Revision)
	require.NotNil(t, r.get("alpha").Approval)
	require.Nil(t, r.get("beta").Approval)
	assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: &plan.ApprovalDecision{Approved: true}}))
	beta := r.get("beta").Approval
	require.NotNil(t, beta)
	assert.Equal(t, "person", beta.By, "a decision without a name is a person's")
}

// TestApprovalAfterRestart: the checkpoint is resumed by a new Runner, a new middleware and
// a fresh Store on a new LocalBackend over the same folder, as after a server restart, with
// the interrupt ID the plan's waiting mark keeps: the host kept nothing of its own.
func TestApprovalAfterRestart(t *testing.T) {
	root, cps := t.TempDir(), dirCheckPoints{t.TempDir()}
	before := newApprovalRig(t, newLocal(t, root), cps)
	_, _, paused := before.asking()

	after := newApprovalRig(t, newLocal(t, root), cps)
	waiting := after.get("release").Waiting
	require.NotNil(t, waiting)
	assert.Equal(t, paused.id, waiting.Interrupt, "the plan names the interrupt the run paused on")
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed","last_known_revision":3}`),
		plantest.Answer("done"),
	)
	assert.Empty(t, after.resume(after.runner(model), map[string]any{waiting.Interrupt: plan.ApprovalDecision{Approved: true, By: "ana"}}))
	assert.Contains(t, resultAt(t, model, 0), `"approved":true`)
	assert.Empty(t, errorCode(t, resultAt(t, model, 1)))
	p := after.get("release")
	require.NotNil(t, p.Approval)
	assert.Equal(t, "ana", p.Approval.By)
	assert.Equal(t, 1, plan.Summarize(p).Progress.Completed)
	raw, err := os.ReadFile(filepath.Join(root, "plans", "release.md"))
	require.NoError(t, err)
	assert.Contains(t, string(raw), "approved_revision: 2\napproved_by: \"ana\"\n")
}

// A person who decides while the host is down ends the wait; the host, restarted, finds the
// interrupt in the revision the decision names, which the Store keeps, and resumes the run.
func TestAHostResumesARunDecidedWhileItWasDown(t *testing.T) {
	root, cps := t.TempDir(), dirCheckPoints{t.TempDir()}
	before := newApprovalRig(t, newLocal(t, root), cps)
	paused := before.start(before.runner(plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),
	)))
	require.Len(t, paused, 1)
	_, err := before.store.Approve(before.ctx, "release", paused[0].req.Revision, "ana")
	require.NoError(t, err)

	after := newApprovalRig(t, newLocal(t, root), cps)
	p := after.get("release")
	require.Nil(t, p.Waiting, "the decision ended the wait")
	require.NotNil(t, p.Approval)
	asked, err := after.store.GetRevision(after.ctx, "release", p.Approval.Revision)
	require.NoError(t, err)
	require.NotNil(t, asked.Waiting)
	assert.Equal(t, paused[0].id, asked.Waiting.Interrupt)
	decision, err := after.store.WaitDecision(after.ctx, "release", asked.Waiting.Revision)
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.Answer("approved"))
	assert.Empty(t, after.resume(after.runner(model), map[string]any{asked.Waiting.Interrupt: decision}))
	res := resultAt(t, model, 0)
	assert.Contains(t, res, `"approved":true`)
	assert.Contains(t, res, `"by":"ana"`)
}

// TestApprovalWithEmptyEdit: an edited body the Store refuses approves nothing.
func TestApprovalWithEmptyEdit(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model, runner, paused := r.asking(plantest.Answer("stopped"))
	empty := " \n"
	assert.Empty(t, r.resume(runner, map[string]any{paused.id: plan.ApprovalDecision{Approved: true, By: "ana", Content: &empty}}))
	assert.Equal(t, "invalid_argument", errorCode(t, resultAt(t, model, 2)))
	p := r.get("release")
	assert.Nil(t, p.Approval)
	assert.EqualValues(t, 2, p.Revision)
}

// A resume replayed from the same checkpoint (a host retrying after a crash) reports the
// approval the first one recorded, instead of telling the model nothing was approved.
func TestReplayedApprovalResumeReportsTheRecordedApproval(t *testing.T) {
	for _, edited := range []bool{false, true} {
		dir := t.TempDir()
		r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{dir})
		_, runner, paused := r.asking(plantest.Answer("approved"))
		saved, err := os.ReadFile(filepath.Join(dir, checkPointID))
		require.NoError(t, err)
		d := plan.ApprovalDecision{Approved: true, By: "ana"}
		if edited {
			body := approvalRevised
			d.Content = &body
		}
		assert.Empty(t, r.resume(runner, map[string]any{paused.id: d}))
		require.NoError(t, os.WriteFile(filepath.Join(dir, checkPointID), saved, 0o600))

		again := plantest.NewScriptedModel(plantest.Answer("approved")) // the run goes on after the tool
		replay := r.runner(again)
		assert.Empty(t, r.resume(replay, map[string]any{paused.id: d}))
		require.Len(t, again.Calls(), 1)
		res := lastToolResult(again.Calls()[0])
		assert.Empty(t, errorCode(t, res), "edited %v: %s", edited, res)
		assert.Contains(t, res, `"approved":true`)
	}
}
