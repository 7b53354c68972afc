package plan

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
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

// maxGoalBytes caps plan_template's goal.
const maxGoalBytes = 4 << 10

// maxTemplateNames caps the existing names plan_template lists.
const maxTemplateNames = 50

// toolEnv is what every tool call works with.
type toolEnv struct {
	store     *Store
	workspace Workspace
	texts     map[string]string
	template  string
	agentName string                        // author of the plans this agent creates
	sink      func(context.Context, Change) // hears the changes made through these tools
	// guardedDir is the Store's folder when the Workspace is the same storage: file tools
	// refuse paths inside it, so plans change only through the Store. "" otherwise.
	guardedDir string
}

type toolSpec struct {
	name   string
	params []param
	run    func(ctx context.Context, env *toolEnv, a args) (any, error)
}

// planTool adapts a toolSpec to Eino. Its InvokableRun never returns a Go error: every
// failure a model can cause, and every storage failure, is a JSON error result, so the
// agent run goes on and the model can react.
type planTool struct {
	spec toolSpec
	env  *toolEnv
	info *schema.ToolInfo
}

var _ tool.InvokableTool = (*planTool)(nil)

func (t *planTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *planTool) InvokableRun(ctx context.Context, argumentsInJSON string, _ ...tool.Option) (string, error) {
	if limit := maxArgumentBytes(t.env.store.MaxContentBytes()); len(argumentsInJSON) > limit {
		return t.env.errorResult(fail(Error{Code: CodeTooLarge, Reason: ReasonArgsTooLarge,
			Size: int64(len(argumentsInJSON)), Limit: int64(t.env.store.MaxContentBytes())})), nil
	}
	a, err := decodeArgs(argumentsInJSON)
	if err != nil {
		return t.env.errorResult(err), nil
	}
	ctx = withChangeSink(ctx, t.env.sink)
	out, err := t.spec.run(ctx, t.env, a)
	if err != nil {
		return t.env.errorResult(err), nil
	}
	if text, ok := out.(string); ok {
		return text, nil
	}
	s, err := resultAPI.MarshalToString(out)
	if err != nil {
		return t.env.errorResult(backendError("encode the result", err)), nil
	}
	return s, nil
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

// Results. Field names are part of the tool contract.

type writeResult struct {
	Name     string   `json:"name"`
	Revision int64    `json:"revision"`
	Title    string   `json:"title"`
	Status   string   `json:"status"`
	Progress Progress `json:"progress"`
}

func newWriteResult(p *Plan) writeResult {
	return writeResult{Name: p.Name, Revision: p.Revision, Title: p.Title, Status: p.Status,
		Progress: ComputeProgress(ParseSteps(p.Content))}
}

type readResult struct {
	Name        string    `json:"name"`
	Title       string    `json:"title"`
	Author      string    `json:"author"`
	Status      string    `json:"status"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updated_at"`
	Progress    Progress  `json:"progress"`
	CurrentStep *Step     `json:"current_step,omitempty"`
	Repaired    bool      `json:"repaired,omitempty"`
	Content     string    `json:"content"`
}

type statusResult struct {
	Name        string    `json:"name"`
	Status      string    `json:"status"`
	Revision    int64     `json:"revision"`
	Progress    *Progress `json:"progress,omitempty"`
	CurrentStep *Step     `json:"current_step,omitempty"`
}

type deleteResult struct {
	Deleted  string `json:"deleted"`
	Revision int64  `json:"revision,omitempty"`
}

type exportResult struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Revision int64  `json:"revision"`
	Bytes    int    `json:"bytes"`
}

// stepResult is what update_plan_step answers: no body, not even the step's own text, which
// the model just chose. Progress has the shape it has in every other result.
type stepResult struct {
	Revision int64     `json:"revision"`
	Step     int       `json:"step"`
	Status   StepState `json:"status"`
	Progress Progress  `json:"progress"`
	NextStep *nextStep `json:"next_step,omitempty"`
}

type nextStep struct {
	Number int    `json:"number"`
	Text   string `json:"text"`
}

func toolSpecs() []toolSpec {
	return []toolSpec{
		{ToolWritePlan, []param{pName, pContent, pTitle, pAuthor, pStatus, pRevision}, runWritePlan},
		{ToolReadPlan, []param{pName}, runReadPlan},
		{ToolListPlans, []param{pLimit, pCursor, pStatusFilter}, runListPlans},
		{ToolDeletePlan, []param{pName, pRevision}, runDeletePlan},
		{ToolSetPlanStatus, []param{pName, pNewStatus, pRevision}, runSetPlanStatus},
		{ToolGetPlanStatus, []param{pName}, runGetPlanStatus},
		{ToolUpdatePlanStep, []param{pName, pStep, pStepState, pNote, pRevision}, runUpdatePlanStep},
		{ToolExportPlanToFile, []param{pName, pPath}, runExportPlanToFile},
		{ToolUpdatePlanFromFile, []param{pName, pPath, pTitle, pAuthor, pStatus, pRevision}, runUpdatePlanFromFile},
		{ToolPlanTemplate, []param{pGoal}, runPlanTemplate},
	}
}

// fileTools are offered only with a Workspace.
var fileTools = map[string]bool{ToolExportPlanToFile: true, ToolUpdatePlanFromFile: true}

func runWritePlan(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, content := f.str(pName), f.str(pContent)
	u := f.update(name, env)
	if f.err != nil {
		return nil, f.err
	}
	u.Content = &content
	p, err := env.store.Put(ctx, u)
	if err != nil {
		return nil, err
	}
	return newWriteResult(p), nil
}

func runReadPlan(ctx context.Context, env *toolEnv, a args) (any, error) {
	p, err := getNamed(ctx, env, a)
	if err != nil {
		return nil, err
	}
	sum := p.Summarize()
	return readResult{Name: p.Name, Title: p.Title, Author: p.Author, Status: p.Status, Revision: p.Revision,
		UpdatedAt: p.UpdatedAt, Progress: sum.Progress, CurrentStep: sum.CurrentStep, Repaired: p.Repaired, Content: p.Content}, nil
}

// getNamed loads the plan a call names.
func getNamed(ctx context.Context, env *toolEnv, a args) (*Plan, error) {
	name, err := a.str(pName)
	if err != nil {
		return nil, err
	}
	return env.store.Get(ctx, name)
}

func runDeletePlan(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, rev := f.str(pName), f.integer(pRevision)
	if f.err != nil {
		return nil, f.err
	}
	last, err := env.store.Delete(ctx, name, rev)
	if err != nil {
		return nil, err
	}
	return deleteResult{Deleted: name, Revision: last}, nil
}

func runSetPlanStatus(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, status, rev := f.str(pName), f.str(pNewStatus), f.integer(pRevision)
	if f.err != nil {
		return nil, f.err
	}
	p, err := env.store.SetStatus(ctx, name, status, rev)
	if err != nil {
		return nil, err
	}
	return statusResult{Name: p.Name, Status: p.Status, Revision: p.Revision}, nil
}

func runGetPlanStatus(ctx context.Context, env *toolEnv, a args) (any, error) {
	p, err := getNamed(ctx, env, a)
	if err != nil {
		return nil, err
	}
	sum := p.Summarize()
	return statusResult{Name: p.Name, Status: p.Status, Revision: p.Revision, Progress: &sum.Progress, CurrentStep: sum.CurrentStep}, nil
}

func runUpdatePlanStep(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, number, stateText := f.str(pName), f.integer(pStep), f.str(pStepState)
	note, rev := f.str(pNote), f.integer(pRevision)
	if f.err != nil {
		return nil, f.err
	}
	state, err := ParseStepState(stateText)
	if err != nil {
		return nil, err
	}
	if *number < 1 || *number > 1<<20 {
		return nil, fail(Error{Code: CodeInvalidArgument, Reason: ReasonStepNumber, Name: name, Field: pStep.name, Step: int(min(max(*number, -1), 1<<21))})
	}
	p, step, err := env.store.UpdateStep(ctx, name, int(*number), state, note, rev)
	if err != nil {
		return nil, err
	}
	sum := p.Summarize()
	out := stepResult{Revision: p.Revision, Step: step.Number, Status: step.State, Progress: sum.Progress}
	if cur := sum.CurrentStep; cur != nil {
		out.NextStep = &nextStep{Number: cur.Number, Text: cur.Text}
	}
	return out, nil
}

func runExportPlanToFile(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	if f.err != nil {
		return nil, f.err
	}
	p, err := env.store.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, canceled(ctx)
	}
	if err := env.workspace.Write(ctx, &WriteRequest{FilePath: path, Content: p.Content}); err != nil {
		e := fail(Error{Code: CodeInvalidArgument, Reason: ReasonWorkspaceWrite, Path: path})
		e.Err = err
		return nil, e
	}
	return exportResult{Name: name, Path: path, Revision: p.Revision, Bytes: len(p.Content)}, nil
}

func runUpdatePlanFromFile(ctx context.Context, env *toolEnv, a args) (any, error) {
	f := a.fields()
	name, path := f.str(pName), f.path(env)
	u := f.update(name, env)
	if f.err != nil {
		return nil, f.err
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	content, err := readWorkspaceFile(ctx, env.workspace, path, env.store.MaxContentBytes())
	if err != nil {
		return nil, err
	}
	u.Content = &content
	p, err := env.store.Put(ctx, u)
	if err != nil {
		return nil, err
	}
	return newWriteResult(p), nil
}

// readWorkspaceFile reads the whole file, refusing anything over limit bytes. It returns when
// ctx ends even if the Workspace does not (a named pipe, a hung remote): the read is then
// abandoned to finish on its own.
func readWorkspaceFile(ctx context.Context, ws Workspace, path string, limit int) (string, error) {
	type result struct {
		content string
		err     error
	}
	done := make(chan result, 1)
	go func() {
		content, err := readBounded(ctx, ws, path, int64(limit))
		done <- result{content, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return "", canceled(ctx)
	}
	switch err := r.err; {
	case err == nil:
	case ctx.Err() != nil:
		return "", canceled(ctx)
	case isNotExist(err):
		return "", fail(Error{Code: CodeNotFound, Reason: ReasonNoFile, Path: path})
	default:
		e := fail(Error{Code: CodeInvalidArgument, Reason: ReasonWorkspaceRead, Path: path})
		e.Err = err
		return "", e
	}
	if len(r.content) > limit {
		return "", fail(Error{Code: CodeTooLarge, Reason: ReasonFileTooLarge, Path: path, Size: int64(len(r.content)), Limit: int64(limit)})
	}
	return r.content, nil
}

// guardedWorkspaceDir returns the Store's folder when ws reaches the same storage as the
// Store's Backend (the same value, one found through Unwrap, or a LocalBackend on the same
// root), and "" otherwise.
func guardedWorkspaceDir(s *Store, ws Workspace) string {
	var inner any = ws
	if b, ok := ws.(Backend); ok {
		inner = innermost(b)
	}
	wk, ok1 := keyOf(inner)
	sk, ok2 := keyOf(innermost(s.backend))
	if ok1 && ok2 && wk == sk {
		return s.dir
	}
	return ""
}

func shortError(err error) string {
	msg := err.Error()
	if len(msg) > 200 {
		msg = truncateUTF8(msg, 200) + "..."
	}
	return msg
}

func runPlanTemplate(ctx context.Context, env *toolEnv, a args) (any, error) {
	if roleFrom(ctx) == RoleSubAgent {
		return nil, fail(Error{Code: CodeToolNotAvailable, Reason: ReasonOrchestratorOnly})
	}
	goal, err := a.str(pGoal)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(goal) == "" || len(goal) > maxGoalBytes || !utf8.ValidString(goal) {
		return nil, fail(Error{Code: CodeInvalidArgument, Reason: ReasonGoalInvalid, Field: pGoal.name, Limit: maxGoalBytes})
	}
	listing, err := env.store.List(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(listing.Plans)+len(listing.Warnings))
	for _, p := range listing.Plans {
		names = append(names, p.Name)
	}
	for _, w := range listing.Warnings {
		names = append(names, w.Name)
	}
	sort.Strings(names)
	existing := env.texts["template.none"]
	if len(names) > 0 {
		existing = strings.Join(names[:min(len(names), maxTemplateNames)], ", ")
	}
	if more := len(names) - maxTemplateNames; more > 0 {
		existing += " " + strings.ReplaceAll(env.texts["template.more"], "{n}", itoa(more))
	}
	return fmt.Sprintf("%s\n%s\n%s\n\n%s %s\n\n%s\n", strings.TrimRight(env.template, "\n"),
		env.texts["template.goal"], goal, env.texts["template.naming"], existing, env.texts["template.finish"]), nil
}
