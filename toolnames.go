package plan

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/cloudwego/eino/components/tool"
)

// defaultToolNames are the names ToolNames may rename.
var defaultToolNames = []string{ToolWritePlan, ToolReadPlan, ToolListPlans, ToolDeletePlan, ToolSetPlanStatus,
	ToolGetPlanStatus, ToolUpdatePlanStep, ToolExportPlanToFile, ToolUpdatePlanFromFile, ToolPlanTemplate,
	ToolRequestPlanApproval}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func toolName(names map[string]string, name string) string {
	if n, ok := names[name]; ok {
		return n
	}
	return name
}

// renameTools checks a ToolNames map and returns texts with every default tool name, as a
// whole word, replaced by its new name.
func renameTools(texts map[string]string, names map[string]string) (map[string]string, error) {
	if len(names) == 0 {
		return texts, nil
	}
	known := map[string]bool{}
	for _, n := range defaultToolNames {
		known[n] = true
	}
	final := map[string]string{}
	var renamed []string
	for _, n := range defaultToolNames {
		final[toolName(names, n)] = n
	}
	for from, to := range names {
		if !known[from] {
			return nil, fmt.Errorf("plan: ToolNames renames %q, which is not a plan tool", from)
		}
		if !toolNamePattern.MatchString(to) {
			return nil, fmt.Errorf("plan: ToolNames gives %q the name %q: use 1-64 letters, digits, '_' or '-'", from, to)
		}
		if final[to] != from {
			return nil, fmt.Errorf("plan: ToolNames gives two plan tools the name %q", to)
		}
		if from != to {
			renamed = append(renamed, regexp.QuoteMeta(from))
		}
	}
	if len(renamed) == 0 {
		return texts, nil
	}
	sort.Strings(renamed)
	word := regexp.MustCompile(`\b(` + strings.Join(renamed, "|") + `)\b`)
	out := make(map[string]string, len(texts))
	for k, v := range texts {
		out[k] = word.ReplaceAllStringFunc(v, func(n string) string { return names[n] })
	}
	return out, nil
}

// checkUniqueToolNames refuses an agent that would have two tools of one name: the model
// could call only one of them, silently.
func checkUniqueToolNames(ctx context.Context, tools []tool.BaseTool) error {
	seen := make(map[string]bool, len(tools))
	for _, t := range tools {
		info, err := t.Info(ctx)
		if err != nil || info == nil {
			continue
		}
		if seen[info.Name] {
			return fmt.Errorf("plan: the agent would get two tools named %q; when an agent has two plan middlewares, "+
				"give one of them Config.ToolNames (e.g. {%q: %q})", info.Name, info.Name, "my_"+info.Name)
		}
		seen[info.Name] = true
	}
	return nil
}
