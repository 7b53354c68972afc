package plan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/einoplan/plan/internal/tools"
)

// Exactly the allowed moves between step states pass; every other is illegal_transition naming
// both states.
func TestCheckTransitionMatrix(t *testing.T) {
	legal := map[[2]StepState]bool{
		{StepPending, StepInProgress}:   true,
		{StepPending, StepCompleted}:    true,
		{StepPending, StepFailed}:       true,
		{StepPending, StepSkipped}:      true,
		{StepInProgress, StepCompleted}: true,
		{StepInProgress, StepFailed}:    true,
	}
	states := []StepState{StepPending, StepInProgress, StepCompleted, StepFailed, StepSkipped}
	for _, from := range states {
		for _, to := range states {
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				err := document.CheckTransition(from, to)
				if legal[[2]StepState{from, to}] {
					assert.NoError(t, err)
					return
				}
				require.Error(t, err)
				assert.Equal(t, CodeIllegalTransition, CodeOf(err))
				msg := modelMessage(err)
				assert.Contains(t, msg, string(from))
				assert.Contains(t, msg, string(to))
				if from == to {
					assert.Contains(t, msg, "already "+string(from))
				} else {
					assert.Contains(t, msg, "rewrite the plan")
				}
			})
		}
	}
}

// modelMessage is what a model reads for err, in English.
func modelMessage(err error) string {
	return (&tools.ToolEnv{Texts: textsEN}).ErrorMessage(err.(*Error))
}

// An approval that edits the plan refuses a body whose prerequisites name a missing step or
// make a cycle, and writes nothing.
func TestAnEditedApprovalIsCheckedForItsPrerequisites(t *testing.T) {
	s, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	body := "- [ ] a\n- [ ] b (after 1)\n"
	if _, err := s.Put(ctx, Update{Name: "p", Content: &body}); err != nil {
		t.Fatal(err)
	}
	for _, edited := range []string{"- [ ] a (after 2)\n- [ ] b (after 1)\n", "- [ ] a\n- [ ] b (after 3)\n"} {
		_, err := s.e.ApproveContent(ctx, "p", 1, edited, "ana")
		if CodeOf(err) != CodeInvalidArgument {
			t.Fatalf("approval of %q: %v, want invalid_argument", edited, err)
		}
	}
	p, err := s.Get(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if p.Revision != 1 || p.Content != body || p.Approval != nil {
		t.Fatalf("revision %d, approved %v, content %q: something was written", p.Revision, p.Approval, p.Content)
	}
}

// plansOnDisk is a project folder with main.go and a LocalBackend at <project>/.plans
// holding one plan.
func plansOnDisk(t *testing.T) (project, root string) {
	t.Helper()
	project = t.TempDir()
	root = filepath.Join(project, ".plans")
	s := storeOf(t, StoreConfig{Backend: newLocalBackend(t, root)})
	_, err := s.Put(t.Context(), Update{Name: "deploy", Content: ptrTo("# Deploy\n- [ ] Ship\n")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o600))
	return project, root
}

// newLocalBackend is a LocalBackend at root, closed with the test.
func newLocalBackend(t *testing.T, root string) *LocalBackend {
	t.Helper()
	backend, err := NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	return backend
}

// callArgs is the JSON object of a tool call's arguments, given as key, value, ....
func callArgs(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// TestTheKeyPathIsBesideThePlansFolder: the key file is never inside the plans folder it
// seals, except where the folder is the whole storage.
func TestTheKeyPathIsBesideThePlansFolder(t *testing.T) {
	assert.Equal(t, "/.plans.approval-key", engine.ApprovalKeyPath("/plans"))
	assert.Equal(t, "/team/.plans.approval-key", engine.ApprovalKeyPath("/team/plans"))
	assert.Equal(t, "/.approval-key", engine.ApprovalKeyPath("/"))
}

// TestTheGuardWrapsEveryKindOfToolCall: a refused call never reaches the tool, whether it
// is invokable, streamable or enhanced; a glob that needs entries left out runs and is
// rewritten where its result is one string, and is refused where it is not.
func TestTheGuardWrapsEveryKindOfToolCall(t *testing.T) {
	ctx := context.Background()
	project, root := plansOnDisk(t)
	m, err := New(ctx, &Config{Backend: newLocalBackend(t, root), Language: adk.LanguageChinese})
	require.NoError(t, err)
	keyArgs := callArgs("file_path", filepath.Join(root, ".plans.approval-key"))
	ran := 0

	inv, err := m.WrapInvokableToolCall(ctx, func(context.Context, string, ...tool.Option) (string, error) {
		ran++
		return ".plans/plans/deploy.md\nmain.go", nil
	}, &adk.ToolContext{Name: "read_file"})
	require.NoError(t, err)
	out, err := inv(ctx, keyArgs)
	require.NoError(t, err)
	assert.Contains(t, out, `"invalid_argument"`)
	assert.Contains(t, out, "文件工具不能读取", "the refusal is in the model's language")

	glob, err := m.WrapInvokableToolCall(ctx, func(context.Context, string, ...tool.Option) (string, error) {
		ran++
		return ".plans/plans/deploy.md\nmain.go", nil
	}, &adk.ToolContext{Name: "glob"})
	require.NoError(t, err)
	out, err = glob(ctx, callArgs("pattern", "**", "path", project))
	require.NoError(t, err)
	assert.Equal(t, "main.go", out)
	assert.Equal(t, 1, ran, "only the glob ran")

	stream, err := m.WrapStreamableToolCall(ctx, func(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
		ran++
		return schema.StreamReaderFromArray([]string{"x"}), nil
	}, &adk.ToolContext{Name: "glob"})
	require.NoError(t, err)
	sr, err := stream(ctx, callArgs("pattern", "**", "path", project))
	require.NoError(t, err)
	chunk, err := sr.Recv()
	require.NoError(t, err)
	assert.Contains(t, chunk, `"invalid_argument"`)

	enhanced, err := m.WrapEnhancedInvokableToolCall(ctx, func(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.ToolResult, error) {
		ran++
		return &schema.ToolResult{}, nil
	}, &adk.ToolContext{Name: "read_file"})
	require.NoError(t, err)
	res, err := enhanced(ctx, &schema.ToolArgument{Text: keyArgs})
	require.NoError(t, err)
	require.Len(t, res.Parts, 1)
	assert.Contains(t, res.Parts[0].Text, `"invalid_argument"`)

	enhancedStream, err := m.WrapEnhancedStreamableToolCall(ctx, func(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
		ran++
		return schema.StreamReaderFromArray([]*schema.ToolResult{{}}), nil
	}, &adk.ToolContext{Name: "write_file"})
	require.NoError(t, err)
	rs, err := enhancedStream(ctx, &schema.ToolArgument{Text: callArgs("file_path", filepath.Join(root, "plans", "deploy.md"))})
	require.NoError(t, err)
	r, err := rs.Recv()
	require.NoError(t, err)
	require.Len(t, r.Parts, 1)
	assert.Contains(t, r.Parts[0].Text, `"invalid_argument"`)
	assert.Equal(t, 1, ran, "no refused call ran")
}

// TestConfigStoreRefusesWhatItWouldIgnore: the middleware works on the Store it is given,
// with that Store's key, and refuses Backend or BaseDir beside it rather than ignore them.
func TestConfigStoreRefusesWhatItWouldIgnore(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("h", 32))
	keyed := &Config{Store: storeOf(t, StoreConfig{Backend: NewMemoryBackend(), ApprovalKey: key})}
	_, err := New(ctx, keyed)
	require.NoError(t, err)
	store, err := storeFor(keyed) // what New hands the middleware
	require.NoError(t, err)
	assert.Same(t, keyed.Store.e, store)
	assert.Equal(t, key, store.GivenKey)
	s := storeOf(t, StoreConfig{Backend: NewMemoryBackend()})
	for _, cfg := range []*Config{{Store: s, Backend: NewMemoryBackend()}, {Store: s, BaseDir: "/other"}} {
		_, err = New(ctx, cfg)
		assert.ErrorContains(t, err, "Config.Store is set")
	}
}

// storeOf is a Store made from cfg.
func storeOf(t testing.TB, cfg StoreConfig) *Store {
	t.Helper()
	s, err := NewStore(&cfg)
	require.NoError(t, err)
	return s
}

// toolFuzzCap is the content cap of the fuzzed tools, small enough for too_large to be
// reachable from short inputs.
const toolFuzzCap = 512

// toolFuzzFixture is one middleware's tools on a MemoryBackend and a MemoryBackend
// workspace. Every call starts from the same files: reset puts them back.
type toolFuzzFixture struct {
	ctx       context.Context
	backend   *MemoryBackend
	workspace *MemoryBackend
	baseline  memfs.Snapshot
	wsBase    memfs.Snapshot
	names     []string
	tools     map[string]tool.InvokableTool
	template  string
}

// The fixture is built once per fuzzing process: every Store on a new Backend registers
// shared state for the life of the process, so a fresh backend per input would grow
// without bound over millions of inputs.
var toolFuzz *toolFuzzFixture

func newToolFuzzFixture(t testing.TB) *toolFuzzFixture {
	if toolFuzz != nil {
		return toolFuzz
	}
	ctx := context.Background()
	fx := &toolFuzzFixture{backend: NewMemoryBackend(), workspace: NewMemoryBackend(), tools: map[string]tool.InvokableTool{}}
	s, err := NewStore(&StoreConfig{Backend: fx.backend, MaxContentBytes: toolFuzzCap})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []Update{
		{Name: "alpha", Content: ptrTo("# Alpha\n- [ ] one\n- [~] two\n  - [x] two.a\n")},
		{Name: "alpha", Status: "in-progress"},
		{Name: "beta", Content: ptrTo("plain text, no steps\n"), Title: "Beta"},
		{Name: "gone", Content: ptrTo("soon deleted")},
		{Name: "gone", Content: ptrTo("deleted at revision 2")},
	} {
		if _, err := s.Put(ctx, u); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Delete(ctx, "gone", nil); err != nil {
		t.Fatal(err)
	}
	ws := func(p, content string) {
		if err := fx.workspace.Write(ctx, &driver.WriteRequest{FilePath: p, Content: content}); err != nil {
			t.Fatal(err)
		}
	}
	ws("/work/a.md", "# From file\n- [ ] edited\n")
	ws("/work/big.md", strings.Repeat("x", toolFuzzCap+1))
	ws("/work/empty.md", " \n")
	if err := fx.backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/broken.md", Content: "not a plan"}); err != nil {
		t.Fatal(err)
	}
	fx.baseline = fx.backend.Snapshot()
	fx.wsBase = fx.workspace.Snapshot()

	mw, err := New(ctx, &Config{Store: storeOf(t, StoreConfig{Backend: fx.backend, MaxContentBytes: toolFuzzCap}), Workspace: fx.workspace, AgentName: "fuzz"})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{Instruction: "base"})
	if err != nil {
		t.Fatal(err)
	}
	fx.ctx = runCtx
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fx.tools[info.Name] = bt.(tool.InvokableTool)
		fx.names = append(fx.names, info.Name)
	}
	sort.Strings(fx.names)
	if len(fx.names) != len(tools.ToolSpecs())-1 { // all but request_plan_approval (RequireApproval)
		t.Fatalf("BeforeAgent added %v", fx.names)
	}
	fx.template = strings.TrimRight(textsEN["template"], "\n")
	toolFuzz = fx
	return fx
}

func ptrTo[T any](v T) *T { return &v }

func (fx *toolFuzzFixture) reset() {
	fx.backend.Restore(fx.baseline)
	fx.workspace.Restore(fx.wsBase)
}

// snapshotFiles reads every file under dir through LsInfo and Read.
func snapshotFiles(t testing.TB, ctx context.Context, b Backend, dir string, into map[string]string) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	infos, err := b.LsInfo(ctx, &driver.LsInfoRequest{Path: dir})
	if err != nil {
		t.Fatalf("LsInfo(%s): %v", dir, err)
	}
	for _, fi := range infos {
		p := path.Join(dir, path.Base(fi.Path))
		if fi.IsDir {
			snapshotFiles(t, ctx, b, p, into)
			continue
		}
		fc, err := b.Read(ctx, &driver.ReadRequest{FilePath: p})
		if err != nil {
			t.Fatalf("Read(%s): %v", p, err)
		}
		into[p] = fc.Content
	}
	return into
}

func (fx *toolFuzzFixture) snapshot(t testing.TB) (map[string]string, map[string]string) {
	return snapshotFiles(t, fx.ctx, fx.backend, "/", nil), snapshotFiles(t, fx.ctx, fx.workspace, "/", nil)
}

var knownCodes = map[Code]bool{
	CodeInvalidArgument: true, CodeNotFound: true, CodeRevisionConflict: true, CodeTooLarge: true,
	CodeCorrupt: true, CodeToolNotAvailable: true, CodeIllegalTransition: true,
}

// FuzzToolArguments sends the same arbitrary bytes as arguments to every tool. A call never
// fails the run or panics, its result is a JSON object (plan_template: its text), an error
// result carries a known code and a message, and a failed call changes no file.
func FuzzToolArguments(f *testing.F) {
	f.Add(`{"name":"alpha","content":"# A\n- [ ] x\n","step":1,"status":"completed","path":"/work/a.md","goal":"ship","last_known_revision":2}`)
	f.Add(`{"name":"gone","last_known_revision":2,"content":"back"}`)
	f.Add(`{"name":"../plans/alpha","path":"../../etc/passwd"}`)
	f.Add(`{"name":"alpha","since_revision":1}`)
	f.Add(`{"name":"alpha","since_revision":-3}`)
	f.Fuzz(func(t *testing.T, arguments string) {
		fx := newToolFuzzFixture(t)
		for _, name := range fx.names {
			fx.reset()
			plansBefore, wsBefore := fx.snapshot(t)
			result, err := fx.tools[name].InvokableRun(fx.ctx, arguments)
			if err != nil {
				t.Fatalf("%s(%q) returned a Go error: %v", name, arguments, err)
			}
			failed := checkToolResult(t, fx, name, arguments, result)
			plansAfter, wsAfter := fx.snapshot(t)
			if failed {
				if !maps.Equal(plansBefore, plansAfter) {
					t.Fatalf("%s(%q) failed with %s but changed the plans:\nbefore %q\nafter  %q", name, arguments, result, plansBefore, plansAfter)
				}
				if !maps.Equal(wsBefore, wsAfter) {
					t.Fatalf("%s(%q) failed with %s but changed the workspace:\nbefore %q\nafter  %q", name, arguments, result, wsBefore, wsAfter)
				}
			}
			for p, content := range plansAfter {
				if strings.HasPrefix(p, "/plans/.deleted/") || p == "/plans/broken.md" {
					continue
				}
				if rest, ok := strings.CutPrefix(p, "/plans/.history/"); ok {
					rev, sum, ok := strings.Cut(path.Base(rest), ".")
					kept, err := document.DecodePlan("entry", content)
					if !ok || err != nil || strconv.FormatInt(kept.Revision, 10) != rev || entrySum(content) != sum || path.Dir(rest) == "." {
						t.Fatalf("%s(%q) left %s, not a history entry", name, arguments, p)
					}
					continue
				}
				if !strings.HasPrefix(p, "/plans/") || !strings.HasSuffix(p, ".md") {
					t.Fatalf("%s(%q) left a file at %s", name, arguments, p)
				}
				if _, err := document.DecodePlan(strings.TrimSuffix(path.Base(p), ".md"), content); err != nil {
					t.Fatalf("%s(%q) left %s undecodable: %v", name, arguments, p, err)
				}
			}
		}
	})
}

// entrySum is the SHA-256 of a history entry, in hex, as its file name carries it.
func entrySum(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:])
}

// checkToolResult checks the shape of one result and reports whether it is an error.
func checkToolResult(t *testing.T, fx *toolFuzzFixture, name, arguments, result string) bool {
	t.Helper()
	if name == ToolPlanTemplate && strings.HasPrefix(result, fx.template) {
		return false
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(result), &obj); err != nil || obj == nil {
		t.Fatalf("%s(%q) = %q is not a JSON object: %v", name, arguments, result, err)
	}
	raw, ok := obj["error"]
	if !ok {
		return false
	}
	var e tools.ErrorBody
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("%s(%q) error %s does not decode: %v", name, arguments, raw, err)
	}
	if !knownCodes[e.Code] || e.Message == "" || !utf8.ValidString(e.Message) || len(e.Message) > 2048 {
		t.Fatalf("%s(%q) = %s: unexpected code or message", name, arguments, result)
	}
	return true
}
