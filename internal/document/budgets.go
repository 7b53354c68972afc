package document

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/api"
)

// Budgets: a step may name what it may cost, "(budget 20k tokens)", "(budget 10m)" or both
// (steps_suffixes.go), and a plan in its header (Plan.Budget). The middleware tells the
// host when a step its agent holds first goes over its budget or its plan's (Config.OnCost,
// Over set), and with Config.GatedTools the step's gated tools stop (over_budget) until a
// person raises the budget: a step's with Update.BudgetStep (budgets_set.go), a plan's with
// Update.Budget (planctl budget); either keeps the approval.

// GateOverBudget is the reason of a gated call refused for a budget.
const GateOverBudget = "over_budget"

// hdrBudget is the header key of Plan.Budget.
const hdrBudget = "budget"

// CheckBudget refuses a plan budget that does not read; "" is none.
func CheckBudget(s string) error {
	if !budgetReads(s) {
		return Fail(Error{Code: CodeInvalidArgument, Reason: reasonBudgetInvalid, Field: "Budget", Value: s})
	}
	return nil
}

// budgetReads reports whether s is a plan budget CheckBudget accepts.
func budgetReads(s string) bool {
	if s == "" {
		return true
	}
	_, ok := parseBudget(s)
	return ok && len(s) <= MaxHeaderField
}

// planBudget is p's own budget; nil when it has none.
func planBudget(p *Plan) *Budget {
	if p == nil || p.Budget == "" {
		return nil
	}
	b, ok := parseBudget(p.Budget)
	if !ok {
		return nil
	}
	return &b
}

// TotalBudget is what a person approving p is shown it may cost: its own budget, else what
// its steps' budgets add up to; nil when nothing says.
func TotalBudget(p *Plan) *Budget {
	if b := planBudget(p); b != nil {
		return b
	}
	var total *Budget
	for _, s := range StepsOf(p.Content) {
		if s.Budget == nil {
			continue
		}
		if total == nil {
			total = &Budget{}
		}
		total.Tokens += s.Budget.Tokens
		total.Time += s.Budget.Time
	}
	return total
}

// OverBudget says which budget a step went over ("step" or "plan", and that budget), having
// cost live so far on top of what its plan's steps recorded (spent); "" when within both.
// The sums saturate: no count, however large, wraps round to look small.
func OverBudget(step, plan *Budget, spent StepCost, live StepCost, elapsed time.Duration) (string, *Budget) {
	over := func(b *Budget, tokens int64, d time.Duration) bool {
		return b != nil && (b.Tokens > 0 && tokens > b.Tokens || b.Time > 0 && d > b.Time)
	}
	liveTokens := AddCount(live.PromptTokens, live.CompletionTokens)
	if over(step, liveTokens, elapsed) {
		return "step", step
	}
	if over(plan, AddCount(AddCount(spent.PromptTokens, spent.CompletionTokens), liveTokens), addDuration(secondsOf(spent.Seconds), elapsed)) {
		return "plan", plan
	}
	return "", nil
}

// BudgetsOf are the budgets a step of p is bound by, and what p's steps recorded so far.
func BudgetsOf(p *Plan, s Step) (step, plan *Budget, spent StepCost) {
	if c := api.TotalCost(StepsOf(p.Content)); c != nil {
		spent = *c
	}
	return s.Budget, planBudget(p), spent
}

// withoutBudget is text with every "(budget …)" group written as "(budget)".
func withoutBudget(text string) string {
	if !strings.Contains(text, "(budget ") {
		return text
	}
	return budgetGroup.ReplaceAllString(text, "(budget)")
}

// budgetGroup is a "(budget …)" group of a step's text.
var budgetGroup = regexp.MustCompile(`\(budget [^()]*\)`)

// isZero reports whether b bounds nothing.
func isZero(b Budget) bool { return b.Tokens <= 0 && b.Time <= 0 }

// parseBudget reads "20k tokens", "10m" or both, comma separated: tokens as a number with an
// optional k or m (thousands, millions), time as a Go duration.
func parseBudget(s string) (Budget, bool) {
	var b Budget
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if n, ok := strings.CutSuffix(part, " tokens"); ok {
			t, ok := parseTokenCount(n)
			if !ok {
				return Budget{}, false
			}
			b.Tokens = t
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d <= 0 {
			return Budget{}, false
		}
		b.Time = d
	}
	return b, !isZero(b)
}

// parseTokenCount reads "20k", "1.5m" or "20000".
func parseTokenCount(s string) (int64, bool) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f*mult > 1e15 {
		return 0, false
	}
	return int64(f * mult), true
}

// Left is what is left of the budget nearest its end, among a step's and its plan's.
type Left struct {
	Which string // "step" or "plan"
	Of    Budget // the budget
	Left  Budget // what is left of it, in the same measures, never below zero
	// Spent is the share of it spent, from 0: the larger of its tokens' and its time's.
	Spent float64
}

// BudgetLeft is what is left of step's budget and of plan's (with spent recorded by the
// plan's steps), having cost live over elapsed so far: the one whose larger share is spent;
// ok is false when neither bounds anything.
func BudgetLeft(step, plan *Budget, spent StepCost, live StepCost, elapsed time.Duration) (Left, bool) {
	liveTokens := AddCount(live.PromptTokens, live.CompletionTokens)
	var best Left
	ok := false
	try := func(which string, b *Budget, tokens int64, d time.Duration) {
		if b == nil || isZero(*b) {
			return
		}
		l := Left{Which: which, Of: *b}
		if b.Tokens > 0 {
			l.Left.Tokens = max(b.Tokens-min(tokens, b.Tokens), 0)
			l.Spent = float64(tokens) / float64(b.Tokens)
		}
		if b.Time > 0 {
			l.Left.Time = max(b.Time-min(d, b.Time), 0)
			l.Spent = max(l.Spent, float64(d)/float64(b.Time))
		}
		if !ok || l.Spent > best.Spent {
			best, ok = l, true
		}
	}
	try("step", step, liveTokens, elapsed)
	try("plan", plan, AddCount(AddCount(spent.PromptTokens, spent.CompletionTokens), liveTokens), addDuration(secondsOf(spent.Seconds), elapsed))
	return best, ok
}

// FormatTokens writes a count of tokens short: "950", "8.2k", "10k", "1.5m".
func FormatTokens(n int64) string {
	short := func(v float64, unit string) string {
		s := strconv.FormatFloat(v, 'f', 1, 64)
		return strings.TrimSuffix(s, ".0") + unit
	}
	switch {
	case n >= 1e6:
		return short(float64(n)/1e6, "m")
	case n >= 1e3:
		return short(float64(n)/1e3, "k")
	}
	return strconv.FormatInt(n, 10)
}

// FormatDuration writes d short, to the second: "2m30s", "10m".
func FormatDuration(d time.Duration) string {
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

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
// total, api.TotalCost) and p's own budget. The Store calls it wherever a plan is made: decoded
// from a file, its budget settled by the seals, or written.
func SettleOverBudget(p *Plan) {
	b := planBudget(p)
	if b == nil {
		p.OverBudget = false
		return
	}
	var spent StepCost
	if c := api.TotalCost(StepsOf(p.Content)); c != nil {
		spent = *c
	}
	over, _ := OverBudget(nil, b, spent, StepCost{}, 0)
	p.OverBudget = over != ""
}
