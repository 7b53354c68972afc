package document

import "testing"

// findCycle names the steps of a cycle in the order they wait for each other, from the
// smallest; afterOf reads the numbers before a move's note and tag.
func TestFindCycleAndAfterOf(t *testing.T) {
	steps := ParseSteps("- [ ] a\n- [ ] b (after 4)\n- [ ] c (after 2)\n- [ ] d (after 3, 1)\n")
	got := FindCycle(steps)
	if FormatSteps(got) != "2, 4, 3" {
		t.Fatalf("cycle %v, want 2, 4, 3", got)
	}
	if a := AfterOf("x (after steps 3,1, 3) — note (@w)"); FormatSteps(a) != "1, 3" {
		t.Fatalf("after %v", a)
	}
	if a := AfterOf("x (after 99999999999)"); a != nil {
		t.Fatalf("a number too long to be a step is no prerequisite list: %v", a)
	}
}
