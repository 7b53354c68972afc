package plan_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

const hugeInput = 12 << 20

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

// Tool arguments too large to hold an acceptable plan are refused as too_large before they are
// decoded: refusing 50 MiB allocates a few MiB at most, and nothing is written.
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
	// (The bound leaves room for what the runtime and the test framework allocate meanwhile;
	// decoding the arguments would allocate over 50 MiB.)
	assert.LessOrEqual(t, total, int64(4<<20), "allocations while refusing %d bytes of arguments", len(args))
	assert.LessOrEqual(t, live, int64(2<<20))
	_, err = backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/huge.md"})
	require.Error(t, err, "nothing was written")
	runtime.KeepAlive(args)
}

// The bound on argument size never refuses an acceptable call, even one whose every byte is
// escaped; past the bound a call is refused whatever it holds, and nothing is written.
func TestArgumentBoundKeepsEveryAcceptableCall(t *testing.T) {
	const maxContent = 4 << 10
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: backend, MaxContentBytes: maxContent})})
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

// Arguments past the bound are told what limit they passed: the plan cap for write_plan,
// whose body is the only large thing a call holds, and the bound itself, with no advice
// about plans, for a tool that takes no body; in the model's language either way.
func TestOversizedArgumentsAreToldTheLimitTheyPassed(t *testing.T) {
	const maxContent = 2048
	bound := 6*maxContent + 64<<10
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		ctx := context.Background()
		mw, err := plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: plan.NewMemoryBackend(), MaxContentBytes: maxContent}), Language: lang})
		require.NoError(t, err)
		ctx, _, tools := beforeAgentTools(t, ctx, mw)
		huge := `{"name":"` + strings.Repeat("a", bound) + `"}`

		out, err := tools["read_plan"].InvokableRun(ctx, huge)
		require.NoError(t, err)
		require.Equal(t, "too_large", errorCode(t, out), out)
		assert.Contains(t, out, strconv.Itoa(bound), "lang %v: %s", lang, out)
		assert.NotContains(t, out, strconv.Itoa(maxContent)+" ", "lang %v: %s", lang, out)
		plans := map[adk.Language]string{adk.LanguageEnglish: "plan", adk.LanguageChinese: "计划"}[lang]
		assert.NotContains(t, out, plans, "lang %v: a call with no plan is told about plans: %s", lang, out)

		out, err = tools["write_plan"].InvokableRun(ctx, huge)
		require.NoError(t, err)
		require.Equal(t, "too_large", errorCode(t, out), out)
		assert.Contains(t, out, strconv.Itoa(maxContent), "lang %v: %s", lang, out)
	}
}

// writeHugeFile writes n bytes of Markdown to a new file at p, a chunk at a time.
func writeHugeFile(t *testing.T, p string, n int) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
	f, err := os.Create(p)
	require.NoError(t, err)
	chunk := hugePlanBody(1 << 20)
	for written := 0; written < n; written += len(chunk) {
		_, err = f.WriteString(chunk[:min(len(chunk), n-written)])
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
}

// TestOversizedFilesAreReadOnlyUpToTheCap: a 12 MiB workspace file given to
// update_plan_from_file, and a 12 MiB file in the plans folder, are refused as too_large
// after reading at most the cap and a byte (plus the header allowance for a plan file).
func TestOversizedFilesAreReadOnlyUpToTheCap(t *testing.T) {
	ctx := context.Background()
	storeRoot, wsRoot := t.TempDir(), t.TempDir()
	backend, ws := newLocal(t, storeRoot), newLocal(t, wsRoot)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	writeHugeFile(t, filepath.Join(wsRoot, "work", "huge.md"), hugeInput)
	writeHugeFile(t, filepath.Join(storeRoot, "plans", "huge.md"), hugeInput)

	for _, c := range []struct{ tool, args string }{
		{"update_plan_from_file", `{"name":"fresh","path":"/work/huge.md"}`},
		{"read_plan", `{"name":"huge"}`},
		{"get_plan_status", `{"name":"huge"}`},
		{"write_plan", `{"name":"huge","content":"x","last_known_revision":1}`},
		{"list_plans", `{}`},
	} {
		var out string
		total, live := allocated(func() {
			out, err = tools[c.tool].InvokableRun(ctx, c.args)
		})
		require.NoError(t, err)
		t.Logf("%s: allocated %.1f MiB, live heap growth %.1f MiB", c.tool, float64(total)/(1<<20), float64(live)/(1<<20))
		if c.tool == "list_plans" {
			assert.Contains(t, out, `"warnings":[{"name":"huge","code":"too_large"`, out)
		} else {
			assert.Equal(t, "too_large", errorCode(t, out), "%s: %s", c.tool, out)
		}
		// Reading cap+1 bytes and turning them into a string is 2 MiB; the rest is room
		// for what the runtime allocates meanwhile.
		assert.LessOrEqual(t, total, int64(6<<20), "%s read a 12 MiB file", c.tool)
		assert.LessOrEqual(t, live, int64(2<<20), c.tool)
	}
	_, err = os.Stat(filepath.Join(storeRoot, "plans", "fresh.md"))
	require.ErrorIs(t, err, os.ErrNotExist)

	// An unguarded delete still removes the oversized plan file.
	out, err := tools["delete_plan"].InvokableRun(ctx, `{"name":"huge"}`)
	require.NoError(t, err)
	require.Empty(t, errorCode(t, out), out)
	_, err = os.Stat(filepath.Join(storeRoot, "plans", "huge.md"))
	require.ErrorIs(t, err, os.ErrNotExist)
}
