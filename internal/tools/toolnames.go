package tools

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"
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

// ToolRequestPlanApproval asks a person to approve a plan. It is offered only with
// Config.RequireApproval, and only to the orchestrator.
const ToolRequestPlanApproval = "request_plan_approval"

// DefaultToolNames are the names ToolNames may rename.
var DefaultToolNames = []string{ToolWritePlan, ToolReadPlan, ToolListPlans, ToolDeletePlan, ToolSetPlanStatus,
	ToolGetPlanStatus, ToolUpdatePlanStep, ToolExportPlanToFile, ToolUpdatePlanFromFile, ToolPlanTemplate,
	ToolRequestPlanApproval}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// PlanToolNames returns the name the model sees for every plan tool, by default name:
// ToolNames' name, else ToolPrefix and the default name. It refuses a name that is not a
// plan tool's, a name a model API would not accept, and two plan tools of one name.
func PlanToolNames(names map[string]string, prefix string) (map[string]string, error) {
	known := map[string]bool{}
	for _, n := range DefaultToolNames {
		known[n] = true
	}
	var problems []string
	for from := range names {
		if !known[from] {
			problems = append(problems, fmt.Sprintf("ToolNames renames %q, which is not a plan tool", from))
		}
	}
	out := make(map[string]string, len(DefaultToolNames))
	owner := map[string]string{}
	for _, n := range DefaultToolNames {
		to, ok := names[n]
		if !ok {
			to = prefix + n
		}
		if !toolNamePattern.MatchString(to) {
			problems = append(problems, fmt.Sprintf("plan tool %q would be named %q: use 1-64 letters, digits, '_' or '-'", n, to))
		}
		if other, taken := owner[to]; taken {
			problems = append(problems, fmt.Sprintf("plan tools %q and %q would both be named %q", other, n, to))
		}
		owner[to] = n
		out[n] = to
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, fmt.Errorf("plan: %s", strings.Join(problems, "; "))
	}
	return out, nil
}

// RenameTools returns texts with every default tool name, as a whole word, replaced by the
// name the model sees.
func RenameTools(texts map[string]string, names map[string]string) (map[string]string, error) {
	var renamed []string
	for from, to := range names {
		if from != to {
			renamed = append(renamed, regexp.QuoteMeta(from))
		}
	}
	if len(renamed) == 0 {
		return texts, nil
	}
	sort.Strings(renamed)
	word, err := regexp.Compile(`\b(` + strings.Join(renamed, "|") + `)\b`)
	if err != nil {
		return nil, fmt.Errorf("plan: renaming tools: %w", err)
	}
	out := make(map[string]string, len(texts))
	for k, v := range texts {
		out[k] = word.ReplaceAllStringFunc(v, func(n string) string { return names[n] })
	}
	return out, nil
}

// CheckPlanSet refuses a Config.PlanSet that cannot stand in a heading.
func CheckPlanSet(set string) error {
	if len(set) > 64 || !utf8.ValidString(set) || strings.ContainsAny(set, "\r\n") {
		return fmt.Errorf("plan: PlanSet %q: use one line of at most 64 bytes", set)
	}
	return nil
}

// WithPlanSet names the plan set after the first heading of text ("## Plans" becomes
// "## Plans (team plans)"), so two plan middlewares on one agent give two sections the
// model tells apart.
func WithPlanSet(text string, texts map[string]string, set string) string {
	if strings.TrimSpace(set) == "" {
		return text
	}
	i := strings.Index(text, "## ")
	if i < 0 {
		return text
	}
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		end = len(text) - i
	}
	end += i
	return text[:end] + strings.ReplaceAll(texts["instruction.set"], "{set}", strings.TrimSpace(set)) + text[end:]
}
