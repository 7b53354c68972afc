package document

import (
	"context"
	"strings"
)

// A person raises a step's budget (Update.BudgetStep) in the step's own text, where the
// budget lives: the Store rewrites its "(budget …)" itself, as it writes a step move, so the
// approval (whose seal covers the body as written) stays, sealed anew over the raised text.
// Nobody else can do so and keep it: an agent's rewrite of the text drops the approval (a
// changed body), and an edit of the file by hand breaks its seal.

// budgetRaiseKey marks a context whose write is a person's raise of a step's budget.
type budgetRaiseKey struct{}

// WithBudgetRaise marks the write of ctx as the Store's own rewrite of a step's budget for
// a host (Update.BudgetStep without Content), which keeps the plan's approval.
func WithBudgetRaise(ctx context.Context) context.Context {
	return context.WithValue(ctx, budgetRaiseKey{}, true)
}

// raisesBudget reports whether the write of ctx is a host's raise of a step's budget; an
// agent's tool call never is one.
func raisesBudget(ctx context.Context) bool {
	v, _ := ctx.Value(budgetRaiseKey{}).(bool)
	return v && !ByAgent(ctx)
}

// SetStepBudget is body with step number's budget set to budget ("20k tokens", "10m" or
// both): the "(budget …)" groups ending its own text (before any note and holder's tag)
// replaced by one, or one added after its other suffixes. Anything else on the line stays
// as written.
func SetStepBudget(body string, number int, budget string) (string, error) {
	budget = strings.TrimSpace(budget)
	want, ok := parseBudget(budget)
	if !ok || len(budget) > MaxHeaderField {
		return "", Fail(Error{Code: CodeInvalidArgument, Reason: reasonBudgetInvalid, Field: "Budget", Value: budget})
	}
	var it ScannedStep
	found := false
	n := scanSteps(body, func(s ScannedStep) bool {
		it, found = s, s.Step.Number == number
		return !found
	})
	if !found {
		return "", Fail(Error{Code: CodeInvalidArgument, Reason: reasonStepMissing, Field: "step", Step: number, Steps: n})
	}
	line := body[it.Marker+1 : it.End] // "]", then " text" when there is one
	own, rest := line, ""
	if i := strings.Index(line, StepNoteSep); i >= 0 {
		own, rest = line[:i], line[i:]
	} else if bare, holder := SplitHolder(line); holder != "" {
		own, rest = bare, line[len(bare):]
	}
	next := body[:it.Marker+1] + withStepBudget(own, budget) + rest + body[it.End:]
	if s := StepsOf(next); number > len(s) || s[number-1].Budget == nil || *s[number-1].Budget != want {
		// A note after the text ends like a budget of its own, which a reader takes instead.
		return "", Fail(Error{Code: CodeInvalidArgument, Reason: reasonBudgetInvalid, Field: "Budget", Value: budget, Step: number})
	}
	return next, nil
}

// withStepBudget is own, a step's own text, with the "(budget …)" groups of the run of
// groups it ends with removed and "(budget b)" written after that run.
func withStepBudget(own, b string) string {
	var cuts [][2]int // the budget groups, with the spaces before them, from the end
	t := own
	for {
		t = strings.TrimRight(t, " ")
		if !strings.HasSuffix(t, ")") {
			break
		}
		i := strings.LastIndexAny(t[:len(t)-1], "()")
		if i < 0 || t[i] != '(' {
			break
		}
		if strings.HasPrefix(t[i+1:], "budget ") {
			j := i
			for j > 0 && t[j-1] == ' ' {
				j--
			}
			cuts = append(cuts, [2]int{j, len(t)})
		}
		t = t[:i]
	}
	for _, c := range cuts {
		own = own[:c[0]] + own[c[1]:]
	}
	return strings.TrimRight(own, " ") + " (budget " + b + ")"
}

// stepOverBudget reports whether the cost s's line records went over its own budget.
func stepOverBudget(s Step) bool {
	if s.Cost == nil || s.Budget == nil {
		return false
	}
	over, _ := OverBudget(s.Budget, nil, StepCost{}, *s.Cost, secondsOf(s.Cost.Seconds))
	return over != ""
}

// SettleOverBudget sets p.OverBudget from what p's steps record they cost together (the one
// total, PlanCost) and p's own budget. The Store calls it wherever a plan is made: decoded
// from a file, its budget settled by the seals, or written.
func SettleOverBudget(p *Plan) {
	b := planBudget(p)
	if b == nil {
		p.OverBudget = false
		return
	}
	var spent StepCost
	if c := PlanCost(StepsOf(p.Content)); c != nil {
		spent = *c
	}
	over, _ := OverBudget(nil, b, spent, StepCost{}, 0)
	p.OverBudget = over != ""
}
