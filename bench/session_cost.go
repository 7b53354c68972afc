package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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

// Cost per step: one worker completes the same n steps, each of which takes one call of a
// work tool, with this library's tools (full, and the lean worker's), with Eino's plantask,
// and with no plan tools (the steps are listed in its instruction). Every model call is billed
// as a provider bills it: the prompt is the instruction, the whole history and every tool
// definition, the completion is the model's message, both counted in o200k tokens. The plan
// or the tasks are written beforehand and not billed, so the figures are the worker's.

// costKinds are the setups of the table, in order.
var costKinds = []string{"plan", "plan, lean worker", "plantask", "no plan tools"}

// costRow is what one setup cost.
type costRow struct {
	kind                 string
	steps                int
	calls                int // model calls
	in, out              int // billed o200k tokens
	toolCalls, planCalls int
	perCallTax           int // bytes of tool definitions and instruction on the first call
}

// workTool is the step's own work: the same in every setup.
type workTool struct{ calls *int }

func (workTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "migrate_table", Desc: "Migrate one billing table to the new schema and compare its row counts.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{"table": {Type: schema.String, Required: true}})}, nil
}

func (w workTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	*w.calls++
	return `{"migrated":true,"rows_before":120400,"rows_after":120400}`, nil
}

// billingModel plays a decider and keeps, for each call, what a provider bills.
type billingModel struct {
	inner *reactiveModel
	tools []*schema.ToolInfo
	log   *billLog
}

type billLog struct {
	mu        sync.Mutex
	prompts   []string
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
	in, _ := sonic.ConfigStd.MarshalToString(input)
	defs := ""
	for _, info := range tools {
		fn := map[string]any{"name": info.Name, "description": info.Desc}
		if info.ParamsOneOf != nil {
			if js, err := info.ParamsOneOf.ToJSONSchema(); err == nil {
				fn["parameters"] = js
			}
		}
		d, _ := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
		defs += d
	}
	ans, _ := sonic.ConfigStd.MarshalToString(out)
	m.log.mu.Lock()
	defer m.log.mu.Unlock()
	if len(m.log.prompts) == 0 {
		sys := ""
		if len(input) > 0 && input[0].Role == schema.System {
			sys = input[0].Content
		}
		m.log.firstTax = len(defs) + len(sys)
	}
	m.log.prompts = append(m.log.prompts, in+defs)
	m.log.answers = append(m.log.answers, ans)
	for _, c := range out.ToolCalls {
		m.log.toolCalls++
		if c.Function.Name != "migrate_table" {
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

// costPlanWorker takes the next free step, does its work, completes it with evidence, and
// takes the next, until none is left.
type costPlanWorker struct {
	step int
	last string
}

func (w *costPlanWorker) next(results []string) []call {
	take := func() []call {
		w.last = "take"
		return []call{{plan.ToolUpdatePlanStep, jsonObject("name", sessionPlanName, "status", "in_progress")}}
	}
	if results == nil {
		return take()
	}
	var r planResult
	if json.Unmarshal([]byte(results[0]), &r) != nil || r.Error != nil {
		return nil
	}
	switch w.last {
	case "take":
		w.step, w.last = r.Step, "work"
		return []call{{"migrate_table", jsonObject("table", fmt.Sprintf("billing_%02d", r.Step))}}
	case "work":
		w.last = "complete"
		return []call{{plan.ToolUpdatePlanStep, jsonObject("name", sessionPlanName, "step", w.step, "status", "completed",
			"evidence", "row counts match: 120400 before and after")}}
	case "complete":
		if r.NextStep == nil {
			return nil
		}
		return take()
	}
	return nil
}

// costTaskWorker lists the tasks, claims the first free one, does its work, completes it,
// and lists again, until none is free.
type costTaskWorker struct {
	task int
	last string
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
		w.last = "claim"
		return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(w.task), "status", "in_progress", "owner", "worker")}}
	case "claim":
		w.last = "work"
		return []call{{"migrate_table", jsonObject("table", fmt.Sprintf("billing_%02d", w.task))}}
	case "work":
		w.last = "complete"
		return []call{{toolTaskUpdate, jsonObject("taskId", strconv.Itoa(w.task), "status", "completed")}}
	case "complete":
		return list()
	}
	return nil
}

// costBareWorker does the work of each step listed in its instruction, in order.
type costBareWorker struct{ steps, done int }

func (w *costBareWorker) next([]string) []call {
	if w.done == w.steps {
		return nil
	}
	w.done++
	return []call{{"migrate_table", jsonObject("table", fmt.Sprintf("billing_%02d", w.done))}}
}

// runCostSetup runs one setup on a fresh MemoryBackend and bills its worker.
func runCostSetup(ctx context.Context, kind string, steps int, c *counter) (costRow, error) {
	backend := plan.NewMemoryBackend()
	e, err := openEnv(backend, 0)
	if err != nil {
		return costRow{}, err
	}
	instruction := "Take the next free step and complete it, until none is left."
	var d decider
	var mw adk.ChatModelAgentMiddleware
	switch kind {
	case "plan", "plan, lean worker":
		body := sessionContent(steps)
		if _, err := e.store.Put(ctx, plan.Update{Name: sessionPlanName, Content: &body}); err != nil {
			return costRow{}, err
		}
		d = &costPlanWorker{}
		mw, err = plan.New(ctx, &plan.Config{Store: e.store, AgentName: "worker", RequireEvidence: true, LeanWorker: kind != "plan"})
	case "plantask":
		orch := &sessionAgent{model: newReactiveModel(nil), log: newAgentLog("orchestrator")}
		if err := runOrchestrator(ctx, e, sessionSpec{Kind: kindPlantask, Steps: steps}, orch, false); err != nil {
			return costRow{}, err
		}
		d = &costTaskWorker{}
		mw, err = plantask.New(ctx, &plantask.Config{Backend: taskBackend{backend}, BaseDir: tasksDir})
	default:
		instruction = "Do these steps in order, then stop.\n" + sessionContent(steps)
		d = &costBareWorker{steps: steps}
	}
	if err != nil {
		return costRow{}, err
	}
	work := 0
	log := &billLog{}
	m := &billingModel{inner: newReactiveModel(d), log: log}
	cfg := &adk.ChatModelAgentConfig{Name: "worker", Description: "works on the plan", Instruction: instruction, Model: m,
		MaxIterations: 100000, ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{Tools: []tool.BaseTool{workTool{&work}}}}}
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
	if work != steps {
		return costRow{}, fmt.Errorf("%s: %d of %d steps worked", kind, work, steps)
	}
	row := costRow{kind: kind, steps: steps, calls: len(log.prompts), toolCalls: log.toolCalls, planCalls: log.planCalls, perCallTax: log.firstTax}
	for _, p := range log.prompts {
		row.in += c.o(p)
	}
	for _, a := range log.answers {
		row.out += c.o(a)
	}
	return row, nil
}

// costPerStepTable is the "Cost per step" table: every setup side by side in one run.
func costPerStepTable(ctx context.Context, c *counter, steps int) (*table, error) {
	t := newTable(fmt.Sprintf("Cost per step: one worker completes %d steps, each one work call", steps),
		"Setup", "Model calls", "Input tokens / step", "Output tokens / step", "Plan calls / all tool calls", "Tax bytes / call")
	for _, kind := range costKinds {
		r, err := runCostSetup(ctx, kind, steps, c)
		if err != nil {
			return nil, err
		}
		share := "0%"
		if r.toolCalls > 0 {
			share = fmt.Sprintf("%d / %d (%d%%)", r.planCalls, r.toolCalls, 100*r.planCalls/r.toolCalls)
		}
		t.add(r.kind, fmtInt(r.calls), fmtInt(r.in/steps), fmtInt(r.out/steps), share, fmtInt(r.perCallTax))
	}
	t.note("Billed as a provider bills: every model call's prompt is the instruction, the whole history and every tool definition (OpenAI function JSON), its completion the model's message; o200k tokens. The plan (or the tasks, by plantask's TaskCreate) is written before the worker starts and not billed.")
	t.note("plan: take the next free step (update_plan_step in_progress), do it, complete it with evidence (Config.RequireEvidence); plantask: TaskList, TaskUpdate in_progress with owner, do it, TaskUpdate completed; no plan tools: the steps are listed in the instruction and done in order.")
	t.note("Tax bytes / call: tool definitions and system instruction the first model call carries, the work tool's and the agent's own instruction included.")
	return t, nil
}

// costRowsText is a plain listing of the table, for the test's log.
func costRowsText(t *table) string {
	var b strings.Builder
	for _, r := range t.rows {
		b.WriteString(strings.Join(r, " | "))
		b.WriteByte('\n')
	}
	return b.String()
}

// costSteps is how many steps the cost per step table's worker completes.
const costSteps = 20

// costCommand prints the cost per step table alone (go run . -cost).
func costCommand(ctx context.Context, w io.Writer) error {
	c, err := newCounter()
	if err != nil {
		return err
	}
	t, err := costPerStepTable(ctx, c, costSteps)
	if err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return err
	}
	_, err = io.WriteString(w, t.markdown())
	return err
}
