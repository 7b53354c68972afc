package plan

import (
	"context"
	"encoding/json"
	"maps"
	"path"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/einoplan/plan/internal/tools"
)

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
					if !ok || err != nil || strconv.FormatInt(kept.Revision, 10) != rev || string(engine.AppendEntrySum(nil, content)) != sum || path.Dir(rest) == "." {
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
