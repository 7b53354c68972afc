package document

import "testing"

// A finished step keeps the tag of the agent that held it ("- [x] Build (@w)"): a rewrite
// that drops the tag, or keeps it, changes no step, so it keeps an approval.
func TestAFinishedStepsHolderTagIsNotPartOfTheStep(t *testing.T) {
	cur := &Plan{Content: "- [x] Build (@w)\n- [ ] Ship\n"}
	for _, next := range []string{"- [x] Build\n- [ ] Ship\n", "- [x] Build (@w)\n- [ ] Ship\n"} {
		if movesSteps(cur, &Plan{Content: next}) {
			t.Errorf("%q -> %q counts as moving a step", cur.Content, next)
		}
	}
	if !movesSteps(cur, &Plan{Content: "- [x] Deploy (@w)\n- [ ] Ship\n"}) {
		t.Error("rewording a finished step does not count as moving it")
	}
}
