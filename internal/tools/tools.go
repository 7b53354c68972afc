package tools

import (
	"context"
	"math"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

// PlanTool adapts a ToolSpec to Eino. Its InvokableRun returns no Go error other than the
// Eino interrupt of request_plan_approval: every failure a model can cause, and every storage
// failure, is a JSON error result, so the agent run goes on and the model can react.
type PlanTool struct {
	Spec ToolSpec
	env  *ToolEnv
	info *schema.ToolInfo
}

var _ tool.InvokableTool = (*PlanTool)(nil)

func (t *PlanTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *PlanTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	if limit := maxArgumentBytes(t.env.Store.ContentCap()); len(argumentsInJSON) > limit {
		// Only a plan body can make a right call this large: the advice is about the plan
		// where the tool takes one, and about the arguments elsewhere.
		tooLarge := document.Error{Code: document.CodeTooLarge, Reason: document.ReasonArgsTooLarge, Size: int64(len(argumentsInJSON)), Limit: int64(t.env.Store.ContentCap())}
		if _, body := paramNamed(t.Spec, pContent.Name); !body {
			tooLarge.Reason, tooLarge.Limit = document.ReasonArgsOverLimit, int64(limit)
		}
		return t.env.ErrorResult(document.Fail(tooLarge)), nil
	}
	if t.env.Lean && !LeanTools[t.Spec.Name] {
		return t.env.ErrorResult(document.Fail(document.Error{Code: document.CodeToolNotAvailable, Reason: document.ReasonLeanWorker})), nil
	}
	a, notes, err := decodeCall(t.Spec, t.env.Texts, argumentsInJSON)
	if err != nil {
		return t.env.ErrorResult(err), nil
	}
	if t.env.Listens != nil && t.env.Listens(ctx) {
		ctx = engine.WithChangeSink(ctx, t.env.Sink) // otherwise no Change is computed at all
	}
	ctx = document.WithAgentActor(ctx, t.env.Agent(ctx))
	if t.env.RequireApproval {
		ctx = document.WithStepGate(ctx) // no step moves on a plan not approved, by any tool
	}
	out, err := t.Spec.run(ctx, t.env, a)
	if ie, ok := asInterrupt(err); ok {
		return "", ie // Eino pauses the run here; the call is run again on resume
	}
	if err != nil {
		return notes.attach(t.env.ErrorResult(err)), nil
	}
	if text, ok := out.(string); ok {
		return notes.attach(text), nil
	}
	s, err := ResultAPI.MarshalToString(out)
	if err != nil {
		return t.env.ErrorResult(engine.BackendError("encode the result", err)), nil
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

func NewPlanTool(spec ToolSpec, env *ToolEnv, name string) *PlanTool {
	params := make(map[string]*schema.ParameterInfo, len(spec.Params))
	for _, p := range spec.Params {
		if env.hidesParam(spec.Name, p) {
			continue
		}
		params[p.Name] = &schema.ParameterInfo{Type: p.typ, Required: p.required, Desc: env.Texts[spec.Name+"."+p.Name]}
	}
	// Tools without parameters still declare an empty object: some providers reject a
	// function without "parameters".
	info := &schema.ToolInfo{Name: name, Desc: env.Texts[spec.Name], ParamsOneOf: schema.NewParamsOneOfByParams(params)}
	return &PlanTool{Spec: spec, env: env, info: info}
}

// ToolSpecs lists every tool: its default name, its arguments and what runs it.
func ToolSpecs() []ToolSpec {
	return []ToolSpec{
		{ToolWritePlan, []param{pName, pContent, pTitle, pAuthor, pStatus, pRevision}, runWritePlan},
		{ToolReadPlan, []param{pName, pSince}, runReadPlan},
		{ToolListPlans, []param{pLimit, pCursor, pStatusFilter}, runListPlans},
		{ToolDeletePlan, []param{pName, pRevision}, runDeletePlan},
		{ToolSetPlanStatus, []param{pName, pNewStatus, pRevision}, runSetPlanStatus},
		{ToolGetPlanStatus, []param{pName}, runGetPlanStatus},
		{ToolUpdatePlanStep, []param{pStepPlan, pStep, pStepState, pNote, pEvidence, pRevision, pTakeover, pNext}, runUpdatePlanStep},
		{ToolExportPlanToFile, []param{pName, pPath}, runExportPlanToFile},
		{ToolUpdatePlanFromFile, []param{pName, pPath, pTitle, pAuthor, pStatus, pRevision}, runUpdatePlanFromFile},
		{ToolPlanTemplate, []param{pGoal}, runPlanTemplate},
		{ToolRequestPlanApproval, []param{pName, pMessage}, runRequestPlanApproval},
	}
}
