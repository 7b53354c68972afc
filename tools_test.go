package plan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/filesystem"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/plantest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	hostileSeed  = 0x5eed
	hostileCalls = 150 // per agent; two agents
	hostileCap   = 4 << 10
)

var hostileNames = []string{"alpha", "beta", "gamma"}

// Kinds of hostile calls. Every kind but kindValid and kindStale must fail with its code.
const (
	kindValid     = "valid"
	kindStale     = "stale revision"
	kindMalformed = "malformed JSON"
	kindWrongType = "wrong type"
	kindBadName   = "bad name"
	kindTraversal = "path traversal"
	kindOversized = "oversized"
)

var hostileWant = map[string]string{
	kindMalformed: "invalid_argument", kindWrongType: "invalid_argument", kindBadName: "invalid_argument",
	kindTraversal: "invalid_argument", kindOversized: "too_large",
}

// hostileCall is one tool call and what it means, so its effect can be replayed.
type hostileCall struct {
	kind, tool, args    string
	name, content, path string
	step                int
	state, note         string
}

// hostileModel plays one agent: each turn reads the previous result and draws the next call.
type hostileModel struct {
	id    string
	rng   *rand.Rand
	seen  map[string]int64 // the revision of each plan as this agent last saw it; 0: absent
	calls []hostileCall
}

func newHostileModel(id string, seed uint64) *hostileModel {
	return &hostileModel{id: id, rng: rand.New(rand.NewPCG(hostileSeed, seed)), seen: map[string]int64{}}
}

func (h *hostileModel) script() *plantest.ScriptedModel {
	turns := make([]plantest.Turn, hostileCalls)
	for i := range turns {
		turns[i] = h.turn
	}
	return plantest.NewScriptedModel(turns...)
}

func (h *hostileModel) turn(input []*schema.Message) *schema.Message {
	if n := len(input); n > 0 && input[n-1].Role == schema.Tool && len(h.calls) > 0 {
		h.observe(h.calls[len(h.calls)-1], input[n-1].Content)
	}
	c := h.next()
	h.calls = append(h.calls, c)
	return plantest.CallTool(c.tool, c.args)(nil)
}

// observe keeps the revision this agent believes current, as a real model would.
func (h *hostileModel) observe(c hostileCall, result string) {
	var r struct {
		Name     string `json:"name"`
		Deleted  string `json:"deleted"`
		Revision int64  `json:"revision"`
		Error    *struct {
			Code            string `json:"code"`
			CurrentRevision int64  `json:"current_revision"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(result), &r) != nil || c.name == "" {
		return
	}
	switch {
	case r.Error != nil && r.Error.Code == "revision_conflict":
		h.seen[c.name] = r.Error.CurrentRevision
	case r.Error != nil && r.Error.Code == "not_found" && c.tool != "update_plan_from_file":
		h.seen[c.name] = 0
	case r.Error != nil:
	case r.Deleted != "":
		h.seen[c.name] = 0
	case r.Revision > 0 && c.tool != "export_plan_to_file":
		h.seen[c.name] = r.Revision
	}
}

func (h *hostileModel) pick(options ...string) string { return options[h.rng.IntN(len(options))] }

func (h *hostileModel) paths() []string {
	return []string{"/" + h.id + "/plan.md", "/" + h.id + "/notes/draft.md"}
}

func (h *hostileModel) body(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s by %s\n", name, h.id)
	for i := range 1 + h.rng.IntN(4) {
		fmt.Fprintf(&b, "- [%s] step %d \"%d\"\n", h.pick(" ", " ", "x"), i+1, h.rng.IntN(1000))
	}
	return b.String()
}

func jsonArgs(fields ...any) string {
	m := map[string]any{}
	for i := 0; i < len(fields); i += 2 {
		m[fields[i].(string)] = fields[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// guard adds last_known_revision: mostly the revision this agent saw, sometimes none.
func (h *hostileModel) guard(fields []any, rev int64) []any {
	if h.rng.IntN(4) == 0 {
		return fields
	}
	return append(fields, "last_known_revision", rev)
}

func (h *hostileModel) next() hostileCall {
	name := h.pick(hostileNames...)
	seen := h.seen[name]
	c := hostileCall{kind: kindValid, name: name}
	roll := h.rng.IntN(100)
	switch {
	case roll < 45:
		h.valid(&c, seen)
	case roll < 58:
		c.kind = kindStale
		stale := max(seen-1-int64(h.rng.IntN(2)), 1)
		if h.rng.IntN(2) == 0 {
			stale = seen + 1 + int64(h.rng.IntN(3))
		}
		h.valid(&c, stale)
		if !strings.Contains(c.args, "last_known_revision") {
			h.stale(&c, stale)
		}
	case roll < 67:
		c.kind = kindMalformed
		h.valid(&c, seen)
		for c.tool == "list_plans" {
			h.valid(&c, seen)
		}
		switch h.rng.IntN(3) {
		case 0:
			c.args = c.args[:h.rng.IntN(len(c.args)-1)]
		case 1:
			c.args = h.pick(`[`+c.args+`]`, `"`+name+`"`, `null`, `{"name":"`+name+`",}`, `{'name':'`+name+`'}`, `{"name":"`+name+`"}}`)
		default:
			c.args = strings.Replace(c.args, `"`, ``, 2)
		}
	case roll < 76:
		c.kind = kindWrongType
		c.tool, c.args = h.wrongType(name)
	case roll < 84:
		c.kind = kindBadName
		bad := h.pick("../"+name, "Alpha", name+".md", name+"/x", "", " "+name, strings.Repeat("a", 65), "/"+name, "..", name+"\x00", "ñame")
		c.name = ""
		switch h.rng.IntN(4) {
		case 0:
			c.tool, c.args = "write_plan", jsonArgs("name", bad, "content", h.body("x"))
		case 1:
			c.tool, c.args = "read_plan", jsonArgs("name", bad)
		case 2:
			c.tool, c.args = "delete_plan", jsonArgs("name", bad)
		default:
			c.tool, c.args = "export_plan_to_file", jsonArgs("name", bad, "path", h.paths()[0])
		}
	case roll < 92:
		c.kind = kindTraversal
		escape := h.pick("../escape.md", "/"+h.id+"/../../escape.md", "..", "a/../../../etc/escape", `..\..\escape.md`,
			"/"+h.id+"/..", "/"+h.id+"/x\x00.md")
		c.tool = h.pick("export_plan_to_file", "update_plan_from_file")
		c.args = jsonArgs("name", name, "path", escape)
	default:
		c.kind = kindOversized
		if h.rng.IntN(3) == 0 {
			c.tool, c.args = "update_plan_from_file", jsonArgs("name", name, "path", "/"+h.id+"/big.md")
			break
		}
		big := strings.Repeat("- [ ] padding\n", (hostileCap+1+h.rng.IntN(3000))/14+1)
		c.tool, c.args = "write_plan", jsonArgs("name", name, "content", big)
	}
	return c
}

// valid draws a well-formed call guarded, where it is, with rev.
func (h *hostileModel) valid(c *hostileCall, rev int64) {
	name := c.name
	switch h.rng.IntN(12) {
	case 0, 1, 2:
		c.tool, c.content = "write_plan", h.body(name)
		c.args = jsonArgs(h.guard([]any{"name", name, "content", c.content}, rev)...)
	case 3:
		c.tool, c.state = "set_plan_status", h.pick("draft", "in-progress", "review", "done")
		c.args = jsonArgs(h.guard([]any{"name", name, "status", c.state}, rev)...)
	case 4, 5:
		c.tool, c.step = "update_plan_step", 1+h.rng.IntN(4)
		c.state = h.pick("pending", "in_progress", "completed", "completed", "failed", "skipped")
		fields := []any{"name", name, "step", c.step, "status", c.state}
		if h.rng.IntN(2) == 0 {
			c.note = fmt.Sprintf("note %d", h.rng.IntN(100))
			fields = append(fields, "note", c.note)
		}
		c.args = jsonArgs(h.guard(fields, rev)...)
	case 6:
		c.tool = "delete_plan"
		c.args = jsonArgs(h.guard([]any{"name", name}, rev)...)
	case 7:
		c.tool, c.path = "export_plan_to_file", h.pick(h.paths()...)
		c.args = jsonArgs("name", name, "path", c.path)
	case 8:
		c.tool, c.path = "update_plan_from_file", h.pick(h.paths()...)
		c.args = jsonArgs(h.guard([]any{"name", name, "path", c.path}, rev)...)
	case 9:
		c.tool, c.args = "read_plan", jsonArgs("name", name)
	case 10:
		c.tool, c.args = "get_plan_status", jsonArgs("name", name)
	default:
		c.tool, c.args = h.pick("list_plans", "plan_template"), jsonArgs("goal", "ship "+name)
	}
}

// stale turns c into a call that names revision rev.
func (h *hostileModel) stale(c *hostileCall, rev int64) {
	c.tool, c.content, c.path = "write_plan", h.body(c.name), ""
	c.args = jsonArgs("name", c.name, "content", c.content, "last_known_revision", rev)
}

func (h *hostileModel) wrongType(name string) (string, string) {
	switch h.rng.IntN(6) {
	case 0:
		return "write_plan", jsonArgs("name", 7, "content", "x")
	case 1:
		return "write_plan", jsonArgs("name", name, "content", []string{"x"})
	case 2:
		return "write_plan", jsonArgs("name", name, "content", "x", "last_known_revision", h.pick("one", "1.5", "true"))
	case 3:
		return "update_plan_step", h.pick(jsonArgs("name", name, "step", "one", "status", "completed"),
			`{"name":"`+name+`","step":1.5,"status":"completed"}`, jsonArgs("name", name, "step", 0, "status", "completed"))
	case 4:
		return "set_plan_status", jsonArgs("name", name, "status", true)
	default:
		return "export_plan_to_file", jsonArgs("name", map[string]string{"n": name}, "path", 3)
	}
}

// runHostile runs one agent to the end and returns its tool results in order.
func runHostile(ctx context.Context, id string, m *plantest.ScriptedModel, mw adk.ChatModelAgentMiddleware) ([]string, error) {
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name: "agent-" + id, Description: "plans", Instruction: "You plan.", Model: m,
		Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 2*hostileCalls + 10,
	})
	if err != nil {
		return nil, err
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "go")
	var events []*adk.AgentEvent
	var final string
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return nil, fmt.Errorf("agent %s: %w", id, ev.Err)
		}
		events = append(events, ev)
		if mo := ev.Output; mo != nil && mo.MessageOutput != nil && mo.MessageOutput.Message != nil &&
			mo.MessageOutput.Message.Role == schema.Assistant && len(mo.MessageOutput.Message.ToolCalls) == 0 {
			final = mo.MessageOutput.Message.Content
		}
	}
	if final != "done" {
		return nil, fmt.Errorf("agent %s did not finish normally (last answer %q)", id, final)
	}
	return toolResults(events), nil
}

// TestHostileModels runs two agents, each with its own middleware, through 150 random tool
// calls each on one LocalBackend: valid, stale, malformed, wrongly typed, badly named,
// escaping and oversized. Afterwards every plan decodes, no revision repeated or went
// back, the stored plans are exactly what the accepted calls make of them, and nothing
// was written outside the plans folder and the workspace.
func TestHostileModels(t *testing.T) {
	for _, mode := range []string{"sequential", "concurrent"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			base := t.TempDir()
			storeRoot, wsRoot := filepath.Join(base, "store"), filepath.Join(base, "ws")
			backend, ws := newLocal(t, storeRoot), newLocal(t, wsRoot)

			agents := []*hostileModel{newHostileModel("a", 1), newHostileModel("b", 2)}
			mws := make([]adk.ChatModelAgentMiddleware, len(agents))
			for i, h := range agents {
				big := strings.Repeat("- [ ] too much\n", hostileCap/15+100)
				require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/" + h.id + "/big.md", Content: big}))
				var err error
				mws[i], err = plan.New(ctx, &plan.Config{Store: storeOf(t, plan.StoreConfig{Backend: backend, MaxContentBytes: hostileCap}), Workspace: ws, AgentName: "agent-" + h.id})
				require.NoError(t, err)
			}

			results := make([][]string, len(agents))
			errs := make([]error, len(agents))
			run := func(i int) { results[i], errs[i] = runHostile(ctx, agents[i].id, agents[i].script(), mws[i]) }
			if mode == "sequential" {
				run(0)
				run(1)
			} else {
				var wg sync.WaitGroup
				for i := range agents {
					wg.Add(1)
					go func() { defer wg.Done(); run(i) }()
				}
				wg.Wait()
			}
			for i := range agents {
				require.NoError(t, errs[i])
				require.Len(t, results[i], hostileCalls, "agent %s", agents[i].id)
			}

			var log hostileLog
			for i, h := range agents {
				log.check(t, h, results[i])
			}
			store := storeOn(t, backend, "")
			log.verify(t, ctx, store)
			t.Logf("%s", log.stats())

			assertOnlyPlansAndWorkspace(t, base, storeRoot, wsRoot)
		})
	}
}

// hostileEvent is one accepted change: a mutation that produced revision rev, or the
// deletion of revision rev.
type hostileEvent struct {
	rev    int64
	delete bool
	call   hostileCall
	from   *exportRef // update_plan_from_file: what the file held
	where  string
}

type exportRef struct {
	name string
	rev  int64
}

type hostileLog struct {
	events map[string][]hostileEvent
	// maxSeen is the highest revision of each plan any result named.
	maxSeen map[string]int64
	reads   []hostileRead
	counts  map[string]int
	codes   map[string]int
}

// hostileRead is a result that showed a plan's content (or size) at a revision.
type hostileRead struct {
	name  string
	rev   int64
	body  *string
	bytes int
	where string
}

func (l *hostileLog) stats() string {
	kinds := make([]string, 0, len(l.counts))
	for k, n := range l.counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	codes := make([]string, 0, len(l.codes))
	for k, n := range l.codes {
		codes = append(codes, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	sort.Strings(codes)
	accepted := 0
	for _, evs := range l.events {
		accepted += len(evs)
	}
	return fmt.Sprintf("calls: %s; results: %s; accepted changes: %d", strings.Join(kinds, ", "), strings.Join(codes, ", "), accepted)
}

// replayStepMove is body after the step move an accepted update_plan_step made, as Store s
// makes it from body alone, in a plan of its own (name).
func replayStepMove(s *plan.Store, name, body string, step int, state, note string) (string, error) {
	ctx := context.Background()
	if _, err := s.Put(ctx, plan.Update{Name: name, Content: &body}); err != nil {
		return "", err
	}
	p, _, err := s.MoveStep(ctx, plan.StepMove{Name: name, Step: step, State: plan.StepState(state), Note: note})
	if err != nil {
		return "", err
	}
	return p.Content, nil
}

// check validates one agent's results in order and records what they accepted.
func (l *hostileLog) check(t *testing.T, h *hostileModel, results []string) {
	t.Helper()
	if l.events == nil {
		l.events, l.counts, l.codes = map[string][]hostileEvent{}, map[string]int{}, map[string]int{}
		l.maxSeen = map[string]int64{}
	}
	exports := map[string]exportRef{}
	seenRev := map[string]int64{}
	sawRev := func(where, name string, rev int64) {
		if rev < seenRev[name] {
			t.Errorf("%s: revision of %s went back from %d to %d", where, name, seenRev[name], rev)
		}
		seenRev[name] = max(seenRev[name], rev)
		l.maxSeen[name] = max(l.maxSeen[name], rev)
	}
	for i, c := range h.calls {
		res := results[i]
		where := fmt.Sprintf("agent %s call %d %s %.200q (%s) → %.300s", h.id, i, c.tool, c.args, c.kind, res)
		l.counts[c.kind]++
		if c.tool == "plan_template" && !strings.HasPrefix(res, "{") {
			l.codes["ok"]++
			continue
		}
		var r struct {
			Name     string `json:"name"`
			Deleted  string `json:"deleted"`
			Revision int64  `json:"revision"`
			Bytes    int    `json:"bytes"`
			Content  *string
			Plans    []struct {
				Name     string `json:"name"`
				Revision int64  `json:"revision"`
			} `json:"plans"`
			Warnings []any `json:"warnings"`
			Error    *struct {
				Code            string `json:"code"`
				Message         string `json:"message"`
				CurrentRevision int64  `json:"current_revision"`
			} `json:"error"`
		}
		if !assert.NoError(t, json.Unmarshal([]byte(res), &r), where) {
			continue
		}
		if r.Error != nil {
			l.codes[r.Error.Code]++
			assert.NotEmpty(t, r.Error.Message, where)
			if want, hostile := hostileWant[c.kind]; hostile {
				assert.Equal(t, want, r.Error.Code, where)
			} else {
				assert.Contains(t, []string{"invalid_argument", "not_found", "revision_conflict", "illegal_transition"}, r.Error.Code, where)
			}
			if r.Error.CurrentRevision > 0 {
				sawRev(where, c.name, r.Error.CurrentRevision)
			}
			continue
		}
		l.codes["ok"]++
		if _, hostile := hostileWant[c.kind]; hostile {
			t.Errorf("%s: a hostile call was accepted", where)
			continue
		}
		switch c.tool {
		case "list_plans":
			assert.Empty(t, r.Warnings, where)
			for _, p := range r.Plans {
				sawRev(where, p.Name, p.Revision)
				l.reads = append(l.reads, hostileRead{name: p.Name, rev: p.Revision, bytes: -1, where: where})
			}
			continue
		case "read_plan":
			l.reads = append(l.reads, hostileRead{name: c.name, rev: r.Revision, body: r.Content, bytes: -1, where: where})
		case "get_plan_status":
			l.reads = append(l.reads, hostileRead{name: c.name, rev: r.Revision, bytes: -1, where: where})
		case "export_plan_to_file":
			exports[c.path] = exportRef{c.name, r.Revision}
			l.reads = append(l.reads, hostileRead{name: c.name, rev: r.Revision, bytes: r.Bytes, where: where})
		case "delete_plan":
			assert.Equal(t, c.name, r.Deleted, where)
			l.events[c.name] = append(l.events[c.name], hostileEvent{rev: r.Revision, delete: true, call: c, where: where})
		case "update_plan_from_file":
			ref, ok := exports[c.path]
			if !assert.True(t, ok, "%s: accepted a file this agent never wrote", where) {
				continue
			}
			l.events[c.name] = append(l.events[c.name], hostileEvent{rev: r.Revision, call: c, from: &ref, where: where})
		default: // write_plan, set_plan_status, update_plan_step
			l.events[c.name] = append(l.events[c.name], hostileEvent{rev: r.Revision, call: c, where: where})
		}
		sawRev(where, c.name, r.Revision)
	}
}

// verify replays the accepted changes in revision order and compares with the store.
func (l *hostileLog) verify(t *testing.T, ctx context.Context, store *plan.Store) {
	t.Helper()
	byRev := map[string]map[int64]hostileEvent{}
	for name, evs := range l.events {
		byRev[name] = map[int64]hostileEvent{}
		deleted := map[int64]bool{}
		for _, ev := range evs {
			if ev.delete {
				assert.False(t, deleted[ev.rev], "revision %d of %s deleted twice: %s", ev.rev, name, ev.where)
				deleted[ev.rev] = true
				continue
			}
			if prev, dup := byRev[name][ev.rev]; dup {
				t.Errorf("revision %d of %s produced twice:\n%s\n%s", ev.rev, name, prev.where, ev.where)
			}
			byRev[name][ev.rev] = ev
		}
		for rev := range deleted {
			_, ok := byRev[name][rev]
			assert.True(t, ok, "revision %d of %s was deleted but never written", rev, name)
		}
	}

	memo := map[exportRef]string{}
	replay := storeOf(t, plan.StoreConfig{Backend: plan.NewMemoryBackend()})
	var content func(name string, rev int64) (string, bool)
	content = func(name string, rev int64) (string, bool) {
		key := exportRef{name, rev}
		if s, ok := memo[key]; ok {
			return s, true
		}
		ev, ok := byRev[name][rev]
		if !ok {
			return "", false
		}
		var body string
		switch c := ev.call; {
		case ev.from != nil:
			body, ok = content(ev.from.name, ev.from.rev)
		case c.tool == "write_plan":
			body = c.content
		case c.tool == "set_plan_status":
			body, ok = content(name, rev-1)
		case c.tool == "update_plan_step":
			var prev string
			if prev, ok = content(name, rev-1); ok {
				var err error
				body, err = replayStepMove(replay, fmt.Sprintf("r%d", len(memo)), prev, c.step, c.state, c.note)
				ok = assert.NoError(t, err, "replaying %s", ev.where)
			}
		default:
			t.Fatalf("cannot replay %s", ev.where)
		}
		if ok {
			memo[key] = body
		}
		return body, ok
	}

	// Every plan a result showed was a revision some accepted call produced, with its body.
	for _, r := range l.reads {
		want, ok := content(r.name, r.rev)
		if !assert.True(t, ok, "%s: revision %d of %s was never produced", r.where, r.rev, r.name) {
			continue
		}
		if r.body != nil {
			assert.Equal(t, want, *r.body, r.where)
		}
		if r.bytes >= 0 {
			assert.Equal(t, len(want), r.bytes, r.where)
		}
	}

	listing, err := store.ListPage(ctx, plan.ListOptions{})
	require.NoError(t, err)
	assert.Empty(t, listing.Warnings)
	stored := map[string]plan.Summary{}
	for _, s := range listing.Plans {
		stored[s.Name] = s
	}
	for _, name := range hostileNames {
		evs := slices.Clone(l.events[name])
		sort.SliceStable(evs, func(i, j int) bool {
			if evs[i].rev != evs[j].rev {
				return evs[i].rev < evs[j].rev
			}
			return !evs[i].delete && evs[j].delete
		})
		if len(evs) > 0 {
			assert.LessOrEqual(t, l.maxSeen[name], evs[len(evs)-1].rev, "%s: a result named a revision no accepted change produced", name)
		}
		p, err := store.Get(ctx, name)
		if len(evs) == 0 || evs[len(evs)-1].delete {
			assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err), "%s: the last accepted change deleted it", name)
			assert.NotContains(t, stored, name)
			continue
		}
		last := evs[len(evs)-1]
		if !assert.NoError(t, err, "%s: last accepted change %s", name, last.where) {
			continue
		}
		want, ok := content(name, last.rev)
		require.True(t, ok)
		assert.Equal(t, last.rev, p.Revision, "%s: last accepted change %s", name, last.where)
		assert.Equal(t, want, p.Content, "%s: last accepted change %s", name, last.where)
		assert.Equal(t, last.rev, stored[name].Revision, name)
	}
	for name := range stored {
		assert.Contains(t, hostileNames, name)
	}
}

// assertOnlyPlansAndWorkspace walks base: every file is a plan file, a tombstone, a history
// entry or the lock in the plans folder, or lies in the workspace.
func assertOnlyPlansAndWorkspace(t *testing.T, base, storeRoot, wsRoot string) {
	t.Helper()
	plansDir := filepath.Join(storeRoot, "plans")
	var files int
	require.NoError(t, filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		rel, _ := filepath.Rel(plansDir, p)
		switch {
		case strings.HasPrefix(p, wsRoot+string(filepath.Separator)):
		case rel == ".plan.lock":
		case strings.HasPrefix(rel, ".history"+string(filepath.Separator)):
			assert.Contains(t, hostileNames, filepath.Base(filepath.Dir(rel)), "history entry %s", p)
		case strings.HasPrefix(rel, ".deleted"+string(filepath.Separator)):
			assert.Contains(t, hostileNames, filepath.Base(rel), "tombstone %s", p)
		case filepath.Dir(rel) == "." && strings.HasSuffix(rel, ".md"):
			assert.Contains(t, hostileNames, strings.TrimSuffix(rel, ".md"), "plan file %s", p)
			raw, err := os.ReadFile(p)
			require.NoError(t, err)
			_, err = document.DecodePlan(strings.TrimSuffix(rel, ".md"), string(raw))
			assert.NoError(t, err, p)
		default:
			t.Errorf("unexpected file %s", p)
		}
		return nil
	}))
	assert.Positive(t, files)
}

// openAIFunctionJSON renders a tool as an OpenAI function definition, compact.
func openAIFunctionJSON(t *testing.T, ctx context.Context, rc *adk.ChatModelAgentContext, name string) string {
	t.Helper()
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		if info.Name != name {
			continue
		}
		fn := map[string]any{"name": info.Name, "description": info.Desc}
		if info.ParamsOneOf != nil {
			js, err := info.ParamsOneOf.ToJSONSchema()
			require.NoError(t, err)
			fn["parameters"] = js
		}
		out, err := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
		require.NoError(t, err)
		return out
	}
	t.Fatalf("tool %s not offered", name)
	return ""
}

var eightTools = []string{"write_plan", "read_plan", "list_plans", "delete_plan", "set_plan_status",
	"get_plan_status", "export_plan_to_file", "update_plan_from_file"}

// TestToolDefinitionBudget keeps what every model call pays for small: the eight
// docker-agent-named tools plus the instruction within 4,800 bytes in English, and
// plan_template within 450 more.
func TestToolDefinitionBudget(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}})
	require.NoError(t, err)
	ctx, rc, _ := beforeAgentTools(t, ctx, mw)
	total := len(rc.Instruction) - len("base")
	for _, name := range eightTools {
		def := openAIFunctionJSON(t, ctx, rc, name)
		t.Logf("%-22s %4d bytes", name, len(def))
		total += len(def)
	}
	t.Logf("instruction            %4d bytes", len(rc.Instruction)-len("base"))
	t.Logf("eight tools + instruction: %d bytes", total)
	require.LessOrEqual(t, total, 4800)
	tmpl := openAIFunctionJSON(t, ctx, rc, "plan_template")
	t.Logf("plan_template          %4d bytes", len(tmpl))
	require.LessOrEqual(t, len(tmpl), 450)
	t.Logf("update_plan_step       %4d bytes", len(openAIFunctionJSON(t, ctx, rc, "update_plan_step")))
}

// TestApprovalToolBudget: with RequireApproval the orchestrator pays for request_plan_approval
// and one instruction line, within 400 bytes together; without it, for nothing.
func TestApprovalToolBudget(t *testing.T) {
	ctx := context.Background()
	off, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}})
	require.NoError(t, err)
	_, base, tools := beforeAgentTools(t, ctx, off)
	require.NotContains(t, tools, plan.ToolRequestPlanApproval)
	on, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}, RequireApproval: true})
	require.NoError(t, err)
	ctx, rc, _ := beforeAgentTools(t, ctx, on)
	def := openAIFunctionJSON(t, ctx, rc, plan.ToolRequestPlanApproval)
	extra := len(rc.Instruction) - len(base.Instruction)
	t.Logf("request_plan_approval  %4d bytes, instruction +%d bytes", len(def), extra)
	require.Greater(t, extra, 0)
	require.LessOrEqual(t, len(def)+extra, 400)
}

// invoke runs one tool call and asserts that its result is valid UTF-8 JSON.
func invoke(t *testing.T, ctx context.Context, tools map[string]tool.InvokableTool, name, args string) string {
	t.Helper()
	tl, ok := tools[name]
	require.True(t, ok, name)
	out, err := tl.InvokableRun(ctx, args)
	require.NoError(t, err)
	require.True(t, utf8.Valid([]byte(out)), "%s: result is not UTF-8: %q", name, out)
	require.True(t, json.Valid([]byte(out)), "%s: result is not JSON: %q", name, out)
	return out
}

func decode[T any](t *testing.T, out string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

type errorOut struct {
	Error *struct {
		Code    plan.Code `json:"code"`
		Message string    `json:"message"`
	} `json:"error"`
}

// update_plan_step answers with the new revision, the step and the steps done of all, and
// nothing the digest carries (no step text, no next step, not the caller's own hold); a
// state spelled otherwise ("done" is completed) is named under "normalized".
func TestUpdatePlanStepResultIsCompact(t *testing.T) {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "w1"})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	_, err = tools["write_plan"].InvokableRun(ctx, `{"name":"c","content":"- [ ] a\n- [ ] b\n- [ ] c\n- [ ] d\n"}`)
	require.NoError(t, err)
	for _, tc := range []struct{ args, want string }{
		{`{"name":"c","step":1,"status":"failed","last_known_revision":1}`, `{"revision":2,"step":1,"done":"0/4"}`},
		{`{"name":"c","step":2,"status":"skipped"}`, `{"revision":3,"step":2,"done":"1/4"}`},
		{`{"name":"c","status":"in_progress"}`, `{"revision":4,"step":3,"done":"1/4"}`},
		{`{"name":"c","step":3,"status":"done"}`, `{"revision":5,"step":3,"normalized":"status=\"completed\"","done":"2/4"}`},
	} {
		out, err := tools["update_plan_step"].InvokableRun(ctx, tc.args)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, out)
	}
}

// The advice for a plan that cannot be decoded says to delete it without last_known_revision,
// and following it works.
func TestCorruptPlanAdviceLeadsToAWorkingDelete(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: "/plans/broken.md", Content: "---\nrevision: 3\ntitle: oops\n---\n- [ ] x\n"}))
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("read_plan", `{"name":"broken"}`),
		plantest.CallTool("delete_plan", `{"name":"broken"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 2)
	assert.Contains(t, results[0], "without last_known_revision", "the advice says how to delete it")
	assert.Empty(t, errorCode(t, results[1]), "following the advice works")
}

// A list_plans page is never over 16 KiB, warnings included.
func TestListPageWithWarningsStaysWithin16KiB(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	s := storeOn(t, mem, "")
	for i := range 100 {
		_, err := s.Put(ctx, plan.Update{Name: fmt.Sprintf("p%03d", i), Title: strings.Repeat("t", 100),
			Status: strings.Repeat("s", 40), Author: strings.Repeat("a", 40),
			Content: ptr("- [ ] " + strings.Repeat("x", 100) + "\n")})
		require.NoError(t, err)
	}
	for i := range 20 {
		name := fmt.Sprintf("%s%02d", strings.Repeat("z", 62), i)
		require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: "/plans/" + name + ".md", Content: "not a plan"}))
	}
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.CallTool("list_plans", `{"limit":200}`), plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 1)
	assert.Contains(t, results[0], `"warnings"`)
	assert.LessOrEqual(t, len(results[0]), 16<<10, "a page is never over 16 KiB")
}

// manyPlans is how many plans the paging tests store.
const manyPlans = 10000

func manyName(i int) string { return fmt.Sprintf("p%05d", i) }

// manyStatus gives a third of the plans status "done" and the rest near misses, so the
// status filter is seen to be exact.
func manyStatus(i int) string {
	return [...]string{"done", "done-ish", "Done"}[i%3]
}

// newManyPlans stores manyPlans plans with ~1,000-byte titles and long step texts directly in
// a MemoryBackend.
func newManyPlans(t testing.TB) *plan.MemoryBackend {
	t.Helper()
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	stepText := strings.Repeat("migrate the table and check every row ", 8)
	at := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	for i := 0; i < manyPlans; i++ {
		title := fmt.Sprintf("Plan %d: %s", i, strings.Repeat("long title words ", 60))
		body := fmt.Sprintf("# %s\n- [x] %s 1\n- [ ] %s 2\n- [ ] %s 3\n", title, stepText, stepText, stepText)
		p := &plan.Plan{Title: title, Status: manyStatus(i), Author: "loader", Revision: 1,
			UpdatedAt: at.Add(time.Duration(i) * time.Second), Content: body}
		require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/" + manyName(i) + ".md", Content: document.EncodePlan(p)}))
	}
	return backend
}

type listOut struct {
	Plans []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"plans"`
	Total      *int   `json:"total"`
	NextCursor string `json:"next_cursor"`
}

// TestListPlansPagesTenThousandPlans: list_plans pages through 10,000 plans within its
// bounds, in name order, each plan once; the status filter is exact; limits are checked;
// plan_template names at most 50; Store.ListPage pages the same way for hosts.
func TestListPlansPagesTenThousandPlans(t *testing.T) {
	ctx := context.Background()
	backend := newManyPlans(t)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	// The default page.
	out := invoke(t, ctx, tools, plan.ToolListPlans, `{}`)
	first := decode[listOut](t, out)
	assert.LessOrEqual(t, len(first.Plans), 50)
	assert.NotEmpty(t, first.Plans)
	assert.LessOrEqual(t, len(out), 16<<10)
	require.NotNil(t, first.Total)
	assert.Equal(t, manyPlans, *first.Total)
	assert.NotEmpty(t, first.NextCursor)

	// Following next_cursor visits every plan once, in name order.
	visit := func(args func(cursor string) string) {
		var names []string
		cursor, pages := "", 0
		for {
			out := invoke(t, ctx, tools, plan.ToolListPlans, args(cursor))
			page := decode[listOut](t, out)
			require.LessOrEqual(t, len(out), 16<<10, "page %d", pages)
			require.NotNil(t, page.Total, "page %d", pages)
			require.Equal(t, manyPlans, *page.Total, "page %d", pages)
			require.NotEmpty(t, page.Plans, "page %d", pages)
			for _, p := range page.Plans {
				names = append(names, p.Name)
			}
			pages++
			require.Less(t, pages, 2*manyPlans, "paging never ends")
			if page.NextCursor == "" {
				break
			}
			require.Equal(t, page.Plans[len(page.Plans)-1].Name, page.NextCursor)
			cursor = page.NextCursor
		}
		want := make([]string, manyPlans)
		for i := range want {
			want[i] = manyName(i)
		}
		require.Equal(t, want, names)
	}
	visit(func(c string) string {
		if c == "" {
			return `{}`
		}
		return `{"cursor":` + quote(c) + `}`
	})

	// The status filter keeps exactly the plans whose status is "done".
	filtered := invoke(t, ctx, tools, plan.ToolListPlans, `{"status":"done","limit":200}`)
	page := decode[listOut](t, filtered)
	require.NotNil(t, page.Total)
	assert.Equal(t, (manyPlans+2)/3, *page.Total)
	for _, p := range page.Plans {
		assert.Equal(t, "done", p.Status)
	}
	require.NotEmpty(t, page.NextCursor)
	second := decode[listOut](t, invoke(t, ctx, tools, plan.ToolListPlans,
		`{"status":"done","limit":200,"cursor":`+quote(page.NextCursor)+`}`))
	require.NotEmpty(t, second.Plans)
	assert.Greater(t, second.Plans[0].Name, page.NextCursor)
	for _, p := range append(page.Plans, second.Plans...) {
		assert.Equal(t, "done", p.Status)
	}

	// Limits: 1..200 honoured (a page is also cut at 16 KiB), 0 and 201 refused.
	for _, limit := range []int{1, 2, 7, 20, 50, 120, 200} {
		out := invoke(t, ctx, tools, plan.ToolListPlans, fmt.Sprintf(`{"limit":%d,"cursor":"p00100"}`, limit))
		page := decode[listOut](t, out)
		assert.LessOrEqual(t, len(page.Plans), limit)
		assert.LessOrEqual(t, len(out), 16<<10)
		if limit <= 20 {
			assert.Len(t, page.Plans, limit, "a small page is never cut")
		}
		require.NotEmpty(t, page.Plans)
		assert.Equal(t, "p00101", page.Plans[0].Name)
	}
	for _, limit := range []string{"0", "201", "-1"} {
		r := decode[errorOut](t, invoke(t, ctx, tools, plan.ToolListPlans, `{"limit":`+limit+`}`))
		if assert.NotNil(t, r.Error, limit) {
			assert.Equal(t, plan.CodeInvalidArgument, r.Error.Code)
		}
	}

	// plan_template names at most 50 plans and says how many more there are.
	tmpl, err := tools[plan.ToolPlanTemplate].InvokableRun(ctx, `{"goal":"ship"}`)
	require.NoError(t, err)
	require.NotContains(t, tmpl, `"error"`)
	for i := 0; i < 50; i++ {
		assert.Contains(t, tmpl, manyName(i))
	}
	assert.NotContains(t, tmpl, manyName(50))
	assert.NotContains(t, tmpl, manyName(manyPlans-1))
	assert.Contains(t, tmpl, fmt.Sprintf("and %d more", manyPlans-50))
	assert.Less(t, len(tmpl), 4<<10)

	// Store.ListPage gives hosts the same paging.
	store := storeOn(t, backend, "")
	var names []string
	opts := plan.ListOptions{Limit: 150}
	for {
		l, err := store.ListPage(ctx, opts)
		require.NoError(t, err)
		assert.Equal(t, manyPlans, l.Total)
		assert.LessOrEqual(t, len(l.Plans), 150)
		for _, p := range l.Plans {
			names = append(names, p.Name)
		}
		if l.NextCursor == "" {
			break
		}
		require.Len(t, l.Plans, 150, "only the last page is short")
		opts.Cursor = l.NextCursor
	}
	require.Len(t, names, manyPlans)
	for i, n := range names {
		require.Equal(t, manyName(i), n)
	}
	// The status filter, over every page at once, keeps exactly the plans whose status is
	// "done".
	all, err := store.ListPage(ctx, plan.ListOptions{Status: "done"})
	require.NoError(t, err)
	var done []string
	for _, p := range all.Plans {
		assert.Equal(t, "done", p.Status)
		done = append(done, p.Name)
	}
	var wantDone []string
	for i := 0; i < manyPlans; i++ {
		if manyStatus(i) == "done" {
			wantDone = append(wantDone, manyName(i))
		}
	}
	assert.Equal(t, wantDone, done)
	assert.Equal(t, len(wantDone), all.Total)
	assert.Empty(t, all.NextCursor)
	l, err := store.ListPage(ctx, plan.ListOptions{Status: "Done", Limit: 200, Cursor: "p09000"})
	require.NoError(t, err)
	assert.Equal(t, manyPlans/3, l.Total)
	for _, p := range l.Plans {
		assert.Equal(t, "Done", p.Status)
		assert.Greater(t, p.Name, "p09000")
	}
}

// With the plans folder inside the Workspace (two LocalBackends, the Backend's root under the
// Workspace's root), the file tools refuse paths inside the plans folder: export_plan_to_file
// cannot overwrite another plan's file behind its revisions.
func TestFileToolsRefuseThePlansFolderInsideTheWorkspace(t *testing.T) {
	ctx := context.Background()
	project := t.TempDir()
	plans := newLocal(t, filepath.Join(project, ".plans"))
	ws := newLocal(t, project)
	s := storeOn(t, plans, "")
	_, err := s.Put(ctx, plan.Update{Name: "victim", Content: ptr("- [ ] real work\n")})
	require.NoError(t, err)
	forged := "---\ntitle: \"forged\"\nstatus: \"done\"\nauthor: \"x\"\nrevision: 99\nupdated_at: \"2026-01-01T00:00:00Z\"\n---\n- [x] nothing to do\n"
	_, err = s.Put(ctx, plan.Update{Name: "evil", Content: &forged})
	require.NoError(t, err)

	mw, err := plan.New(ctx, &plan.Config{Store: s, Workspace: ws})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("export_plan_to_file", `{"name":"evil","path":"/.plans/plans/victim.md"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	t.Log(results[0])
	assert.Equal(t, "invalid_argument", errorCode(t, results[0]), "paths inside the plans folder are refused")
	p, err := s.Get(ctx, "victim")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] real work\n", p.Content)
}

// stuckWriter is a Workspace whose Write ignores the context, as eino-ext local's does on
// a named pipe (os.WriteFile blocks in open until a reader comes).
type stuckWriter struct {
	driver.Workspace
	release chan struct{}
}

func (w stuckWriter) Write(context.Context, *driver.WriteRequest) error { <-w.release; return nil }

// export_plan_to_file returns when the run's context ends, even if the Workspace's Write
// ignores the context.
func TestExportReturnsWhenTheContextEnds(t *testing.T) {
	ctx := context.Background()
	s, _ := newStoreWith(t, plan.StoreConfig{}, "p", "- [ ] x\n")
	ws := stuckWriter{plan.NewMemoryBackend(), make(chan struct{})}
	defer close(ws.release)
	mw, err := plan.New(ctx, &plan.Config{Store: s, Workspace: ws})
	require.NoError(t, err)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "a", Description: "a",
		Model:    plantest.NewScriptedModel(plantest.CallTool("export_plan_to_file", `{"name":"p","path":"/work/p.md"}`)),
		Handlers: []adk.ChatModelAgentMiddleware{mw}})
	require.NoError(t, err)
	runCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	done := make(chan struct{})
	go func() {
		iter := adk.NewRunner(runCtx, adk.RunnerConfig{Agent: agent}).Query(runCtx, "go")
		for _, ok := iter.Next(); ok; _, ok = iter.Next() {
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("the run is still blocked in export_plan_to_file 2.8 s after its context ended")
	}
}

// update_plan_from_file on a file that is not UTF-8 text says which file is at fault.
func TestFileNotUTF8MessageNamesTheFile(t *testing.T) {
	ctx := context.Background()
	ws := plan.NewMemoryBackend()
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/p.md", Content: "- [ ] caf\xe9\n"}))
	require.NoError(t, ws.Write(ctx, &driver.WriteRequest{FilePath: "/work/empty.md", Content: "\n"}))
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: ws})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_from_file", `{"name":"p","path":"/work/p.md"}`),
		plantest.CallTool("update_plan_from_file", `{"name":"p","path":"/work/empty.md"}`),
		plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	for _, r := range results {
		t.Log(r)
		assert.Contains(t, r, "/work/", "the message names the file at fault")
	}
}

// With Workspace and Backend one LocalBackend, the file tools refuse every spelling of a path
// into the plans folder (plan files, tombstones, the lock), want absolute paths, and leave
// revisions going on after a delete.
func TestWorkspaceThatIsThePlanStorageKeepsOutOfThePlansFolder(t *testing.T) {
	ctx := context.Background()
	lb := newLocal(t, t.TempDir())
	mw, err := plan.New(ctx, &plan.Config{Backend: lb, Workspace: lb})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	call := func(name, args string) string {
		out, err := tools[name].InvokableRun(ctx, args)
		require.NoError(t, err)
		return out
	}
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] a\n"}`), `"revision":1`)
	for i := 0; i < 4; i++ {
		call("update_plan_step", `{"name":"victim","step":1,"status":"in_progress"}`)
		call("update_plan_step", `{"name":"victim","step":1,"status":"pending"}`)
	}
	for _, path := range []string{"/plans/victim.md", "/plans/.deleted/victim", "/plans/.plan.lock", "plans/victim.md", "/plans", "/plans/sub/x.md", "//plans/./victim.md"} {
		out := call("export_plan_to_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
		out = call("update_plan_from_file", fmt.Sprintf(`{"name":"victim","path":%q}`, path))
		assert.Contains(t, out, `"invalid_argument"`, path)
	}
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","path":"work/v.md"}`), "absolute")
	assert.Contains(t, call("export_plan_to_file", `{"name":"victim","file_path":"/work/v.md"}`), `"bytes"`, "file_path is accepted for path")
	assert.Contains(t, call("read_plan", `{"name":"victim"}`), `"revision":`)
	p := storeOn(t, lb, "")
	got, err := p.Get(ctx, "victim")
	require.NoError(t, err)
	rev := got.Revision
	call("delete_plan", `{"name":"victim"}`)
	assert.Contains(t, call("write_plan", `{"name":"victim","content":"- [ ] b\n"}`), fmt.Sprintf(`"revision":%d`, rev+1), "revisions go on after delete")
}

// The file tools keep out of every plans folder on their storage, not only their own: with
// team plans in /team and personal ones in /mine on one LocalBackend that is also the
// Workspace, the personal middleware's export cannot overwrite a team plan, on the same
// storage or through a second LocalBackend on the same root.
func TestFileToolsKeepOutOfAnotherStoresPlansFolder(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	lb := newLocal(t, root)
	team := storeOn(t, lb, "/team")
	_, err := team.Put(ctx, plan.Update{Name: "victim", Content: ptr("- [ ] real work\n")})
	require.NoError(t, err)
	for _, ws := range []driver.Workspace{lb, newLocal(t, root)} {
		mine, err := plan.New(ctx, &plan.Config{Backend: lb, BaseDir: "/mine", Workspace: ws, ToolPrefix: "my_"})
		require.NoError(t, err)
		_, err = storeOn(t, lb, "/mine").Put(ctx, plan.Update{Name: "note", Content: ptr("- [x] nothing\n")})
		require.NoError(t, err)
		ctx2, _, tools := beforeAgentTools(t, ctx, mine)
		out, err := tools["my_export_plan_to_file"].InvokableRun(ctx2, `{"name":"note","path":"/team/victim.md"}`)
		require.NoError(t, err)
		assert.Equal(t, "invalid_argument", errorCode(t, out), out)
		out, err = tools["my_export_plan_to_file"].InvokableRun(ctx2, `{"name":"note","path":"/work/note.md"}`)
		require.NoError(t, err)
		assert.Equal(t, "", errorCode(t, out), out)
	}
	p, err := team.Get(ctx, "victim")
	require.NoError(t, err)
	assert.Equal(t, "- [ ] real work\n", p.Content)
}

// readFileWorkspace reads with os.ReadFile, which blocks on a named pipe: it offers no
// bounded read and ignores the context.
type readFileWorkspace struct{ dir string }

func (w readFileWorkspace) Read(_ context.Context, req *driver.ReadRequest) (*driver.FileContent, error) {
	data, err := os.ReadFile(filepath.Join(w.dir, req.FilePath))
	if err != nil {
		return nil, err
	}
	return &driver.FileContent{Content: string(data)}, nil
}

func (w readFileWorkspace) Write(_ context.Context, req *driver.WriteRequest) error {
	return os.WriteFile(filepath.Join(w.dir, req.FilePath), []byte(req.Content), 0o600)
}

// TestExportEditUpdateWithEinoWorkspace runs the cheap edit loop on Eino's own in-memory
// file system, the one Eino's file tools use: export, edit the file, update from it.
func TestExportEditUpdateWithEinoWorkspace(t *testing.T) {
	ctx := context.Background()
	ws := filesystem.NewInMemoryBackend()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
	require.NoError(t, err)
	editFile := func([]*schema.Message) *schema.Message {
		// What the agent's edit_file tool would do.
		require.NoError(t, ws.Edit(ctx, &filesystem.EditRequest{FilePath: "/notes/plan.md", OldString: "- [ ] b", NewString: "- [ ] b\n- [ ] c"}))
		return plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes/plan.md","last_known_revision":1}`)(nil)
	}
	m := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"loop","content":"# Loop\n- [ ] a\n- [ ] b\n"}`),
		plantest.CallTool("export_plan_to_file", `{"name":"loop","path":"/notes/plan.md"}`),
		editFile,
		plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes"}`),
		plantest.CallTool("update_plan_from_file", `{"name":"loop","path":"/notes/plan.md","last_known_revision":1}`),
	)
	results := toolResults(runAgent(t, m, mw))
	require.Len(t, results, 5)
	assert.JSONEq(t, `{"name":"loop","path":"/notes/plan.md","revision":1,"bytes":23}`, results[1])
	assert.Equal(t, "", errorCode(t, results[2]), results[2])
	assert.Contains(t, results[2], `"total":3`)
	assert.NotEqual(t, "", errorCode(t, results[3]), "a directory is not a plan file")
	assert.Equal(t, "revision_conflict", errorCode(t, results[4]), "the file was exported at revision 1; the plan moved on")

	store := storeOn(t, backend, "")
	p, err := store.Get(ctx, "loop")
	require.NoError(t, err)
	assert.EqualValues(t, 2, p.Revision)
	assert.Equal(t, "# Loop\n- [ ] a\n- [ ] b\n- [ ] c\n", p.Content)
}

// With the Workspace the plans' own storage, the file tools never reach the approval key
// beside the plans folder: export cannot overwrite it and update cannot read it into a plan.
func TestPlanFileToolsNeverReachTheApprovalKey(t *testing.T) {
	ctx := context.Background()
	lb := newLocal(t, t.TempDir())
	store := storeOn(t, lb, "")
	_, err := store.Put(ctx, plan.Update{Name: "p", Content: ptr("- [ ] a\n")})
	require.NoError(t, err)
	_, err = store.Approve(ctx, "p", 1, "ana")
	require.NoError(t, err)
	before, err := os.ReadFile(filepath.Join(lb.Root(), ".plans.approval-key"))
	require.NoError(t, err)

	mw, err := plan.New(ctx, &plan.Config{Store: store, Workspace: lb})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	for _, tool := range []string{"export_plan_to_file", "update_plan_from_file"} {
		out, err := tools[tool].InvokableRun(ctx, `{"name":"p","path":"/.plans.approval-key"}`)
		require.NoError(t, err)
		assert.Equal(t, "invalid_argument", errorCode(t, out), out)
	}
	after, err := os.ReadFile(filepath.Join(lb.Root(), ".plans.approval-key"))
	require.NoError(t, err)
	assert.Equal(t, before, after)
	got, err := store.Get(ctx, "p")
	require.NoError(t, err)
	assert.EqualValues(t, 2, got.Revision, "the plan is as approved")
	assert.NotNil(t, got.Approval)
}

// fullSetBytes are the bytes the eight docker-agent-named tools and the instruction add to
// every model call, in each language, before the instruction taught finishing a step and
// taking the next in one call: teaching it costs no byte more.
var fullSetBytes = map[adk.Language]int{adk.LanguageEnglish: 3612, adk.LanguageChinese: 3786}

// The full set's tax (the eight tools and the instruction) stays within what it was before
// the instruction taught the ride-along, in English and Chinese.
func TestTeachingTheRideAlongKeepsTheFullSetsTax(t *testing.T) {
	for lang, limit := range fullSetBytes {
		ctx := context.Background()
		mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(), Digest: plan.DigestConfig{Disabled: true}, Language: lang})
		require.NoError(t, err)
		ctx, rc, _ := beforeAgentTools(t, ctx, mw)
		total := len(rc.Instruction) - len("base")
		for _, name := range eightTools {
			total += len(openAIFunctionJSON(t, ctx, rc, name))
		}
		t.Logf("language %v: eight tools + instruction: %d bytes (limit %d)", lang, total, limit)
		require.LessOrEqual(t, total, limit)
	}
}
