package plan_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

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
