package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/plantask"
	"github.com/cloudwego/eino/components/tool"
	"github.com/tiktoken-go/tokenizer"

	"github.com/einoplan/plan"
)

// counter counts tokens with the two OpenAI encodings in use: o200k_base (GPT-4o and
// later) and cl100k_base (GPT-4, GPT-3.5).
type counter struct {
	o200k, cl100k tokenizer.Codec
}

func newCounter() (*counter, error) {
	o, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, err
	}
	cl, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return nil, err
	}
	return &counter{o200k: o, cl100k: cl}, nil
}

func (c *counter) o(s string) int  { return count(c.o200k, s) }
func (c *counter) cl(s string) int { return count(c.cl100k, s) }

func count(codec tokenizer.Codec, s string) int {
	n, err := codec.Count(s)
	if err != nil {
		panic(fmt.Sprintf("tokenizer %s: %v", codec.GetName(), err))
	}
	return n
}

// functionJSON renders a tool as the OpenAI function definition a model call carries,
// compact, from its live ToolInfo.
func functionJSON(ctx context.Context, bt tool.BaseTool) (name, def string, err error) {
	info, err := bt.Info(ctx)
	if err != nil {
		return "", "", err
	}
	fn := map[string]any{"name": info.Name, "description": info.Desc}
	if info.ParamsOneOf != nil {
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			return "", "", err
		}
		fn["parameters"] = js
	}
	def, err = sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
	return info.Name, def, err
}

// defSet is what a middleware adds to every model call: tool definitions, in the order
// the middleware offers them, and instruction text.
type defSet struct {
	names       []string
	defs        map[string]string
	instruction string
}

func defsFrom(ctx context.Context, mw adk.ChatModelAgentMiddleware) (defSet, error) {
	ctx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	if err != nil {
		return defSet{}, err
	}
	set := defSet{defs: map[string]string{}, instruction: rc.Instruction}
	for _, bt := range rc.Tools {
		name, def, err := functionJSON(ctx, bt)
		if err != nil {
			return defSet{}, err
		}
		set.names = append(set.names, name)
		set.defs[name] = def
	}
	return set, nil
}

// ourDefs returns this library's full tool set: a Workspace is set so the file tools
// appear, the run is an orchestrator's so plan_template appears, and the digest is off.
func ourDefs(ctx context.Context, lang adk.Language) (defSet, error) {
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), Workspace: plan.NewMemoryBackend(),
		Language: lang, Digest: plan.DigestConfig{Disabled: true}})
	if err != nil {
		return defSet{}, err
	}
	return defsFrom(ctx, mw)
}

// plantaskDefs returns Eino plantask's four tools. Their texts follow Eino's process-wide
// language, which is restored to English afterwards.
func plantaskDefs(ctx context.Context, lang adk.Language) (defSet, error) {
	if err := adk.SetLanguage(lang); err != nil {
		return defSet{}, err
	}
	defer func() { _ = adk.SetLanguage(adk.LanguageEnglish) }()
	mw, err := plantask.New(ctx, &plantask.Config{Backend: taskBackend{plan.NewMemoryBackend()}, BaseDir: "/tasks"})
	if err != nil {
		return defSet{}, err
	}
	return defsFrom(ctx, mw)
}

// eightTools are the tools named as in docker-agent's plan toolset.
var eightTools = []string{plan.ToolWritePlan, plan.ToolReadPlan, plan.ToolListPlans, plan.ToolDeletePlan,
	plan.ToolSetPlanStatus, plan.ToolGetPlanStatus, plan.ToolExportPlanToFile, plan.ToolUpdatePlanFromFile}

type sizes struct{ bytes, o200k, cl100k int }

func (c *counter) measure(s string) sizes { return sizes{len(s), c.o(s), c.cl(s)} }

func (s *sizes) plus(o sizes) { s.bytes += o.bytes; s.o200k += o.o200k; s.cl100k += o.cl100k }

func (s sizes) cells() []string { return []string{fmtInt(s.bytes), fmtInt(s.o200k), fmtInt(s.cl100k)} }

var defHeader = []string{"Definition", "EN bytes", "EN o200k", "EN cl100k", "ZH bytes", "ZH o200k", "ZH cl100k"}

// defsTable measures one tool set in both languages; it returns the table and the totals.
func defsTable(c *counter, title string, en, zh defSet) (*table, sizes, sizes) {
	t := newTable(title, defHeader...)
	var totEN, totZH sizes
	row := func(label, enText, zhText string) {
		e, z := c.measure(enText), c.measure(zhText)
		totEN.plus(e)
		totZH.plus(z)
		t.add(append(append([]string{label}, e.cells()...), z.cells()...)...)
	}
	for _, name := range en.names {
		row(name, en.defs[name], zh.defs[name])
	}
	instr := "instruction"
	if en.instruction == "" && zh.instruction == "" {
		instr = "instruction (none added)"
	}
	row(instr, en.instruction, zh.instruction)
	t.add(append(append([]string{fmt.Sprintf("Total (%d tools + instruction)", len(en.names))}, totEN.cells()...), totZH.cells()...)...)
	return t, totEN, totZH
}

// toolDefinitionTables is table 1: what each middleware adds to every model call.
func toolDefinitionTables(ctx context.Context, c *counter) ([]*table, error) {
	ourEN, err := ourDefs(ctx, adk.LanguageEnglish)
	if err != nil {
		return nil, err
	}
	ourZH, err := ourDefs(ctx, adk.LanguageChinese)
	if err != nil {
		return nil, err
	}
	ptEN, err := plantaskDefs(ctx, adk.LanguageEnglish)
	if err != nil {
		return nil, err
	}
	ptZH, err := plantaskDefs(ctx, adk.LanguageChinese)
	if err != nil {
		return nil, err
	}
	if strings.Join(ourEN.names, ",") != strings.Join(ourZH.names, ",") || strings.Join(ptEN.names, ",") != strings.Join(ptZH.names, ",") {
		return nil, fmt.Errorf("tool sets differ between languages")
	}

	ours, ourTotEN, ourTotZH := defsTable(c, "1a. Tool definitions: plan (this library)", ourEN, ourZH)
	ours.note("Each tool is its OpenAI function definition (`{\"type\":\"function\",\"function\":{name, description, parameters}}`, compact JSON) rendered from the live ToolInfo after BeforeAgent.")
	ours.note("Config: MemoryBackend, Workspace set (so export_plan_to_file and update_plan_from_file appear), orchestrator run (so plan_template and its instruction line appear), digest disabled. ZH is `plan.Config{Language: adk.LanguageChinese}`.")
	pt, ptTotEN, ptTotZH := defsTable(c, "1b. Tool definitions: Eino plantask (v0.9.13)", ptEN, ptZH)
	pt.note("Measured the same way from the ToolInfos of plantask's BeforeAgent; ZH via `adk.SetLanguage(adk.LanguageChinese)`. plantask adds no instruction text.")

	var eightEN, eightZH sizes
	for _, name := range eightTools {
		eightEN.plus(c.measure(ourEN.defs[name]))
		eightZH.plus(c.measure(ourZH.defs[name]))
	}
	eightEN.plus(c.measure(ourEN.instruction))
	eightZH.plus(c.measure(ourZH.instruction))

	side := newTable("1c. Per-call cost side by side",
		"Tool set", "Tools", "EN bytes", "EN o200k", "EN cl100k", "ZH bytes", "ZH o200k", "ZH cl100k")
	side.add(append(append([]string{"plan: all tools + instruction", fmt.Sprint(len(ourEN.names))}, ourTotEN.cells()...), ourTotZH.cells()...)...)
	side.add(append(append([]string{"plan: the eight docker-agent-named tools + instruction", "8"}, eightEN.cells()...), eightZH.cells()...)...)
	side.add(append(append([]string{"Eino plantask", fmt.Sprint(len(ptEN.names))}, ptTotEN.cells()...), ptTotZH.cells()...)...)
	side.add("docker-agent v1.91 plan toolset, tools only (reference)", "8", "~5,100", "~1,076", "—", "—", "—", "—")
	side.add("docker-agent v1.91 plan toolset, instruction (reference)", "—", "~1,900", "—", "—", "—", "—", "—")
	side.note("The docker-agent rows are fixed reference figures quoted for comparison, not measured by this program.")
	side.note("plan's eight docker-agent-named tools: %s; the instruction row of 1a is included.", strings.Join(eightTools, ", "))
	return []*table{ours, pt, side}, nil
}
