package plan

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/patchtoolcalls"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/agentrun"
	"github.com/einoplan/plan/internal/tools"
)

// PatchedToolResultGenerator is a ready patchtoolcalls.Config.PatchedToolResultGenerator for
// agents with this configuration: Eino's patchtoolcalls middleware calls it for every tool
// call left without a result, as when a run paused by request_plan_approval is abandoned
// and a new run starts on its history. An abandoned request_plan_approval (under its name in
// this configuration) gets a not_approved error result saying no decision came and how to
// ask again; any other tool gets a note that it did not finish, in the model's language
// (Language, or the one adk.SetLanguage chose).
//
//	patched, _ := patchtoolcalls.New(ctx, &patchtoolcalls.Config{
//		PatchedToolResultGenerator: cfg.PatchedToolResultGenerator})
func (c *Config) PatchedToolResultGenerator(_ context.Context, toolName, _ string, arg *schema.ToolArgument) (*patchtoolcalls.PatchedToolResult, error) {
	lang := c.Language
	if lang != adk.LanguageChinese {
		lang = agentrun.EinoLanguage()
	}
	names, err := tools.PlanToolNames(c.ToolNames, c.ToolPrefix)
	if err != nil {
		names = map[string]string{ToolRequestPlanApproval: ToolRequestPlanApproval}
	}
	texts, err := tools.RenameTools(modelTexts[lang].Full, names)
	if err != nil {
		texts = modelTexts[lang].Full
	}
	if toolName != names[ToolRequestPlanApproval] {
		return &patchtoolcalls.PatchedToolResult{Content: strings.ReplaceAll(texts["patched.other"], "{tool}", toolName)}, nil
	}
	var a struct {
		Name string `json:"name"`
	}
	if arg != nil {
		_ = json.Unmarshal([]byte(arg.Text), &a)
	}
	msg := strings.ReplaceAll(texts["patched.approval"], "{name}", a.Name)
	s, err := tools.ResultAPI.MarshalToString(map[string]tools.ErrorBody{"error": {Code: CodeNotApproved, Message: msg}})
	if err != nil {
		return nil, err
	}
	return &patchtoolcalls.PatchedToolResult{Content: s}, nil
}
