package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/einoplan/plan/internal/document"
)

// maxGoalBytes caps plan_template's goal.
const maxGoalBytes = 4 << 10

// maxTemplateNames caps the existing names plan_template lists.
const maxTemplateNames = 50

func runPlanTemplate(ctx context.Context, env *ToolEnv, a args) (any, error) {
	if env.Role != nil && env.Role(ctx) == RoleSubAgent {
		return nil, document.Fail(document.Error{Code: document.CodeToolNotAvailable, Reason: document.ReasonOrchestratorOnly})
	}
	goal, err := a.str(pGoal)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(goal) == "" || len(goal) > maxGoalBytes || !utf8.ValidString(goal) {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonGoalInvalid, Field: pGoal.Name, Limit: maxGoalBytes})
	}
	listing, err := env.Store.List(ctx)
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
	existing := env.Texts["template.none"]
	if len(names) > 0 {
		existing = strings.Join(names[:min(len(names), maxTemplateNames)], ", ")
	}
	if more := len(names) - maxTemplateNames; more > 0 {
		existing += " " + strings.ReplaceAll(env.Texts["template.more"], "{n}", Itoa(more))
	}
	return fmt.Sprintf("%s\n%s\n%s\n%s\n\n%s %s\n\n%s\n", strings.TrimRight(env.Template, "\n"), env.Texts["template.proof"],
		env.Texts["template.goal"], goal, env.Texts["template.naming"], existing, env.Texts["template.finish"]), nil
}
