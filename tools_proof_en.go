package plan

// The English texts of evidence, verification and review; tools_proof_zh.go has the same keys.
var textsProofEN = map[string]string{
	"update_plan_step.evidence": "With completed: what shows it is done (command and exit code, test counts, link).",
	"err.evidence_state":        "evidence goes with status completed, failed or skipped, not {to}; send it with the move that finishes the step",
	"err.evidence_form":         "the evidence has control characters or the text \" — evidence: \" or \" — cost: \"; send it as plain text on one paragraph",
	"err.evidence_required":     "step {step} of plan {name} was not completed: a completion needs evidence. Call update_plan_step again with evidence: what shows it is done (a command and its exit code, test counts, a link)",
	"err.not_verified":          "step {step} of plan {name} was not completed: the check of your completion failed: {said}. The step is still yours; fix what it says, then complete it again with new evidence",
	"err.note_proof":            "the note {value} would read as evidence or a cost (\"evidence: \", \"cost: \" after \" — \"); send evidence in evidence, and reword the note",
	"err.review_own":            "step {step} of plan {name} awaits review of your own work; another agent or a person completes it. Take next_step instead",
	"err.cost_invalid":          "a step's cost was refused: a count is negative or too large, or the move to {to} finishes nothing",
	"step.awaiting_review":      "step {step} awaits review: another agent or a person completes it. Take next_step",
	"gate.over_budget":          "{tool} did not run: step {step} of plan {name}, which you hold, went over its budget (or the plan did). Only a person can raise it: finish the step without {tool}, or ask a person to raise the budget",
	"gate.over_budget.sub":      "{tool} did not run: step {step} of plan {name}, which you hold, went over its budget (or the plan did). Report back that step {step} needs a higher budget",
}

func init() {
	for k, v := range textsProofEN {
		textsEN[k] = v
	}
}
