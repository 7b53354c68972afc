package plan_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

const hugeInput = 50 << 20

// hugePlanBody is about n bytes of Markdown whose JSON form needs escapes (newlines,
// quotes), so a decoder cannot hand out slices of the arguments as the string.
func hugePlanBody(n int) string {
	line := "- [ ] step with \"quotes\", ünïcödé and a tab\there\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// allocated runs f after a collection and returns the bytes allocated while it ran and
// the growth of the live heap it left behind.
func allocated(f func()) (total, live int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	total = int64(after.TotalAlloc - before.TotalAlloc)
	runtime.GC()
	runtime.ReadMemStats(&after)
	live = int64(after.HeapAlloc) - int64(before.HeapAlloc)
	return total, live
}

func TestOversizedArgumentsAreRefusedCheaply(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	args := `{"name":"huge","content":` + quote(hugePlanBody(hugeInput)) + `}`
	var out string
	total, live := allocated(func() {
		out, err = tools["write_plan"].InvokableRun(ctx, args)
	})
	require.NoError(t, err)
	assert.Equal(t, "too_large", errorCode(t, out), out)
	t.Logf("arguments %d MiB: allocated %.1f MiB, live heap growth %.1f MiB", len(args)>>20, float64(total)/(1<<20), float64(live)/(1<<20))
	// Arguments that cannot hold an acceptable plan are refused before decoding.
	assert.LessOrEqual(t, total, int64(1<<20), "allocations while refusing %d bytes of arguments", len(args))
	assert.LessOrEqual(t, live, int64(1<<20))
	_, err = backend.Read(ctx, &plan.ReadRequest{FilePath: "/plans/huge.md"})
	require.Error(t, err, "nothing was written")
	runtime.KeepAlive(args)
}

func TestArgumentBoundKeepsEveryAcceptableCall(t *testing.T) {
	const maxContent = 4 << 10
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, MaxContentBytes: maxContent})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	// The worst case for the bound: every byte of the largest body and of the largest
	// header fields escaped as \u00XX.
	control := func(n int) string { return strings.Repeat("\x01", n) }
	args := `{"name":"escaped","content":` + quote(control(maxContent)) + `,"title":` + quote(control(1024)) +
		`,"status":` + quote(control(1024)) + `,"author":` + quote(control(1024)) + `,"last_known_revision":0}`
	require.Greater(t, len(args), 6*maxContent+3*6*1024)
	out, err := tools["write_plan"].InvokableRun(ctx, args)
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), out)
	p, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	got, err := p.Get(ctx, "escaped")
	require.NoError(t, err)
	require.Equal(t, control(maxContent), got.Content)

	// Past the bound, even a call whose plan would fit is refused, and nothing is written.
	padding := strings.Repeat(" ", 6*maxContent+64<<10)
	out, err = tools["write_plan"].InvokableRun(ctx, `{"name":"padded","content":"x"}`+padding)
	require.NoError(t, err)
	require.Equal(t, "too_large", errorCode(t, out), out)
	_, err = p.Get(ctx, "padded")
	require.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	out, err = tools["write_plan"].InvokableRun(ctx, `{"name":"padded","content":"x"}`+padding[:len(padding)-len(`{"name":"padded","content":"x"}`)])
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), "exactly at the bound: %s", out)
}
