package plan

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

func runPlanTemplate(ctx context.Context, env *toolEnv, a args) (any, error) {
	if env.role != nil && env.role(ctx) == RoleSubAgent {
		return nil, document.Fail(Error{Code: CodeToolNotAvailable, Reason: document.ReasonOrchestratorOnly})
	}
	goal, err := a.str(pGoal)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(goal) == "" || len(goal) > maxGoalBytes || !utf8.ValidString(goal) {
		return nil, document.Fail(Error{Code: CodeInvalidArgument, Reason: document.ReasonGoalInvalid, Field: pGoal.name, Limit: maxGoalBytes})
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
