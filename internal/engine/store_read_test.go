package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRememberedPlanIsWhatTheFileDecodesTo holds the decoded memo to DecodePlan after every
// kind of change (create, rewrite, status, claim with a lease, note, approval, a repaired
// file), so a read served from it is the read a decode would give.
func TestRememberedPlanIsWhatTheFileDecodesTo(t *testing.T) {
	ctx := document.WithActor(context.Background(), "worker")
	b := memfs.New()
	s := mustStore(t, StoreConfig{Backend: b, HoldTTL: time.Minute})
	body := "# Ship\n\n- [ ] build\n- [ ] test (after 1)\n- [ ] release (after 2)\n"
	rewrite := body + "- [ ] announce\n"
	check := func(step string) {
		t.Helper()
		raw, exists, err := s.readRaw(ctx, s.planPath("ship"))
		require.NoError(t, err)
		require.True(t, exists)
		want, err := document.DecodeSealed("ship", raw)
		require.NoError(t, err, step)
		s.decoded.mu.Lock()
		f := s.decoded.files["ship"]
		s.decoded.mu.Unlock()
		require.NotNil(t, f, step)
		require.Equal(t, raw, f.raw, step)
		require.Equal(t, *want, *f.plan, step)
		got, err := s.Get(ctx, "ship")
		require.NoError(t, err, step)
		s.checkApprovalSeal(ctx, want)
		require.Equal(t, *want, *got, step)
	}
	_, err := s.Put(ctx, Update{Name: "ship", Content: &body, Author: "lead"})
	require.NoError(t, err)
	check("create")
	_, err = s.SetStatus(ctx, "ship", "in-progress", nil)
	require.NoError(t, err)
	check("status")
	_, _, err = s.MoveStep(ctx, StepMove{Name: "ship", State: document.StepInProgress})
	require.NoError(t, err)
	check("claim with a lease")
	_, _, err = s.MoveStep(ctx, StepMove{Name: "ship", Step: 1, State: document.StepCompleted, Note: "green"})
	require.NoError(t, err)
	check("complete with a note")
	p, err := s.Approve(ctx, "ship", 4, "reviewer")
	require.NoError(t, err)
	check("approve")
	_, err = s.Put(ctx, Update{Name: "ship", Content: &rewrite, IfRevision: &p.Revision})
	require.NoError(t, err)
	check("rewrite revokes")
	raw, _, err := s.readRaw(ctx, s.planPath("ship"))
	require.NoError(t, err)
	require.NoError(t, b.Write(ctx, &driver.WriteRequest{FilePath: s.planPath("ship"), Content: raw + "\xff\n"}))
	got, err := s.Get(ctx, "ship")
	require.NoError(t, err)
	require.True(t, got.Repaired)
	_, err = s.SetStatus(ctx, "ship", "done", nil)
	require.NoError(t, err)
	check("write after a repair")
	got.Title = "changed by the caller"
	again, err := s.Get(ctx, "ship")
	require.NoError(t, err)
	require.Equal(t, "Ship", again.Title, "a caller's change to a returned Plan never reaches the memo")
}

// Past its limit the memo forgets one plan at random for each new one, so a Store that goes
// round twice as many plans as it keeps still finds a share of them decoded (a memo that
// started over found none), and it never holds more than the limit.
func TestMemoPastItsLimitKeepsAShareOfThePlans(t *testing.T) {
	var m decodedMemo
	n := 2 * memoLimit
	for round := range 3 {
		hits := 0
		for i := range n {
			name := fmt.Sprint("plan-", i)
			m.mu.Lock()
			_, ok := m.files[name]
			m.mu.Unlock()
			if ok {
				hits++
			}
			m.remember(name, &decodedFile{raw: name})
		}
		require.LessOrEqual(t, len(m.files), memoLimit)
		if round > 0 {
			assert.Greater(t, hits, n/10, "round %d", round)
		}
	}
}

// The memo's bytes stay within memoMaxBytes whatever the plans weigh, its tally matches what
// it holds, and a file too big to keep also forgets the older file of its name (a stale one
// must never answer for it).
func TestMemoStaysWithinItsByteBound(t *testing.T) {
	var m decodedMemo
	body := strings.Repeat("x", memoMaxBytes/64)
	for i := range 200 {
		m.remember(fmt.Sprint("plan-", i), &decodedFile{raw: body[:len(body)-i]})
		require.LessOrEqual(t, m.bytes, memoMaxBytes)
	}
	sum := 0
	for _, f := range m.files {
		sum += len(f.raw)
	}
	require.Equal(t, sum, m.bytes)
	require.Greater(t, len(m.files), 50, "it fills up to its bound")

	m.remember("plan-199", &decodedFile{raw: body + "more"})
	_, kept := m.files["plan-199"]
	require.False(t, kept)
	require.Equal(t, sum-len(body)+199, m.bytes)
}
