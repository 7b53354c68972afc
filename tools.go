package plan

import (
	"context"
	"math"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// Tool names, as models already know them.
const (
	ToolWritePlan          = "write_plan"
	ToolReadPlan           = "read_plan"
	ToolListPlans          = "list_plans"
	ToolDeletePlan         = "delete_plan"
	ToolSetPlanStatus      = "set_plan_status"
	ToolGetPlanStatus      = "get_plan_status"
	ToolUpdatePlanStep     = "update_plan_step"
	ToolExportPlanToFile   = "export_plan_to_file"
	ToolUpdatePlanFromFile = "update_plan_from_file"
	ToolPlanTemplate       = "plan_template"
)

// toolEnv is what every tool call works with.
type toolEnv struct {
	store *Store
	// listEntries keeps list_plans entries of unchanged plans encoded.
	listEntries listCache
	// reads keeps read_plan results of unchanged plans encoded.
	reads     readCache
	workspace Workspace
	texts     map[string]string
	template  string
	agent     func(context.Context) string  // the agent a call acts as: author, and holder of steps
	role      func(context.Context) Role    // the middleware's role in a call's run
	sink      func(context.Context, Change) // hears the changes made through these tools
	listens   func(context.Context) bool    // whether sink has anyone to tell, during this call
	// requireApproval: update_plan_step moves steps of approved plans only.
	requireApproval bool
	// requireEvidence and verify check an agent's completion first (completion.go).
	requireEvidence bool
	verify          func(context.Context, Completion) error
	// lean: a lean worker's tools; the others are not available (tools_lean.go).
	lean bool
	// costs is the measure of a call's run (nil outside one); report tells the host.
	costs  func(context.Context) *runCosts
	report func(context.Context, CostReport)
	// sameStorage: the Workspace is the Store's storage, so file tools refuse paths inside
	// the Store's folder and plans change only through the Store.
	sameStorage bool
	// planRoot is the root of the Store's LocalBackend, if it is on one; wsRoot that of a
	// LocalBackend Workspace. The file tools keep out of the plans folder under them.
	wsRoot, planRoot string
}

type toolSpec struct {
	name   string
	params []param
	run    func(ctx context.Context, env *toolEnv, a args) (any, error)
}

// planTool adapts a toolSpec to Eino. Its InvokableRun returns no Go error other than the
// Eino interrupt of request_plan_approval: every failure a model can cause, and every storage
// failure, is a JSON error result, so the agent run goes on and the model can react.
type planTool struct {
	spec toolSpec
	env  *toolEnv
	info *schema.ToolInfo
}

var _ tool.InvokableTool = (*planTool)(nil)

func (t *planTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *planTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	if limit := maxArgumentBytes(t.env.store.ContentCap()); len(argumentsInJSON) > limit {
		// Only a plan body can make a right call this large: the advice is about the plan
		// where the tool takes one, and about the arguments elsewhere.
		tooLarge := Error{Code: CodeTooLarge, Reason: document.ReasonArgsTooLarge, Size: int64(len(argumentsInJSON)), Limit: int64(t.env.store.ContentCap())}
		if _, body := paramNamed(t.spec, pContent.name); !body {
			tooLarge.Reason, tooLarge.Limit = document.ReasonArgsOverLimit, int64(limit)
		}
		return t.env.errorResult(document.Fail(tooLarge)), nil
	}
	if t.env.lean && !leanTools[t.spec.name] {
		return t.env.errorResult(document.Fail(Error{Code: CodeToolNotAvailable, Reason: document.ReasonLeanWorker})), nil
	}
	a, notes, err := decodeCall(t.spec, t.env.texts, argumentsInJSON)
	if err != nil {
		return t.env.errorResult(err), nil
	}
	if t.env.listens != nil && t.env.listens(ctx) {
		ctx = engine.WithChangeSink(ctx, t.env.sink) // otherwise no Change is computed at all
	}
	ctx = document.WithAgentActor(ctx, t.env.agent(ctx))
	if t.env.requireApproval {
		ctx = document.WithStepGate(ctx) // no step moves on a plan not approved, by any tool
	}
	out, err := t.spec.run(ctx, t.env, a)
	if ie, ok := asInterrupt(err); ok {
		return "", ie // Eino pauses the run here; the call is run again on resume
	}
	if err != nil {
		return notes.attach(t.env.errorResult(err)), nil
	}
	if text, ok := out.(string); ok {
		return notes.attach(text), nil
	}
	s, err := resultAPI.MarshalToString(out)
	if err != nil {
		return t.env.errorResult(engine.BackendError("encode the result", err)), nil
	}
	return notes.attach(s), nil
}

// argumentAllowance covers every argument but the plan body: name, title, status, author,
// path, goal and note are each capped at a few KiB, even fully escaped.
const argumentAllowance = 64 << 10

// maxArgumentBytes is the longest argument text that can still hold an acceptable call. A
// JSON string spends at most 6 bytes on one byte of content (\u00XX), so anything longer
// than 6 × the content cap plus the allowance is refused before decoding, which would
// otherwise copy an arbitrarily large argument only to reject it.
func maxArgumentBytes(maxContent int) int {
	if maxContent > (math.MaxInt-argumentAllowance)/6 {
		return math.MaxInt
	}
	return 6*maxContent + argumentAllowance
}

func newPlanTool(spec toolSpec, env *toolEnv, name string) *planTool {
	params := make(map[string]*schema.ParameterInfo, len(spec.params))
	for _, p := range spec.params {
		params[p.name] = &schema.ParameterInfo{Type: p.typ, Required: p.required, Desc: env.texts[spec.name+"."+p.name]}
	}
	// Tools without parameters still declare an empty object: some providers reject a
	// function without "parameters".
	info := &schema.ToolInfo{Name: name, Desc: env.texts[spec.name], ParamsOneOf: schema.NewParamsOneOfByParams(params)}
	return &planTool{spec: spec, env: env, info: info}
}

// toolSpecs lists every tool: its default name, its arguments and what runs it.
func toolSpecs() []toolSpec {
	return []toolSpec{
		{ToolWritePlan, []param{pName, pContent, pTitle, pAuthor, pStatus, pRevision}, runWritePlan},
		{ToolReadPlan, []param{pName, pSince}, runReadPlan},
		{ToolListPlans, []param{pLimit, pCursor, pStatusFilter}, runListPlans},
		{ToolDeletePlan, []param{pName, pRevision}, runDeletePlan},
		{ToolSetPlanStatus, []param{pName, pNewStatus, pRevision}, runSetPlanStatus},
		{ToolGetPlanStatus, []param{pName}, runGetPlanStatus},
		{ToolUpdatePlanStep, []param{pName, pStep, pStepState, pNote, pEvidence, pRevision, pTakeover}, runUpdatePlanStep},
		{ToolExportPlanToFile, []param{pName, pPath}, runExportPlanToFile},
		{ToolUpdatePlanFromFile, []param{pName, pPath, pTitle, pAuthor, pStatus, pRevision}, runUpdatePlanFromFile},
		{ToolPlanTemplate, []param{pGoal}, runPlanTemplate},
		{ToolRequestPlanApproval, []param{pName, pMessage}, runRequestPlanApproval},
	}
}
