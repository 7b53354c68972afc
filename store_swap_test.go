package plan_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// alwaysLoses is a driver.Swapper whose compare-and-swap never wins (another machine always
// writes first).
type alwaysLoses struct{ *plan.MemoryBackend }

func (alwaysLoses) CompareAndSwap(context.Context, *driver.WriteRequest, *string) (bool, error) {
	return false, nil
}

// A write that keeps losing its compare-and-swap fails with a message that names the plan, in
// English and in Chinese.
func TestContentionErrorNamesThePlan(t *testing.T) {
	ctx := context.Background()
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		mw, err := plan.New(ctx, &plan.Config{Backend: alwaysLoses{plan.NewMemoryBackend()}, Language: lang})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(plantest.CallTool("write_plan", `{"name":"release","content":"- [ ] x\n"}`), plantest.Answer("ok"))
		results := toolResults(runAgent(t, model, mw))
		require.Len(t, results, 1)
		t.Log(results[0])
		assert.NotContains(t, results[0], `\"\"`, "the message names the plan")
		assert.Contains(t, results[0], "release")
	}
}

// landsThenFails: the first compare-and-swap lands, then "another machine" deletes the
// plan through a different storage value (no shared process lock, as across machines),
// and the transport reports an error, so the outcome is uncertain.
type landsThenFails struct {
	*plan.MemoryBackend
	calls   atomic.Int32
	between func()
}

func (b *landsThenFails) CompareAndSwap(ctx context.Context, req *driver.WriteRequest, old *string) (bool, error) {
	ok, err := b.MemoryBackend.CompareAndSwap(ctx, req, old)
	if b.calls.Add(1) == 1 && ok && err == nil {
		b.between()
		return false, errors.New("i/o timeout")
	}
	return ok, err
}

// A create whose outcome is uncertain (the swap landed, the transport reported an error) and
// whose plan another machine deleted meanwhile is never retried at a revision the tombstone
// already holds: revisions never repeat.
func TestUncertainCreateRetryNeverRepeatsARevision(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	other := storeOn(t, struct{ plan.Backend }{noUnwrap{mem}}, "") // another machine
	b := &landsThenFails{MemoryBackend: mem}
	b.between = func() {
		_, err := other.Delete(ctx, "release", ptrTo[int64](1))
		require.NoError(t, err)
	}
	s := storeOn(t, b, "")
	p, err := s.Put(ctx, plan.Update{Name: "release", Content: ptrTo("- [ ] second incarnation?\n"), IfRevision: ptrTo[int64](0)})
	if err == nil {
		assert.NotEqualValues(t, 1, p.Revision, "revision 1 was already used by the deleted plan (%q)", p.Content)
	} else {
		t.Log(err)
	}
}

// noUnwrap hides mem's identity and capabilities: a different storage value.
type noUnwrap struct{ b plan.Backend }

func (n noUnwrap) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return n.b.LsInfo(ctx, r)
}

func (n noUnwrap) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	return n.b.Read(ctx, r)
}

func (n noUnwrap) Write(ctx context.Context, r *driver.WriteRequest) error { return n.b.Write(ctx, r) }

func (n noUnwrap) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return n.b.Delete(ctx, r)
}
