package plan

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/cloudwego/eino/components/tool"
)

// defaultToolNames are the names ToolNames may rename.
var defaultToolNames = []string{ToolWritePlan, ToolReadPlan, ToolListPlans, ToolDeletePlan, ToolSetPlanStatus,
	ToolGetPlanStatus, ToolUpdatePlanStep, ToolExportPlanToFile, ToolUpdatePlanFromFile, ToolPlanTemplate,
	ToolRequestPlanApproval}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// planToolNames returns the name the model sees for every plan tool, by default name:
// ToolNames' name, else ToolPrefix and the default name. It refuses a name that is not a
// plan tool's, a name a model API would not accept, and two plan tools of one name.
func planToolNames(names map[string]string, prefix string) (map[string]string, error) {
	known := map[string]bool{}
	for _, n := range defaultToolNames {
		known[n] = true
	}
	var problems []string
	for from := range names {
		if !known[from] {
			problems = append(problems, fmt.Sprintf("ToolNames renames %q, which is not a plan tool", from))
		}
	}
	out := make(map[string]string, len(defaultToolNames))
	owner := map[string]string{}
	for _, n := range defaultToolNames {
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

// renameTools returns texts with every default tool name, as a whole word, replaced by the
// name the model sees.
func renameTools(texts map[string]string, names map[string]string) (map[string]string, error) {
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

// checkPlanSet refuses a Config.PlanSet that cannot stand in a heading.
func checkPlanSet(set string) error {
	if len(set) > 64 || !utf8.ValidString(set) || strings.ContainsAny(set, "\r\n") {
		return fmt.Errorf("plan: PlanSet %q: use one line of at most 64 bytes", set)
	}
	return nil
}

// withPlanSet names the plan set after the first heading of text ("## Plans" becomes
// "## Plans (team plans)"), so two plan middlewares on one agent give two sections the
// model tells apart.
func withPlanSet(text string, texts map[string]string, set string) string {
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

// checkUniqueToolNames refuses an agent that would have two tools of one name, since the
// model could call only one of them, silently. It names every clash at once, and advises
// renaming only this middleware's own plan tools (never another tool, which ToolNames
// cannot rename).
func (m *middleware[M]) checkUniqueToolNames(ctx context.Context, tools []tool.BaseTool) error {
	ours := map[string]string{} // the name the model sees → the default name
	for n, to := range m.names {
		if fileTools[n] && m.cfg.Workspace == nil || n == ToolRequestPlanApproval && !m.cfg.RequireApproval {
			continue
		}
		ours[to] = n
	}
	count := make(map[string]int, len(tools))
	var order []string
	for _, t := range tools {
		info, err := t.Info(ctx)
		if err != nil || info == nil {
			continue
		}
		if count[info.Name] == 0 {
			order = append(order, info.Name)
		}
		count[info.Name]++
	}
	var clashes []string
	advice := map[string]string{}
	for _, name := range order {
		if count[name] < 2 {
			continue
		}
		clashes = append(clashes, fmt.Sprintf("%q", name))
		if def, ok := ours[name]; ok {
			advice[def] = "my_" + def
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	msg := fmt.Sprintf("plan: the agent would get two tools named %s", strings.Join(clashes, ", "))
	if len(advice) == 0 {
		return fmt.Errorf("%s; none is a plan tool of this middleware: rename the other tools", msg)
	}
	keys := make([]string, 0, len(advice))
	for k := range advice {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pairs := make([]string, len(keys))
	for i, k := range keys {
		pairs[i] = fmt.Sprintf("%q: %q", k, advice[k])
	}
	return fmt.Errorf("%s; when an agent has two plan middlewares, give one of them Config.ToolPrefix (e.g. %q) "+
		"or Config.ToolNames (e.g. {%s}), and Config.PlanSet to tell their plans apart", msg, "my_", strings.Join(pairs, ", "))
}
