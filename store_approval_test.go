package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

func approvedStore(t *testing.T, root string) (*plan.Store, *[]plan.Change) {
	t.Helper()
	var changes []plan.Change
	store, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root),
		OnChange: func(_ context.Context, c plan.Change) { changes = append(changes, c) }})
	require.NoError(t, err)
	body := approvalPlan
	_, err = store.Put(context.Background(), plan.Update{Name: "release", Content: &body})
	require.NoError(t, err)
	p, err := store.Approve(context.Background(), "release", 1, "ana")
	require.NoError(t, err)
	require.NotNil(t, p.Approval)
	return store, &changes
}

// Store.Approve records who approved which revision as a write, only for the revision the
// person saw, and refuses bad arguments; Revoke clears an approval as a write, and revoking
// what is not approved writes nothing.
func TestStoreApproveAndRevoke(t *testing.T) {
	ctx := context.Background()
	store, changes := approvedStore(t, t.TempDir())
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision, "an approval is a write")
	assert.Equal(t, approvalPlan, p.Content)
	assert.EqualValues(t, 1, p.Approval.Revision)
	assert.WithinDuration(t, time.Now(), p.Approval.At, time.Minute)

	_, err = store.Approve(ctx, "release", 1, "bo")
	assert.Equal(t, plan.CodeRevisionConflict, plan.CodeOf(err), "only the revision the person saw")
	for _, bad := range []struct {
		name, by string
		rev      int64
		code     plan.Code
	}{
		{"release", "", 2, plan.CodeInvalidArgument},
		{"release", "  ", 2, plan.CodeInvalidArgument},
		{"release", strings.Repeat("b", 1025), 2, plan.CodeInvalidArgument},
		{"release", "bo", 0, plan.CodeInvalidArgument},
		{"ghost", "bo", 1, plan.CodeNotFound},
		{"Bad", "bo", 1, plan.CodeInvalidArgument},
	} {
		_, err = store.Approve(ctx, bad.name, bad.rev, bad.by)
		assert.Equal(t, bad.code, plan.CodeOf(err), "%+v", bad)
	}

	p, err = store.Revoke(ctx, "release")
	require.NoError(t, err)
	assert.Nil(t, p.Approval)
	assert.EqualValues(t, 3, p.Revision)
	p, err = store.Revoke(ctx, "release")
	require.NoError(t, err, "revoking what is not approved is a no-op")
	assert.EqualValues(t, 3, p.Revision, "and writes nothing")
	_, err = store.Revoke(ctx, "ghost")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))

	var actions []plan.Action
	for _, c := range *changes {
		actions = append(actions, c.Action)
	}
	assert.Equal(t, []plan.Action{plan.ActionWrite, plan.ActionApprove, plan.ActionRevoke}, actions)
}

// TestApprovalKeptAndRevoked: what keeps an approval and what revokes it.
func TestApprovalKeptAndRevoked(t *testing.T) {
	ctx := context.Background()
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		change func(s *plan.Store) error
		kept   bool
	}{
		{"step move with a note", func(s *plan.Store) error {
			_, _, err := s.MoveStep(ctx, plan.StepMove{Name: "release", Step: 1, State: plan.StepCompleted, Note: "see CHANGES.md"})
			return err
		}, true},
		{"status", func(s *plan.Store) error { _, err := s.SetStatus(ctx, "release", "in-progress", nil); return err }, true},
		{"title", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Title: "Release 2"})
			return err
		}, true},
		{"rewrite with markers only changed", func(s *plan.Store) error {
			// A rewrite is not a step move: marking "drop the database" pending again by
			// hand, say, must not keep an approval of it as skipped.
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str(strings.Replace(approvalPlan, "- [ ]", "- [X]", 1))})
			return err
		}, false},
		{"the same body again", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str(approvalPlan)})
			return err
		}, true},
		{"step added", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str(approvalRevised)})
			return err
		}, false},
		{"step reworded", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str(strings.Replace(approvalPlan, "changelog", "release notes", 1))})
			return err
		}, false},
		{"steps reordered", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str("# Release\n- [ ] Tag the release\n- [ ] Write the changelog\n")})
			return err
		}, false},
		{"step removed", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str("# Release\n- [ ] Write the changelog\n")})
			return err
		}, false},
		{"other text", func(s *plan.Store) error {
			_, err := s.Put(ctx, plan.Update{Name: "release", Content: str(approvalPlan + "\nRisks: none.\n")})
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			store, _ := approvedStore(t, root)
			require.NoError(t, tc.change(store))
			p, err := store.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, tc.kept, p.Approval != nil)
			// A fresh Store on the same folder reads the same.
			again, _ := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, root)})
			q, err := again.Get(ctx, "release")
			require.NoError(t, err)
			assert.Equal(t, tc.kept, q.Approval != nil)
			assert.Equal(t, tc.kept, plan.Summarize(q).Approval != nil)
		})
	}
}

// TestApprovalOnDisk: a plan file without approval lines (written before approvals
// existed) reads as not approved; a hand edit of the body, or of the approval lines, makes
// it not approved without making it unreadable, and so does a marker flipped by hand (which
// steps are done is part of what was approved).
func TestApprovalOnDisk(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	store, _ := approvedStore(t, root)
	file := filepath.Join(root, "plans", "release.md")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	approved := string(raw)
	require.Contains(t, approved, "approved_revision: 1\n")
	require.Contains(t, approved, "approved_hash: \"")

	old := "---\ntitle: \"Release\"\nstatus: \"draft\"\nauthor: \"\"\nrevision: 4\nupdated_at: \"2026-11-21T22:00:00Z\"\n---\n" + approvalPlan
	for label, tc := range map[string]struct {
		content string
		kept    bool
	}{
		"old file":           {old, false},
		"body edited":        {strings.Replace(approved, "Tag the release", "Tag and publish", 1), false},
		"marker flipped":     {strings.Replace(approved, "- [ ] Tag", "- [x] Tag", 1), false},
		"revision malformed": {strings.Replace(approved, "approved_revision: 1", "approved_revision: one", 1), false},
		"hash changed":       {strings.Replace(approved, "approved_hash: \"", "approved_hash: \"0", 1), false},
		"by not a string":    {strings.Replace(approved, "approved_by: \"ana\"", "approved_by: ana", 1), false},
		"time malformed":     {strings.Replace(approved, "approved_at: \"", "approved_at: \"x", 1), false},
		"hash missing": {strings.Join(slicesFilter(strings.SplitAfter(approved, "\n"), func(l string) bool {
			return !strings.HasPrefix(l, "approved_hash:")
		}), ""), false},
	} {
		require.NoError(t, os.WriteFile(file, []byte(tc.content), 0o644), label)
		p, err := store.Get(ctx, "release")
		require.NoError(t, err, label)
		assert.Equal(t, tc.kept, p.Approval != nil, label)
	}
}

func slicesFilter(in []string, keep func(string) bool) []string {
	var out []string
	for _, s := range in {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// TestApprovalGateIsAtomic: workers move steps through the gated tool while a person keeps
// revoking and re-approving. No step ever moves while the plan is not approved: every
// re-approval lands on the revision its revoke wrote, and every step revision follows an
// approved one.
func TestApprovalGateIsAtomic(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend, HistoryLimit: 5000, HistoryMaxBytes: 64 << 20})
	require.NoError(t, err)
	var body strings.Builder
	const steps = 40
	for i := 0; i < steps; i++ {
		body.WriteString("- [ ] step\n")
	}
	content := body.String()
	_, err = store.Put(ctx, plan.Update{Name: "race", Content: &content})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "race", 1, "ana")
	require.NoError(t, err)
	mw, err := plan.New(ctx, &plan.Config{Store: store, RequireApproval: true})
	require.NoError(t, err)
	runCtx, _, tools := beforeAgentTools(t, ctx, mw)

	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for n := 1 + w; n <= steps; {
				out, err := tools[plan.ToolUpdatePlanStep].InvokableRun(runCtx, `{"name":"race","step":`+strconv.Itoa(n)+`,"status":"completed"}`)
				if !assert.NoError(t, err) {
					return
				}
				if code := errorCode(t, out); code == "" {
					n += 4
				} else if !assert.Equal(t, "not_approved", code, out) {
					return
				}
			}
		}(w)
	}
	go func() { wg.Wait(); close(done) }()
	toggles := 0
	for running := true; running && toggles < 1500; toggles++ {
		select {
		case <-done:
			running = false
		default:
		}
		p, err := store.Revoke(ctx, "race")
		require.NoError(t, err)
		_, err = store.Approve(ctx, "race", p.Revision, "ana")
		require.NoError(t, err, "no step moved while the plan was not approved")
	}
	<-done
	p, err := store.Get(ctx, "race")
	require.NoError(t, err)
	require.Equal(t, steps, plan.Summarize(p).Progress.Completed)
	hist, err := store.History(ctx, "race")
	require.NoError(t, err)
	moves := 0
	for _, r := range hist {
		if r.Action != plan.ActionStep {
			continue
		}
		moves++
		before, err := store.GetRevision(ctx, "race", r.Revision-1)
		require.NoError(t, err)
		assert.NotNil(t, before.Approval, "revision %d moved a step of an unapproved plan", r.Revision)
	}
	assert.Equal(t, steps, moves)
	t.Logf("%d revoke/approve pairs during %d step moves", toggles, moves)
}

// The history names who approved, who revoked (WithActor) and who handed a step over.
func TestHistoryNamesApproverRevokerAndTakeover(t *testing.T) {
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), DefaultAuthor: "planner"})
	require.NoError(t, err)
	body := "# Ship\n- [ ] build\n"
	_, err = s.Put(ctx, plan.Update{Name: "ship", Content: &body})
	require.NoError(t, err)
	_, err = s.Approve(ctx, "ship", 1, "ana")
	require.NoError(t, err)
	_, _, err = s.MoveStep(ctx, plan.StepMove{Name: "ship", Step: 1, State: plan.StepInProgress, By: "worker-1"})
	require.NoError(t, err)
	_, _, err = s.MoveStep(plan.WithActor(ctx, "bob"), plan.StepMove{Name: "ship", Step: 1, State: plan.StepInProgress, By: "worker-2", Takeover: true})
	require.NoError(t, err)
	_, err = s.Revoke(plan.WithActor(ctx, "carl"), "ship")
	require.NoError(t, err)
	h, err := s.History(ctx, "ship")
	require.NoError(t, err)
	var who []string
	for _, r := range h {
		who = append(who, string(r.Action)+":"+r.Author)
	}
	assert.Equal(t, []string{"revoke:carl", "step:bob", "step:worker-1", "approve:ana", "write:planner"}, who)
}
