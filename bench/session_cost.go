package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/einoplan/plan"
)

// Cost per step: one worker completes the same n steps, each of which takes k calls of a
// work tool (k = 1, 3, 5), with this library's tools (full, and the lean worker's), with
// Eino's plantask, and with no plan tools (the steps are listed in its instruction). Every
// model call is billed as a provider bills it: the prompt is every tool definition, the
// instruction and the whole history, in that order, the completion is the model's message,
// both counted in o200k tokens; and billed again as a provider with prompt caching bills it:
// the longest prefix the prompt shares with the previous call's at a tenth of the price, the
// rest in full. The plan or the tasks are written beforehand and not billed, so the figures
// are the worker's.

// costKinds are the setups of the table, in order.
var costKinds = []string{"plan", "plan, lean worker", costLeanEvidence, costAdvance, costLeanAdvance, "plantask", "no plan tools"}

const (
	// costLeanEvidence is the lean worker of a host that requires evidence (Config.RequireEvidence).
	costLeanEvidence = "plan, lean worker, evidence required"
	// costAdvance and costLeanAdvance are the full set and the lean worker on a plan whose
	// steps name their proof, on a host that advances proven steps (Config.AdvanceOnProof).
	costAdvance     = "plan, advanced by proof"
	costLeanAdvance = "plan, lean worker, advanced by proof"
)

// costWorkPerStep are the work calls each step takes, one session each.
var costWorkPerStep = []int{1, 3, 5}

// cachedPrice is what a provider with prompt caching bills an input token it read from the
// cache, as a share of the full price.
const cachedPrice = 0.1

// costRow is what one setup cost.
type costRow struct {
	kind        string
	steps, work int // steps, and work calls per step
	calls       int // model calls
	in, out     int // billed o200k tokens
	cached      int // input tokens of the prefixes shared with the previous call
	// einoIn and einoCached are in and cached with each message as Eino serializes it,
	// its message id ("extra") and "tool_name" included, which no provider receives.
	einoIn, einoCached   int
	toolCalls, planCalls int
	perCallTax           int // bytes of tool definitions and instruction on the first call
	// parts is the input billed with prompt caching, by what it is (costParts).
	parts map[string]float64
}

// billedCached is the input billed with prompt caching: the cached tokens at cachedPrice.
func (r costRow) billedCached() float64 {
	return float64(r.in-r.cached) + cachedPrice*float64(r.cached)
}

// einoBilledCached is billedCached with every message as Eino serializes it.
func (r costRow) einoBilledCached() float64 {
	return float64(r.einoIn-r.einoCached) + cachedPrice*float64(r.einoCached)
}

// cachedShare is the share of input tokens read from the cache, in percent.
func (r costRow) cachedShare() float64 {
	if r.in == 0 {
		return 0
	}
	return 100 * float64(r.cached) / float64(r.in)
}

// workToolName is the work tool's name.
const workToolName = "migrate_table"

// workTool is the step's own work: the same in every setup. Each call migrates one part of
// a step's table (its arguments name the part); the row counts match after the last part.
type workTool struct {
	calls *int
	parts int // work calls per step
}

func (workTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: workToolName, Desc: "Migrate one billing table to the new schema and compare its row counts.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"table": {Type: schema.String, Required: true}})}, nil
}

func (w workTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	*w.calls++
	part := 1
	if m := partOf.FindStringSubmatch(args); m != nil {
		part, _ = strconv.Atoi(m[1])
	}
	return fmt.Sprintf(`{"migrated":true,"rows_before":120400,"rows_after":%d}`, 120400*min(part, w.parts)/max(w.parts, 1)), nil
}

// partOf reads the part a work call's arguments name.
var partOf = regexp.MustCompile(`_part_(\d+)`)

// rowsMatch is the host's Config.ProofResult for migrate_table: its row counts match.
func rowsMatch(_, result string) bool {
	var r struct {
		Before int `json:"rows_before"`
		After  int `json:"rows_after"`
	}
	return json.Unmarshal([]byte(result), &r) == nil && r.Before == r.After
}

// billingModel plays a decider and keeps, for each call, what a provider bills.
type billingModel struct {
	inner *reactiveModel
	tools []*schema.ToolInfo
	log   *billLog
}

type billLog struct {
	mu        sync.Mutex
	prompts   []string       // as a provider receives them
	einos     []string       // with each message as Eino serializes it
	parts     [][]promptPart // what each prompt's bytes are, in order
	answers   []string
	toolCalls int
	planCalls int
	firstTax  int
}

func (m *billingModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	tools := model.GetCommonOptions(&model.Options{Tools: m.tools}, opts...).Tools
	out, err := m.inner.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	prompt, parts, defs := promptOf(tools, input, true) // tools first, as providers lay a prompt out
	eino, _, _ := promptOf(tools, input, false)
	ans, _ := sonic.ConfigStd.MarshalToString(out)
	m.log.mu.Lock()
	defer m.log.mu.Unlock()
	if len(m.log.prompts) == 0 {
		sys := ""
		if len(input) > 0 && input[0].Role == schema.System {
			sys = input[0].Content
		}
		m.log.firstTax = defs + len(sys)
	}
	m.log.prompts = append(m.log.prompts, prompt)
	m.log.einos = append(m.log.einos, eino)
	m.log.parts = append(m.log.parts, parts)
	m.log.answers = append(m.log.answers, ans)
	for _, c := range out.ToolCalls {
		m.log.toolCalls++
		if c.Function.Name != workToolName {
			m.log.planCalls++
		}
	}
	return out, nil
}

func (m *billingModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	msg, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{msg}), nil
}

func (m *billingModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &billingModel{inner: m.inner, tools: tools, log: m.log}, nil
}

// costPlanWorker does what the instruction teaches: it takes the next free step, does its
// work (work calls), and then completes it with next: true (and evidence, where the host
// requires it) in the message of the next step's first work call, listed first (the calls
// of one message take effect in the order listed); the last step's completion goes alone.
// It names neither the plan nor the step: the instruction says both may be omitted (there
// is one plan, and the worker holds one step of it).
type costPlanWorker struct {
	work, steps, step, worked int
	evidence                  bool
	last                      string
}

func (w *costPlanWorker) workCall() call {
	w.worked++
	return call{workToolName, jsonObject("table", fmt.Sprintf("billing_%02d_part_%d", w.step, w.worked))}
}

func (w *costPlanWorker) next(results []string) []call {
	if results == nil {
		w.last = "take"
		return []call{{plan.ToolUpdatePlanStep, jsonObject("status", "in_progress")}}
	}
	for _, res := range results {
		var r planResult
		if json.Unmarshal([]byte(res), &r) == nil && r.Error != nil {
			return nil
		}
	}
	var r planResult
	if json.Unmarshal([]byte(results[0]), &r) != nil {
		return nil
	}
	switch w.last {
	case "take":
		w.step, w.worked, w.last = r.Step, 0, "work"
		return []call{w.workCall()}
	case "work":
		if w.worked < w.work {
			return []call{w.workCall()}
		}
		done := call{plan.ToolUpdatePlanStep, jsonObject("next", true)}
		if w.evidence {
			done.args = jsonObject("evidence", "row counts match: 120400 before and after", "next", true)
		}
		if w.step == w.steps {
			w.last = "complete"
			return []call{done}
		}
		w.step, w.worked = w.step+1, 0 // the digest shows the next ready step: the one after this
		return []call{done, w.workCall()}
	}
	return nil
}

// costProofWorker does what the instruction and the digest teach on a plan whose steps name
// their proof, on a host that advances proven steps: it takes the next free step and does
// its work calls; the host completes the step when its proof passes and says which step is
// the worker's now, after the history (and names it again at every later call while the
// worker holds it). It stops when none is ready.
type costProofWorker struct {
	work, step, worked int
	taken              bool
	told               string
}

// yoursNow reads the step the host says the worker holds now.
var yoursNow = regexp.MustCompile(`yours now: step (\d+)`)

func (w *costProofWorker) noted(text string) { w.told = text }

func (w *costProofWorker) next(results []string) []call {
	if results == nil {
		return []call{{plan.ToolUpdatePlanStep, jsonObject("status", "in_progress")}}
	}
	if !w.taken {
		var r planResult
		if json.Unmarshal([]byte(results[0]), &r) != nil || r.Error != nil {
			return nil
		}
		w.taken, w.step = true, r.Step
	}
	if told := w.told; strings.Contains(told, " completed") { // not the line naming the step it holds
		m := yoursNow.FindStringSubmatch(told)
		if m == nil {
			return nil // no step is ready: the plan is done
		}
		w.step, _ = strconv.Atoi(m[1])
		w.worked = 0
	}
	w.told = ""
	if w.worked == w.work {
		return nil // the proof did not pass: nothing the instruction teaches is left
	}
	w.worked++
	return []call{{workToolName, jsonObject("table", fmt.Sprintf("billing_%02d_part_%d", w.step, w.worked))}}
}

// costTaskWorker lists the tasks, claims the first free one, does its work (work calls),
// completes it, and lists again, until none is free.
type costTaskWorker struct {
	work, task, worked int
	last               string
}

func (w *costTaskWorker) next(results []string) []call {
	list := func() []call { w.last = "list"; return []call{{toolTaskList, "{}"}} }
	if results == nil {
		return list()
	}
	switch w.last {
	case "list":
		out, ok := taskListText(results[0])
		if !ok {
			return nil
		}
		if w.task = firstFreeTask(out); w.task == 0 {
			return nil
		}
		w.last, w.worked = "claim", 0
		return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(w.task), "status", "in_progress", "owner", "worker")}}
	case "claim", "work":
		if w.worked < w.work {
			w.last = "work"
			w.worked++
			return []call{{workToolName, jsonObject("table", fmt.Sprintf("billing_%02d_part_%d", w.task, w.worked))}}
		}
		w.last = "complete"
		return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(w.task), "status", "completed")}}
	case "complete":
		return list()
	}
	return nil
}

// costBareWorker does the work of each step listed in its instruction, in order.
type costBareWorker struct{ steps, work, done int }

func (w *costBareWorker) next([]string) []call {
	if w.done == w.steps*w.work {
		return nil
	}
	step, part := w.done/w.work+1, w.done%w.work+1
	w.done++
	return []call{{workToolName, jsonObject("table", fmt.Sprintf("billing_%02d_part_%d", step, part))}}
}

// runCostSetup runs one setup on a fresh MemoryBackend and bills its worker.
func runCostSetup(ctx context.Context, kind string, steps, workPerStep int, c *counter) (costRow, error) {
	backend := plan.NewMemoryBackend()
	e, err := openEnv(backend, 0)
	if err != nil {
		return costRow{}, err
	}
	instruction := "Take the next free step and complete it, until none is left."
	var d decider
	var mw adk.ChatModelAgentMiddleware
	switch kind {
	case "plan", "plan, lean worker", costLeanEvidence:
		body := sessionContent(steps)
		if _, err := e.store.Put(ctx, plan.Update{Name: sessionPlanName, Content: &body}); err != nil {
			return costRow{}, err
		}
		evidence := kind == costLeanEvidence
		d = &costPlanWorker{work: workPerStep, steps: steps, evidence: evidence}
		mw, err = plan.New(ctx, &plan.Config{Store: e.store, AgentName: "worker", RequireEvidence: evidence, LeanWorker: kind != "plan"})
	case costAdvance, costLeanAdvance:
		body := strings.ReplaceAll(sessionContent(steps), " row counts\n", " row counts (proof "+workToolName+")\n")
		if _, err := e.store.Put(ctx, plan.Update{Name: sessionPlanName, Content: &body}); err != nil {
			return costRow{}, err
		}
		d = &costProofWorker{work: workPerStep}
		mw, err = plan.New(ctx, &plan.Config{Store: e.store, AgentName: "worker", LeanWorker: kind == costLeanAdvance, AdvanceOnProof: true, ProofResult: rowsMatch})
	case "plantask":
		orch := &sessionAgent{model: newReactiveModel(nil), log: newAgentLog("orchestrator")}
		if err := runOrchestrator(ctx, e, sessionSpec{Kind: kindPlantask, Steps: steps}, orch, false); err != nil {
			return costRow{}, err
		}
		d = &costTaskWorker{work: workPerStep}
		mw, err = plantask.New(ctx, &plantask.Config{Backend: taskBackend{backend}, BaseDir: tasksDir})
	default:
		instruction = "Do these steps in order, then stop.\n" + sessionContent(steps)
		d = &costBareWorker{steps: steps, work: workPerStep}
	}
	if err != nil {
		return costRow{}, err
	}
	work := 0
	log := &billLog{}
	m := &billingModel{inner: newReactiveModel(d), log: log}
	cfg := &adk.ChatModelAgentConfig{Name: "worker", Description: "works on the plan", Instruction: instruction, Model: m,
		MaxIterations: 100000, ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{workTool{&work, workPerStep}}}}}
	if mw != nil {
		cfg.Handlers = []adk.ChatModelAgentMiddleware{mw}
	}
	agent, err := adk.NewChatModelAgent(ctx, cfg)
	if err != nil {
		return costRow{}, err
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Work on the plan.")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			return costRow{}, ev.Err
		}
	}
	if work != steps*workPerStep {
		return costRow{}, fmt.Errorf("%s: %d of %d work calls made", kind, work, steps*workPerStep)
	}
	row := costRow{kind: kind, steps: steps, work: workPerStep, calls: len(log.prompts), toolCalls: log.toolCalls, planCalls: log.planCalls, perCallTax: log.firstTax,
		parts: map[string]float64{}}
	prev := ""
	for i, p := range log.prompts {
		shared := sharedPrefix(prev, p)
		cached, rest := c.o(p[:shared]), c.o(p[shared:])
		row.in += cached + rest
		row.cached += cached
		if slices.Contains(costPartKinds, kind) {
			billParts(c, p, shared, log.parts[i], row.parts)
		}
		prev = p
	}
	prev = ""
	for _, p := range log.einos {
		shared := sharedPrefix(prev, p)
		cached, rest := c.o(p[:shared]), c.o(p[shared:])
		row.einoIn += cached + rest
		row.einoCached += cached
		prev = p
	}
	for _, a := range log.answers {
		row.out += c.o(a)
	}
	return row, nil
}
