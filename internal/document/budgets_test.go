package document

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A person's budget replaces the "(budget …)" groups ending a step's own text, or joins its
// other suffixes, and leaves the rest of the line (notes, cost, holder's tag) as written.
func TestAStepsBudgetIsSetInItsOwnText(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"- [ ] Build", "- [ ] Build (budget 20k tokens)"},
		{"- [ ] Build (budget 1k tokens) (uses probe)", "- [ ] Build (uses probe) (budget 20k tokens)"},
		{"- [~] Build (budget 1k tokens, 5m) (uses probe) (@worker-1)", "- [~] Build (uses probe) (budget 20k tokens) (@worker-1)"},
		{"- [~] Build (budget 1k tokens) — started (@worker-1)", "- [~] Build (budget 20k tokens) — started (@worker-1)"},
		{"- [x] Read (budget 5m) notes (budget 1k tokens) — cost: 10+2 tokens, 1 call, 0 tools, 3s",
			"- [x] Read (budget 5m) notes (budget 20k tokens) — cost: 10+2 tokens, 1 call, 0 tools, 3s"},
	} {
		body := "# P\n" + c.line + "\n- [ ] Ship\n"
		got, err := SetStepBudget(body, 1, " 20k tokens ")
		require.NoError(t, err, c.line)
		assert.Equal(t, "# P\n"+c.want+"\n- [ ] Ship\n", got, c.line)
		s := StepsOf(got)
		assert.Equal(t, Budget{Tokens: 20000}, *s[0].Budget, c.line)
		assert.Equal(t, StepsOf(body)[0].Holder, s[0].Holder, c.line)
	}
}

// A budget that does not read, or a step that is not there, is refused.
func TestAStepsBudgetMustReadAndItsStepExist(t *testing.T) {
	body := "- [ ] Build\n"
	for _, b := range []string{"", "lots", "20k tokens)"} {
		_, err := SetStepBudget(body, 1, b)
		assert.Equal(t, reasonBudgetInvalid, reasonOf(err), b)
	}
	_, err := SetStepBudget(body, 2, "1h")
	assert.Equal(t, reasonStepMissing, reasonOf(err))
}

// A step is over its budget when the cost its line records is; a plan when what its steps
// record together is over its own budget.
func TestWhatStepsRecordTheyCostMarksThemOverBudget(t *testing.T) {
	body := "- [x] A (budget 1k tokens) — cost: 900+200 tokens, 1 call, 0 tools, 5s\n" +
		"- [x] B (budget 2k tokens, 1m) — cost: 900+200 tokens, 1 call, 0 tools, 61s\n" +
		"- [x] C (budget 2k tokens) — cost: 900+200 tokens, 1 call, 0 tools, 5s\n" +
		"- [~] D (budget 1 tokens) (@w1)\n"
	var over []bool
	for _, s := range StepsOf(body) {
		over = append(over, s.OverBudget)
	}
	assert.Equal(t, []bool{true, true, false, false}, over)

	p := &Plan{Content: body, Budget: "3.3k tokens"}
	SettleOverBudget(p)
	assert.False(t, p.OverBudget, "3,300 tokens spent of 3.3k")
	p.Budget = "3k tokens"
	SettleOverBudget(p)
	assert.True(t, p.OverBudget)
	p.Budget = "70s"
	SettleOverBudget(p)
	assert.True(t, p.OverBudget, "71s spent")
	p.Budget = ""
	SettleOverBudget(p)
	assert.False(t, p.OverBudget)

	decoded, err := DecodePlan("p", EncodePlan(&Plan{Revision: 1, Content: body, Budget: "1k tokens"}))
	require.NoError(t, err)
	assert.True(t, decoded.OverBudget, "read from its file")
}

// reasonOf is the reason of the plan error err.
func reasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ""
}
