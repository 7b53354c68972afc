package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// In Chinese mode an argument of the wrong type is reported with no English type name.
func TestChineseArgumentErrorsNameTypesInChinese(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Language: adk.LanguageChinese})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("read_plan", `{"name":5}`),
		plantest.CallTool("update_plan_step", `{"name":"p","step":"one","status":"completed"}`),
		plantest.Answer("ok"))
	for _, r := range toolResults(runAgent(t, model, mw)) {
		t.Log(r)
		assert.NotRegexp(t, `a number|a string|an array|an object|a boolean`, r, "no English in Chinese mode")
	}
}

// errMaxContent is the small body cap of the error tests, so too_large is cheap to reach.
const errMaxContent = 1024

// notWords are the ASCII tokens a message in any language may contain: tool names, field
// names, step states, codes and format names. They are identifiers, not English prose.
var notWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"write_plan", "read_plan", "list_plans", "delete_plan", "set_plan_status", "get_plan_status",
		"update_plan_step", "export_plan_to_file", "update_plan_from_file", "plan_template",
		"name", "content", "title", "author", "status", "step", "note", "last_known_revision", "path",
		"file_path", "goal", "limit", "cursor", "next_cursor",
		"pending", "in_progress", "completed", "failed", "skipped",
		"invalid_argument", "not_found", "revision_conflict", "too_large", "corrupt", "tool_not_available",
		"illegal_transition", "backend_error", "canceled", "unknown_outcome",
		"json", "utf", "revision",
	} {
		m[w] = true
	}
	return m
}()

// quotedRE matches a double-quoted value with Go or JSON escapes: a name, a path or a
// value the caller gave, which a message repeats as it is.
var quotedRE = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// englishRun returns the longest run of consecutive English words in msg. The message is cut
// into tokens at white space after quoted values are removed; a token is an English word when,
// without surrounding ASCII punctuation, it is made of ASCII letters only and is not one of
// notWords. Any other token (Chinese text, a number, an identifier, a path) ends a run. So a
// Chinese message that leaks even two English words in a row ("而不是 a number") has a run
// of 2, and an English message such as "name is required" has one of 2 or more.
func englishRun(msg string) (longest int, words string) {
	msg = quotedRE.ReplaceAllString(msg, " ")
	run, start := 0, 0
	tokens := strings.Fields(msg)
	for i, tok := range tokens {
		tok = strings.Trim(tok, ".,;:!?()[]{}'\"")
		isWord := tok != "" && !notWords[strings.ToLower(tok)]
		for _, r := range tok {
			if r > unicode.MaxASCII || !unicode.IsLetter(r) {
				isWord = false
				break
			}
		}
		if !isWord {
			run = 0
			continue
		}
		if run == 0 {
			start = i
		}
		run++
		if run > longest {
			longest, words = run, strings.Join(tokens[start:i+1], " ")
		}
	}
	return longest, words
}

// englishRun, which the Chinese checks rely on, counts the longest run of English words and
// ignores quoted values and identifiers in a Chinese message.
func TestEnglishRunDetectsEnglish(t *testing.T) {
	for msg, want := range map[string]int{
		"name is required":                       2,
		"缺少必填参数 name":                            0,
		`名称 "Bad Name Here" 无效`:                  0,
		"last_known_revision 必须是整数，而不是 a number": 2,
		"step 必须是从 1 开始的步骤编号；read_plan 会列出这些编号":    0,
		"the plan storage failed; try again later": 3,
	} {
		got, _ := englishRun(msg)
		assert.Equal(t, want, got, msg)
	}
}

// errorCase is one tool call that must fail with code.
type errorCase struct {
	label string
	tool  string
	args  string
	code  plan.Code
	env   string // "main" (default), "sub", "broken", "lost", "uncertain", "gated", "gatedsub"
	// canceled runs the call with a context that has already ended.
	canceled bool
}

// errorEnv is the tools of one middleware, and the context BeforeAgent returned for them.
type errorEnv struct {
	ctx   context.Context
	tools map[string]tool.InvokableTool
}

// failingBackend fails every operation: storage that is down.
type failingBackend struct{}

var errDown = errors.New("disk on fire")

func (failingBackend) LsInfo(context.Context, *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return nil, errDown
}
func (failingBackend) Read(context.Context, *driver.ReadRequest) (*driver.FileContent, error) {
	return nil, errDown
}
func (failingBackend) Write(context.Context, *driver.WriteRequest) error   { return errDown }
func (failingBackend) Delete(context.Context, *driver.DeleteRequest) error { return errDown }

// swapBackend is a MemoryBackend whose conditional writes never land: with swapErr nil they
// always lose the race, otherwise they fail in transit and leave the outcome open.
type swapBackend struct {
	mem     *plan.MemoryBackend
	swapErr error
}

func (b *swapBackend) LsInfo(ctx context.Context, r *driver.LsInfoRequest) ([]driver.FileInfo, error) {
	return b.mem.LsInfo(ctx, r)
}
func (b *swapBackend) Read(ctx context.Context, r *driver.ReadRequest) (*driver.FileContent, error) {
	return b.mem.Read(ctx, r)
}
func (b *swapBackend) Write(ctx context.Context, r *driver.WriteRequest) error {
	return b.mem.Write(ctx, r)
}
func (b *swapBackend) Delete(ctx context.Context, r *driver.DeleteRequest) error {
	return b.mem.Delete(ctx, r)
}
func (b *swapBackend) CompareAndSwap(context.Context, *driver.WriteRequest, *string) (bool, error) {
	return false, b.swapErr
}
func (b *swapBackend) CompareAndDelete(context.Context, *driver.DeleteRequest, string) (bool, error) {
	return false, b.swapErr
}

// errorFixture is the storage every error case runs on, in one language per middleware.
type errorFixture struct {
	local                      *plan.LocalBackend
	broken, lost, uncertain    plan.Backend
	brokenWS, lostWS, uncertWS driver.Workspace
}

// newErrorFixture prepares one LocalBackend, used as both the plans' Backend and the
// Workspace: plan "release" (revision 1; step 1 pending, 2 in progress, 3 completed, 4
// pending), a corrupt plan "broken", a folder "folder.md" in the plans folder, an oversized
// stored plan "huge", a plan "maxed" at the last revision, and workspace files.
func newErrorFixture(t *testing.T) *errorFixture {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	f := &errorFixture{local: newLocal(t, root)}
	store, err := plan.NewStore(&plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent})
	require.NoError(t, err)
	put := func(name, body string) {
		_, err := store.Put(ctx, plan.Update{Name: name, Content: &body})
		require.NoError(t, err)
	}
	move := func(m plan.StepMove) {
		_, _, err := store.MoveStep(ctx, m)
		require.NoError(t, err)
	}
	body := "# Release\n- [ ] tag\n- [~] build\n- [x] test\n- [ ] ship\n"
	team := "# Team\n- [ ] build\n- [ ] test\n"
	put("release", body)
	put("team", team)
	move(plan.StepMove{Name: "team", Step: 1, State: plan.StepInProgress, By: "w1"})
	move(plan.StepMove{Name: "team", Step: 2, State: plan.StepCompleted, By: "w2"})
	put("reordered", team)
	put("hosted", team)
	move(plan.StepMove{Name: "hosted", Step: 1, State: plan.StepCompleted}) // by nobody named
	put("finished", "# Done\n- [x] build\n")
	put("reordered", "# Team\n- [ ] test\n- [ ] build\n")
	write := func(p, content string) {
		require.NoError(t, f.local.Write(ctx, &driver.WriteRequest{FilePath: p, Content: content}))
	}
	write("/plans/broken.md", "nope, no header")
	write("/plans/huge.md", "---\nrevision: 1\n---\n"+strings.Repeat("x", errMaxContent+20<<10))
	write("/plans/maxed.md", document.EncodePlan(&plan.Plan{Title: "Maxed", Status: "draft", Revision: math.MaxInt64,
		UpdatedAt: time.Now(), Content: "- [ ] a\n"}))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans", "folder.md"), 0o755))
	write("/work/edit.md", "# Release\n- [ ] tag\n")
	write("/work/big.md", "# Big\n"+strings.Repeat("y", errMaxContent))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "work", "adir"), 0o755))
	_, err = store.Get(ctx, "folder")
	require.Equal(t, plan.CodeCorrupt, plan.CodeOf(err), "folder.md is the plans folder's entry: %v", err)

	f.broken = failingBackend{}
	lostMem, uncertMem := plan.NewMemoryBackend(), plan.NewMemoryBackend()
	for _, m := range []*plan.MemoryBackend{lostMem, uncertMem} {
		s := storeOn(t, m, "")
		_, err = s.Put(ctx, plan.Update{Name: "release", Content: &body})
		require.NoError(t, err)
	}
	f.lost = &swapBackend{mem: lostMem}
	f.uncertain = &swapBackend{mem: uncertMem, swapErr: errors.New("connection reset by peer")}
	ws := plan.NewMemoryBackend()
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/edit.md", Content: "# Release\n- [ ] tag\n"}))
	f.brokenWS, f.lostWS, f.uncertWS = ws, ws, ws
	return f
}

// envs returns the tools of each environment in lang.
func (f *errorFixture) envs(t *testing.T, lang adk.Language) map[string]errorEnv {
	t.Helper()
	out := map[string]errorEnv{}
	add := func(key string, cfg plan.Config) {
		cfg.Language = lang
		cfg.AgentName = "tester"
		mw, err := plan.New(context.Background(), &cfg)
		require.NoError(t, err)
		ctx, _, tools := beforeAgentTools(t, context.Background(), mw)
		out[key] = errorEnv{ctx: ctx, tools: tools}
	}
	add("main", plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent}), Workspace: f.local})
	add("sub", plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent}), Workspace: f.local, Role: plan.RoleSubAgent})
	add("broken", plan.Config{Backend: f.broken, Workspace: f.brokenWS})
	add("lost", plan.Config{Backend: f.lost, Workspace: f.lostWS})
	add("uncertain", plan.Config{Backend: f.uncertain, Workspace: f.uncertWS})
	add("gated", plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent}), RequireApproval: true})
	add("gatedsub", plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent}), RequireApproval: true, Role: plan.RoleSubAgent})
	return out
}

// errorCases lists, for every tool, a call producing each error the tool can produce.
func errorCases() []errorCase {
	long := func(n int) string { return strings.Repeat("a", n) }
	body := `"# T\n- [ ] a\n"`
	bigBody := quote("# Big\n" + strings.Repeat("z", errMaxContent))
	hugeArgs := `{"name":"release","content":` + body + `,"title":"` + long(80<<10) + `"}`
	cases := []errorCase{
		// write_plan
		{"not an object", "write_plan", `["release"]`, plan.CodeInvalidArgument, "", false},
		{"not JSON", "write_plan", `{"name":`, plan.CodeInvalidArgument, "", false},
		{"missing name", "write_plan", `{"content":` + body + `}`, plan.CodeInvalidArgument, "", false},
		{"empty name", "write_plan", `{"name":"","content":` + body + `}`, plan.CodeInvalidArgument, "", false},
		{"name not a string", "write_plan", `{"name":7,"content":` + body + `}`, plan.CodeInvalidArgument, "", false},
		{"bad name", "write_plan", `{"name":"Bad Name","content":` + body + `}`, plan.CodeInvalidArgument, "", false},
		{"name too long", "write_plan", `{"name":"` + long(65) + `","content":` + body + `}`, plan.CodeInvalidArgument, "", false},
		{"missing content", "write_plan", `{"name":"fresh"}`, plan.CodeInvalidArgument, "", false},
		{"empty content", "write_plan", `{"name":"fresh","content":""}`, plan.CodeInvalidArgument, "", false},
		{"blank content", "write_plan", `{"name":"fresh","content":"  \n"}`, plan.CodeInvalidArgument, "", false},
		{"content not a string", "write_plan", `{"name":"fresh","content":["a"]}`, plan.CodeInvalidArgument, "", false},
		{"title too long", "write_plan", `{"name":"fresh","content":` + body + `,"title":"` + long(1025) + `"}`, plan.CodeInvalidArgument, "", false},
		{"content not UTF-8", "write_plan", "{\"name\":\"fresh\",\"content\":\"a\xffb\"}", plan.CodeInvalidArgument, "", false},
		{"title not UTF-8", "write_plan", "{\"name\":\"fresh\",\"content\":" + body + ",\"title\":\"t\xc3\"}", plan.CodeInvalidArgument, "", false},
		{"status not UTF-8", "write_plan", "{\"name\":\"fresh\",\"content\":" + body + ",\"status\":\"\xfe\"}", plan.CodeInvalidArgument, "", false},
		{"author not UTF-8", "write_plan", "{\"name\":\"fresh\",\"content\":" + body + ",\"author\":\"\xed\xa0\x80\"}", plan.CodeInvalidArgument, "", false},
		{"revision not an integer", "write_plan", `{"name":"release","content":` + body + `,"last_known_revision":"one"}`, plan.CodeInvalidArgument, "", false},
		{"revision a fraction", "write_plan", `{"name":"release","content":` + body + `,"last_known_revision":1.5}`, plan.CodeInvalidArgument, "", false},
		{"negative revision", "write_plan", `{"name":"release","content":` + body + `,"last_known_revision":-1}`, plan.CodeInvalidArgument, "", false},
		{"stale revision", "write_plan", `{"name":"release","content":` + body + `,"last_known_revision":7}`, plan.CodeRevisionConflict, "", false},
		{"create-only on existing", "write_plan", `{"name":"release","content":` + body + `,"last_known_revision":0}`, plan.CodeRevisionConflict, "", false},
		{"guarded write of a missing plan", "write_plan", `{"name":"ghost","content":` + body + `,"last_known_revision":3}`, plan.CodeNotFound, "", false},
		{"content too large", "write_plan", `{"name":"fresh","content":` + bigBody + `}`, plan.CodeTooLarge, "", false},
		{"arguments too large", "write_plan", hugeArgs, plan.CodeTooLarge, "", false},
		{"corrupt stored plan", "write_plan", `{"name":"broken","content":` + body + `}`, plan.CodeCorrupt, "", false},
		{"stored entry not a plan file", "write_plan", `{"name":"folder","content":` + body + `}`, plan.CodeCorrupt, "", false},
		{"stored plan too large", "write_plan", `{"name":"huge","content":` + body + `}`, plan.CodeTooLarge, "", false},
		{"revision exhausted", "write_plan", `{"name":"maxed","content":` + body + `}`, plan.CodeCorrupt, "", false},
		{"canceled", "write_plan", `{"name":"fresh","content":` + body + `}`, plan.CodeCanceled, "", true},
		{"storage down", "write_plan", `{"name":"fresh","content":` + body + `}`, plan.CodeBackendError, "broken", false},
		{"contention", "write_plan", `{"name":"release","content":` + body + `}`, plan.CodeBackendError, "lost", false},
		{"unknown outcome", "write_plan", `{"name":"release","content":` + body + `}`, plan.CodeUnknownOutcome, "uncertain", false},

		// read_plan
		{"not JSON", "read_plan", `{"name"`, plan.CodeInvalidArgument, "", false},
		{"missing name", "read_plan", `{}`, plan.CodeInvalidArgument, "", false},
		{"name not a string", "read_plan", `{"name":true}`, plan.CodeInvalidArgument, "", false},
		{"bad name", "read_plan", `{"name":"../etc"}`, plan.CodeInvalidArgument, "", false},
		{"not found", "read_plan", `{"name":"ghost"}`, plan.CodeNotFound, "", false},
		{"corrupt", "read_plan", `{"name":"broken"}`, plan.CodeCorrupt, "", false},
		{"not a plan file", "read_plan", `{"name":"folder"}`, plan.CodeCorrupt, "", false},
		{"stored too large", "read_plan", `{"name":"huge"}`, plan.CodeTooLarge, "", false},
		{"canceled", "read_plan", `{"name":"release"}`, plan.CodeCanceled, "", true},
		{"storage down", "read_plan", `{"name":"release"}`, plan.CodeBackendError, "broken", false},

		// list_plans
		{"not an object", "list_plans", `42`, plan.CodeInvalidArgument, "", false},
		{"limit 0", "list_plans", `{"limit":0}`, plan.CodeInvalidArgument, "", false},
		{"limit 201", "list_plans", `{"limit":201}`, plan.CodeInvalidArgument, "", false},
		{"limit not an integer", "list_plans", `{"limit":"ten"}`, plan.CodeInvalidArgument, "", false},
		{"cursor not a string", "list_plans", `{"cursor":5}`, plan.CodeInvalidArgument, "", false},
		{"canceled", "list_plans", `{}`, plan.CodeCanceled, "", true},
		{"storage down", "list_plans", `{}`, plan.CodeBackendError, "broken", false},

		// delete_plan
		{"missing name", "delete_plan", `{}`, plan.CodeInvalidArgument, "", false},
		{"bad name", "delete_plan", `{"name":"A"}`, plan.CodeInvalidArgument, "", false},
		{"create-only revision", "delete_plan", `{"name":"release","last_known_revision":0}`, plan.CodeInvalidArgument, "", false},
		{"negative revision", "delete_plan", `{"name":"release","last_known_revision":-4}`, plan.CodeInvalidArgument, "", false},
		{"stale revision", "delete_plan", `{"name":"release","last_known_revision":9}`, plan.CodeRevisionConflict, "", false},
		{"not found", "delete_plan", `{"name":"ghost"}`, plan.CodeNotFound, "", false},
		{"guarded delete of a corrupt plan", "delete_plan", `{"name":"broken","last_known_revision":1}`, plan.CodeCorrupt, "", false},
		{"canceled", "delete_plan", `{"name":"release"}`, plan.CodeCanceled, "", true},
		{"storage down", "delete_plan", `{"name":"release"}`, plan.CodeBackendError, "broken", false},
		{"contention", "delete_plan", `{"name":"release"}`, plan.CodeBackendError, "lost", false},

		// set_plan_status
		{"missing status", "set_plan_status", `{"name":"release"}`, plan.CodeInvalidArgument, "", false},
		{"empty status", "set_plan_status", `{"name":"release","status":""}`, plan.CodeInvalidArgument, "", false},
		{"blank status", "set_plan_status", `{"name":"release","status":"   "}`, plan.CodeInvalidArgument, "", false},
		{"status too long", "set_plan_status", `{"name":"release","status":"` + long(1025) + `"}`, plan.CodeInvalidArgument, "", false},
		{"status not UTF-8", "set_plan_status", "{\"name\":\"release\",\"status\":\"ok\xff\"}", plan.CodeInvalidArgument, "", false},
		{"not found", "set_plan_status", `{"name":"ghost","status":"done"}`, plan.CodeNotFound, "", false},
		{"stale revision", "set_plan_status", `{"name":"release","status":"done","last_known_revision":2}`, plan.CodeRevisionConflict, "", false},
		{"corrupt", "set_plan_status", `{"name":"broken","status":"done"}`, plan.CodeCorrupt, "", false},
		{"canceled", "set_plan_status", `{"name":"release","status":"done"}`, plan.CodeCanceled, "", true},
		{"storage down", "set_plan_status", `{"name":"release","status":"done"}`, plan.CodeBackendError, "broken", false},

		// get_plan_status
		{"missing name", "get_plan_status", ``, plan.CodeInvalidArgument, "", false},
		{"bad name", "get_plan_status", `{"name":"-x"}`, plan.CodeInvalidArgument, "", false},
		{"not found", "get_plan_status", `{"name":"ghost"}`, plan.CodeNotFound, "", false},
		{"corrupt", "get_plan_status", `{"name":"broken"}`, plan.CodeCorrupt, "", false},
		{"canceled", "get_plan_status", `{"name":"release"}`, plan.CodeCanceled, "", true},
		{"storage down", "get_plan_status", `{"name":"release"}`, plan.CodeBackendError, "broken", false},

		// update_plan_step
		{"step not an integer", "update_plan_step", `{"name":"release","step":"one","status":"completed"}`, plan.CodeInvalidArgument, "", false},
		{"step 0", "update_plan_step", `{"name":"release","step":0,"status":"completed"}`, plan.CodeInvalidArgument, "", false},
		{"step out of range", "update_plan_step", `{"name":"release","step":99,"status":"completed"}`, plan.CodeInvalidArgument, "", false},
		{"unknown step state", "update_plan_step", `{"name":"release","step":1,"status":"bogus"}`, plan.CodeInvalidArgument, "", false},
		{"same state", "update_plan_step", `{"name":"release","step":1,"status":"pending"}`, plan.CodeIllegalTransition, "", false},
		{"in progress to skipped", "update_plan_step", `{"name":"release","step":2,"status":"skipped"}`, plan.CodeIllegalTransition, "", false},
		{"step changed by someone unnamed", "update_plan_step", `{"name":"hosted","step":1,"status":"skipped","last_known_revision":1}`, plan.CodeRevisionConflict, "", false},
		{"no step, not taking one", "update_plan_step", `{"name":"team","status":"completed"}`, plan.CodeInvalidArgument, "", false},
		{"no free step to take", "update_plan_step", `{"name":"finished","status":"in_progress"}`, plan.CodeIllegalTransition, "", false},
		{"step held by another agent", "update_plan_step", `{"name":"team","step":1,"status":"completed"}`, plan.CodeStepHeld, "", false},
		{"takeover not a boolean", "update_plan_step", `{"name":"team","step":1,"status":"completed","takeover":"yes"}`, plan.CodeInvalidArgument, "", false},
		{"step moved since the revision", "update_plan_step", `{"name":"team","step":2,"status":"skipped","last_known_revision":1}`, plan.CodeRevisionConflict, "", false},
		{"steps reordered since the revision", "update_plan_step", `{"name":"reordered","step":1,"status":"completed","last_known_revision":1}`, plan.CodeRevisionConflict, "", false},
		{"completed to pending", "update_plan_step", `{"name":"release","step":3,"status":"pending"}`, plan.CodeIllegalTransition, "", false},
		{"multi-line note", "update_plan_step", `{"name":"release","step":1,"status":"completed","note":"a\nb"}`, plan.CodeInvalidArgument, "", false},
		{"note too long", "update_plan_step", `{"name":"release","step":1,"status":"completed","note":"` + long(600) + `"}`, plan.CodeInvalidArgument, "", false},
		{"note not UTF-8", "update_plan_step", "{\"name\":\"release\",\"step\":1,\"status\":\"completed\",\"note\":\"\xc0\xaf\"}", plan.CodeInvalidArgument, "", false},
		{"not found", "update_plan_step", `{"name":"ghost","step":1,"status":"completed"}`, plan.CodeNotFound, "", false},
		{"stale revision", "update_plan_step", `{"name":"release","step":1,"status":"completed","last_known_revision":5}`, plan.CodeRevisionConflict, "", false},
		{"canceled", "update_plan_step", `{"name":"release","step":1,"status":"completed"}`, plan.CodeCanceled, "", true},
		{"storage down", "update_plan_step", `{"name":"release","step":1,"status":"completed"}`, plan.CodeBackendError, "broken", false},
		{"not approved", "update_plan_step", `{"name":"release","step":1,"status":"completed"}`, plan.CodeNotApproved, "gated", false},

		// export_plan_to_file
		{"missing path", "export_plan_to_file", `{"name":"release"}`, plan.CodeInvalidArgument, "", false},
		{"relative path", "export_plan_to_file", `{"name":"release","path":"work/x.md"}`, plan.CodeInvalidArgument, "", false},
		{"path with ..", "export_plan_to_file", `{"name":"release","path":"/work/../../etc/passwd"}`, plan.CodeInvalidArgument, "", false},
		{"path in the plans folder", "export_plan_to_file", `{"name":"release","path":"/plans/other.md"}`, plan.CodeInvalidArgument, "", false},
		{"path not usable", "export_plan_to_file", `{"name":"release","path":"/work/a\u0000b"}`, plan.CodeInvalidArgument, "", false},
		{"not found", "export_plan_to_file", `{"name":"ghost","path":"/work/ghost.md"}`, plan.CodeNotFound, "", false},
		{"workspace write fails", "export_plan_to_file", `{"name":"release","path":"/work/adir"}`, plan.CodeInvalidArgument, "", false},
		{"canceled", "export_plan_to_file", `{"name":"release","path":"/work/out.md"}`, plan.CodeCanceled, "", true},
		{"storage down", "export_plan_to_file", `{"name":"release","path":"/work/out.md"}`, plan.CodeBackendError, "broken", false},

		// update_plan_from_file
		{"bad name", "update_plan_from_file", `{"name":"R","path":"/work/edit.md"}`, plan.CodeInvalidArgument, "", false},
		{"missing workspace file", "update_plan_from_file", `{"name":"release","path":"/work/missing.md"}`, plan.CodeNotFound, "", false},
		{"workspace file too large", "update_plan_from_file", `{"name":"release","path":"/work/big.md"}`, plan.CodeTooLarge, "", false},
		{"workspace read fails", "update_plan_from_file", `{"name":"release","path":"/work/adir"}`, plan.CodeInvalidArgument, "", false},
		{"path in the plans folder", "update_plan_from_file", `{"name":"release","path":"/plans/release.md"}`, plan.CodeInvalidArgument, "", false},
		{"relative path", "update_plan_from_file", `{"name":"release","path":"edit.md"}`, plan.CodeInvalidArgument, "", false},
		{"title not UTF-8", "update_plan_from_file", "{\"name\":\"release\",\"path\":\"/work/edit.md\",\"title\":\"\xff\"}", plan.CodeInvalidArgument, "", false},
		{"stale revision", "update_plan_from_file", `{"name":"release","path":"/work/edit.md","last_known_revision":3}`, plan.CodeRevisionConflict, "", false},
		{"canceled", "update_plan_from_file", `{"name":"release","path":"/work/edit.md"}`, plan.CodeCanceled, "", true},
		{"storage down", "update_plan_from_file", `{"name":"release","path":"/work/edit.md"}`, plan.CodeBackendError, "broken", false},

		// plan_template
		{"missing goal", "plan_template", `{}`, plan.CodeInvalidArgument, "", false},
		{"empty goal", "plan_template", `{"goal":""}`, plan.CodeInvalidArgument, "", false},
		{"blank goal", "plan_template", `{"goal":"   "}`, plan.CodeInvalidArgument, "", false},
		{"goal too long", "plan_template", `{"goal":"` + long(5000) + `"}`, plan.CodeInvalidArgument, "", false},
		{"goal not UTF-8", "plan_template", "{\"goal\":\"\xff\"}", plan.CodeInvalidArgument, "", false},
		{"sub-agent", "plan_template", `{"goal":"ship"}`, plan.CodeToolNotAvailable, "sub", false},
		{"canceled", "plan_template", `{"goal":"ship"}`, plan.CodeCanceled, "", true},
		{"storage down", "plan_template", `{"goal":"ship"}`, plan.CodeBackendError, "broken", false},

		// request_plan_approval
		{"missing name", "request_plan_approval", `{}`, plan.CodeInvalidArgument, "gated", false},
		{"bad name", "request_plan_approval", `{"name":"Bad Name"}`, plan.CodeInvalidArgument, "gated", false},
		{"message not a string", "request_plan_approval", `{"name":"release","message":3}`, plan.CodeInvalidArgument, "gated", false},
		{"message too long", "request_plan_approval", `{"name":"release","message":"` + long(5000) + `"}`, plan.CodeInvalidArgument, "gated", false},
		{"message not UTF-8", "request_plan_approval", "{\"name\":\"release\",\"message\":\"\xff\"}", plan.CodeInvalidArgument, "gated", false},
		{"not found", "request_plan_approval", `{"name":"ghost"}`, plan.CodeNotFound, "gated", false},
		{"corrupt", "request_plan_approval", `{"name":"broken"}`, plan.CodeCorrupt, "gated", false},
		{"sub-agent", "request_plan_approval", `{"name":"release"}`, plan.CodeToolNotAvailable, "gatedsub", false},
		{"canceled", "request_plan_approval", `{"name":"release"}`, plan.CodeCanceled, "gated", true},
	}
	return cases
}

// errorMessage decodes an error result, asserting that it is valid UTF-8 JSON of the
// documented shape.
func errorMessage(t *testing.T, result string) (code plan.Code, message string) {
	t.Helper()
	require.True(t, utf8.ValidString(result), "result is not UTF-8: %q", result)
	require.True(t, json.Valid([]byte(result)), "result is not JSON: %q", result)
	var r struct {
		Error *struct {
			Code    plan.Code `json:"code"`
			Message string    `json:"message"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(result), &r), result)
	require.NotNil(t, r.Error, "not an error result: %s", result)
	require.NotEmpty(t, r.Error.Message, result)
	return r.Error.Code, r.Error.Message
}

// TestEveryErrorInChinese: every error every tool can produce answers, in Chinese, with the
// expected code and a message with no English phrase, while the same call in English does
// produce an English phrase (so the check can fail).
func TestEveryErrorInChinese(t *testing.T) {
	f := newErrorFixture(t)
	zh, en := f.envs(t, adk.LanguageChinese), f.envs(t, adk.LanguageEnglish)
	seen := map[string]bool{}
	for _, c := range errorCases() {
		seen[c.tool] = true
		t.Run(c.tool+"/"+c.label, func(t *testing.T) {
			env := c.env
			if env == "" {
				env = "main"
			}
			call := func(e errorEnv) string {
				t.Helper()
				ctx := e.ctx
				if c.canceled {
					var cancel context.CancelFunc
					ctx, cancel = context.WithCancel(ctx)
					cancel()
				}
				tl, ok := e.tools[c.tool]
				require.True(t, ok, "tool %s is offered", c.tool)
				out, err := tl.InvokableRun(ctx, c.args)
				require.NoError(t, err, "a tool never returns a Go error")
				return out
			}
			zhCode, zhMsg := errorMessage(t, call(zh[env]))
			enCode, enMsg := errorMessage(t, call(en[env]))
			assert.Equal(t, c.code, zhCode, zhMsg)
			assert.Equal(t, c.code, enCode, enMsg)
			assert.True(t, hasHan(zhMsg), "the Chinese message is Chinese: %s", zhMsg)
			n, _ := englishRun(enMsg)
			assert.GreaterOrEqual(t, n, 2, "the English message has an English phrase: %s", enMsg)
			n, words := englishRun(zhMsg)
			assert.Less(t, n, 2, "the Chinese message carries English %q: %s", words, zhMsg)
			for _, msg := range []string{zhMsg, enMsg} {
				assert.NotContains(t, msg, `""`, "a placeholder rendered empty")
			}
		})
	}
	for _, name := range []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan,
		plan.ToolSetPlanStatus, plan.ToolGetPlanStatus, plan.ToolUpdatePlanStep, plan.ToolExportPlanToFile,
		plan.ToolUpdatePlanFromFile, plan.ToolPlanTemplate, plan.ToolRequestPlanApproval} {
		assert.True(t, seen[name], "no error case for %s", name)
	}

	// Nothing the failing calls asked for was written.
	store, err := plan.NewStore(&plan.StoreConfig{Backend: f.local, MaxContentBytes: errMaxContent})
	require.NoError(t, err)
	p, err := store.Get(context.Background(), "release")
	require.NoError(t, err)
	assert.EqualValues(t, 1, p.Revision)
	for _, name := range []string{"fresh", "ghost"} {
		_, err = store.Get(context.Background(), name)
		assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), name)
	}
	_, err = os.Stat(filepath.Join(f.local.Root(), "work", "out.md"))
	assert.True(t, os.IsNotExist(err), "a canceled export writes nothing")
}

// TestListWarningsInChinese: the warnings list_plans gives for entries it cannot read speak
// the model's language too.
func TestListWarningsInChinese(t *testing.T) {
	f := newErrorFixture(t)
	for lang, want := range map[adk.Language]bool{adk.LanguageChinese: false, adk.LanguageEnglish: true} {
		e := f.envs(t, lang)["main"]
		out, err := e.tools[plan.ToolListPlans].InvokableRun(e.ctx, `{}`)
		require.NoError(t, err)
		require.True(t, utf8.ValidString(out) && json.Valid([]byte(out)), out)
		var r struct {
			Warnings []struct {
				Name    string    `json:"name"`
				Code    plan.Code `json:"code"`
				Message string    `json:"message"`
			} `json:"warnings"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		names := map[string]plan.Code{}
		for _, w := range r.Warnings {
			names[w.Name] = w.Code
			n, words := englishRun(w.Message)
			assert.Equal(t, want, n >= 2, "lang %v, warning %s: %q in %s", lang, w.Name, words, w.Message)
		}
		assert.Equal(t, map[string]plan.Code{"broken": plan.CodeCorrupt, "folder": plan.CodeCorrupt, "huge": plan.CodeTooLarge}, names)
	}
}

// TestChineseTypeNames: a wrong-type argument is described in Chinese, not with an English
// type name such as "a number".
func TestChineseTypeNames(t *testing.T) {
	f := newErrorFixture(t)
	e := f.envs(t, adk.LanguageChinese)["main"]
	out, err := e.tools[plan.ToolWritePlan].InvokableRun(e.ctx, `{"name":7,"content":"x"}`)
	require.NoError(t, err)
	code, msg := errorMessage(t, out)
	require.Equal(t, plan.CodeInvalidArgument, code)
	for _, english := range []string{"a number", "a string", "a boolean", "an array", "an object"} {
		if strings.Contains(msg, english) {
			t.Fatalf("the JSON type is named in English (%q): %s", english, msg)
		}
	}
	assert.True(t, hasHan(msg), msg)
}
