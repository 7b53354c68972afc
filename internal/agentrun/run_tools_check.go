package agentrun

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	einofs "github.com/cloudwego/eino/adk/filesystem"
	fsmw "github.com/cloudwego/eino/adk/middlewares/filesystem"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/tools"
)

// At a run's first model call the middleware sees every tool the model is offered, those of
// handlers listed after it included, which BeforeAgent never sees. What it cannot judge there
// fails closed:
//
//   - a GatedTools name that matches no tool of the run, nor one of a sub-agent it starts
//     that shares the name, fails the run: a misspelt name ("Deploy_Prod", "deploy") would
//     otherwise gate nothing, silently (checkGatedNames);
//   - a tool added after BeforeAgent whose parameters are those of one of Eino's filesystem
//     tools is judged by the file guard as that tool, whatever its name;
//   - the export tool of another plan middleware listed after this one is gated with this
//     one's own (runPeers).

// runPeers are what the plan middlewares of one run tell each other: the names of their
// export_plan_to_file tools, so a gating middleware gates those of the middlewares listed
// after it too.
type runPeers struct {
	mu      sync.Mutex
	exports map[string]bool
	// plans are the names of the plan tools of every plan middleware of the run.
	plans map[string]bool
}

func (p *runPeers) addPlanTools(names map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.plans == nil {
		p.plans = map[string]bool{}
	}
	for _, n := range names {
		p.plans[n] = true
	}
}

// planTool reports whether name is a plan tool of a plan middleware of the run.
func (p *runPeers) planTool(name string) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.plans[name]
}

func (p *runPeers) addExport(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.exports == nil {
		p.exports = map[string]bool{}
	}
	p.exports[name] = true
}

func (p *runPeers) exported(name string) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exports[name]
}

// checkRunTools is the check of the run's first model call, given the tools its model is
// offered. It returns the error that ends the run, if any.
func (m *Middleware[M, S]) checkRunTools(ctx context.Context, st *runState, infos []*schema.ToolInfo) error {
	st.mu.Lock()
	if st.toolsChecked {
		st.mu.Unlock()
		return nil
	}
	st.toolsChecked = true
	early := st.early
	st.mu.Unlock()

	offered := make(map[string]bool, len(infos))
	for _, info := range infos {
		if info != nil {
			offered[info.Name] = true
		}
	}
	if err := m.checkGatedNames(ctx, st, offered); err != nil {
		return err
	}
	known := map[string]bool{}
	for _, t := range early {
		if info, err := t.Info(ctx); err == nil && info != nil {
			known[info.Name] = true
		}
	}
	for _, info := range infos {
		if info == nil || known[info.Name] {
			continue
		}
		if kind := fileToolBySignature(info); kind != "" && kind != info.Name {
			st.mu.Lock()
			if st.fileTools == nil {
				st.fileTools = map[string]string{}
			}
			st.fileTools[info.Name] = kind
			st.mu.Unlock()
		}
	}
	return nil
}

// checkGatedNames fails a run whose tools do not include, for some GatedTools name, that
// tool, unless the name is carried: an agent the run can start through one of Eino's agent
// starters has a plan middleware whose GatedTools name it (or "*"), so that agent's own run
// checks it in turn. One Config may thus serve an orchestrator and the workers it starts,
// each name being a tool of the agents that run it, while a name no agent of the run's tree
// has (misspelt, "Deploy_Prod", "deploy", or meant for an agent the middleware cannot see
// started, such as one a host's own tool runs) gates nothing and fails the run before any
// tool ran. A near miss (the same name in another case, or a tool whose name starts with it
// and a "_" or "-") fails the run even when carried. export_plan_to_file's name is exempt:
// it is offered only with a Workspace.
func (m *Middleware[M, S]) checkGatedNames(ctx context.Context, st *runState, offered map[string]bool) error {
	if m.gated == nil {
		return nil
	}
	st.mu.Lock()
	carried := map[string]bool{}
	for _, s := range st.starters {
		for n := range s.Carries {
			carried[n] = true
		}
	}
	st.mu.Unlock()
	var near, absent []string
	for n := range m.gated.names {
		if offered[n] || n == m.names[tools.ToolExportPlanToFile] {
			continue
		}
		if t := nearMiss(n, offered); t != "" {
			near = append(near, fmt.Sprintf("%q (the agent has %q)", n, t))
		} else if !carried[n] && !carried["*"] {
			absent = append(absent, fmt.Sprintf("%q", n))
		}
	}
	sort.Strings(near)
	sort.Strings(absent)
	if len(near) > 0 {
		return fmt.Errorf("plan: Config.GatedTools names %s, which match no tool of agent %q: names are matched exactly, "+
			"case included, so such a name gates nothing", strings.Join(near, ", "), st.agent)
	}
	if len(absent) > 0 {
		return fmt.Errorf("plan: Config.GatedTools names %s, which match no tool of agent %q nor one an agent it starts gates: "+
			"such a name gates nothing; name only tools this agent or the sub-agents sharing its plan middleware have, "+
			"or give agents with other tools a plan middleware of their own (plan.New on the same Backend)", strings.Join(absent, ", "), st.agent)
	}
	return nil
}

// nearMiss is a tool of offered that the GatedTools name n was likely meant for: the same
// name in another case, or one that starts with n and a "_" or "-"; "" when none.
func nearMiss(n string, offered map[string]bool) string {
	for t := range offered {
		lt, ln := strings.ToLower(t), strings.ToLower(n)
		if lt == ln || strings.HasPrefix(lt, ln+"_") || strings.HasPrefix(lt, ln+"-") {
			return t
		}
	}
	return ""
}

// fileToolBySignature is the default name of the Eino filesystem tool whose parameters info
// has (the same property names), or "".
func fileToolBySignature(info *schema.ToolInfo) string {
	sig := signatureOf(info)
	if sig == "" {
		return ""
	}
	return einoFileSignatures()[sig]
}

// signatureOf is the sorted property names of a tool's parameters, or "".
func signatureOf(info *schema.ToolInfo) string {
	if info == nil || info.ParamsOneOf == nil {
		return ""
	}
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil || js == nil {
		return ""
	}
	raw, err := sonic.Marshal(js)
	if err != nil {
		return ""
	}
	var s struct {
		Properties map[string]any `json:"properties"`
	}
	if sonic.Unmarshal(raw, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// einoFileSignatures maps the parameter signature of each of Eino's filesystem tools to its
// default name, read from the tools Eino's middleware builds (once).
var einoFileSignatures = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	ctx := context.Background()
	mw, err := fsmw.New(ctx, &fsmw.MiddlewareConfig{Backend: einofs.NewInMemoryBackend()})
	if err != nil {
		return out
	}
	_, run, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	if err != nil || run == nil {
		return out
	}
	for _, t := range run.Tools {
		kind := einoFileTool(t)
		if kind == "" {
			continue
		}
		info, err := t.Info(ctx)
		if err != nil {
			continue
		}
		if sig := signatureOf(info); sig != "" {
			out[sig] = kind
			if kind == einoReadFile { // the multimodal read_file takes pages as well
				out[sortedJoin(sig, "pages")] = kind
			}
		}
	}
	return out
})

func sortedJoin(sig, extra string) string {
	keys := append(strings.Split(sig, ","), extra)
	slices.Sort(keys)
	return strings.Join(keys, ",")
}
