package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A plan not approved under RequireApproval cannot get its steps moved by a rewrite either;
// a rewrite that keeps them pending is still allowed.
func TestRegressGateCoversRewrites(t *testing.T) {
	r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{t.TempDir()})
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		writePlanCall("release", strings.ReplaceAll(approvalPlan, "- [ ]", "- [x]"), 1),
		writePlanCall("release", approvalPlan+"\nRisks: none.\n", 1),
		plantest.Answer("waiting"),
	)
	assert.Empty(t, r.start(r.runner(model)))
	assert.Equal(t, "not_approved", errorCode(t, resultAt(t, model, 2)), "marking steps done by rewriting")
	assert.Empty(t, errorCode(t, resultAt(t, model, 3)), "rewriting with steps pending")
	p := r.get("release")
	assert.Equal(t, 0, p.Summarize().Progress.Completed)
}

// WriteOnce never writes through a link: a hard link at an entry's path to a file outside
// the root is replaced, and the outside file keeps its bytes.
func TestRegressWriteOnceThroughHardLink(t *testing.T) {
	ctx := context.Background()
	root, outside := t.TempDir(), filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(outside, []byte("keep me"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans"), 0o755))
	require.NoError(t, os.Link(outside, filepath.Join(root, "plans", "e")))
	b := newLocal(t, root)
	require.NoError(t, b.WriteOnce(ctx, &plan.WriteRequest{FilePath: "/plans/e", Content: "entry"}))
	got, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "keep me", string(got))
	got, err = os.ReadFile(filepath.Join(root, "plans", "e"))
	require.NoError(t, err)
	assert.Equal(t, "entry", string(got))
}

// TakeOverStep with no holder releases the step, whoever the context says acts.
func TestRegressReleaseWithAnActor(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, By: "w1"})
	require.Nil(t, perr)
	_, step, err := s.TakeOverStep(plan.WithActor(context.Background(), "alice"), "team", 1, "")
	require.NoError(t, err)
	assert.Empty(t, step.Holder)
	assert.Equal(t, "design", step.Text)
}

// A note cannot make up a holder, and a step with no text of its own is held all the same.
func TestRegressHolderTags(t *testing.T) {
	s, _ := newTeamStore(t, plan.StoreConfig{})
	_, _, perr := move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)"})
	require.NotNil(t, perr)
	assert.Equal(t, "note_tag", perr.Reason)
	_, _, perr = move(t, s, plan.StepMove{Step: 1, State: plan.StepInProgress, Note: "ask (@boss)", By: "w1"})
	require.NotNil(t, perr, "not even before the mover's own tag, which a release takes away")
	assert.Equal(t, "note_tag", perr.Reason)

	bare := plan.ParseSteps("- [~] (@w1)\n")
	require.Len(t, bare, 1)
	assert.Equal(t, "w1", bare[0].Holder)
}

// The history names nobody for a change nobody named, and the right person otherwise.
func TestRegressHistoryCreditsOnlyWhoActed(t *testing.T) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(ctx, plan.Update{Name: "team", Content: &body, Author: "planner"})
	require.NoError(t, err)
	_, err = s.SetStatus(ctx, "team", "in-progress", nil)
	require.NoError(t, err)
	_, err = s.SetStatus(plan.WithActor(ctx, "ana"), "team", "blocked", nil)
	require.NoError(t, err)
	h, err := s.History(ctx, "team")
	require.NoError(t, err)
	require.Len(t, h, 3)
	assert.Equal(t, []string{"ana", "", "planner"}, []string{h[0].Author, h[1].Author, h[2].Author})
}

// OnChange runs outside the Store's locks after a delete too: it may write the same plan.
func TestRegressOnChangeAfterDeleteRunsUnlocked(t *testing.T) {
	ctx := context.Background()
	var s *plan.Store
	var written error
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), OnChange: func(ctx context.Context, c plan.Change) {
		if c.Action != plan.ActionDelete {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		body := "# Again\n- [ ] a\n"
		_, written = s.Put(wctx, plan.Update{Name: c.Name, Content: &body})
	}})
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(ctx, plan.Update{Name: "team", Content: &body})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "team", nil)
	require.NoError(t, err)
	assert.NoError(t, written, "the delete's OnChange re-created the plan")
}

// A resume replayed from the same checkpoint (a host retrying after a crash) reports the
// approval the first one recorded, instead of telling the model nothing was approved.
func TestRegressReplayedApprovalResume(t *testing.T) {
	for _, edited := range []bool{false, true} {
		dir := t.TempDir()
		r := newApprovalRig(t, plan.NewMemoryBackend(), dirCheckPoints{dir})
		model := plantest.NewScriptedModel(
			writePlanCall("release", approvalPlan, 0),
			plantest.CallTool("request_plan_approval", `{"name":"release"}`),
			plantest.Answer("approved"),
		)
		runner := r.runner(model)
		paused := r.start(runner)
		require.Len(t, paused, 1)
		saved, err := os.ReadFile(filepath.Join(dir, checkPointID))
		require.NoError(t, err)
		d := plan.ApprovalDecision{Approved: true, By: "ana"}
		if edited {
			body := approvalRevised
			d.Content = &body
		}
		assert.Empty(t, r.resume(runner, map[string]any{paused[0].id: d}))
		require.NoError(t, os.WriteFile(filepath.Join(dir, checkPointID), saved, 0o600))

		again := plantest.NewScriptedModel(plantest.Answer("approved")) // the run goes on after the tool
		replay := r.runner(again)
		assert.Empty(t, r.resume(replay, map[string]any{paused[0].id: d}))
		require.Len(t, again.Calls(), 1)
		res := lastToolResult(again.Calls()[0])
		assert.Empty(t, errorCode(t, res), "edited %v: %s", edited, res)
		assert.Contains(t, res, `"approved":true`)
	}
}
