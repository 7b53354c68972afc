package plan

// Codes of completions that do not land: no evidence where the host requires it
// (Config.RequireEvidence); the host's verifier refused it (Config.Verify).
const (
	CodeEvidenceRequired Code = "evidence_required" // a completion needs evidence (Config.RequireEvidence)
	CodeNotVerified      Code = "not_verified"      // Config.Verify refused the completion; Error.Value says why
)

// Reasons of evidence and review: evidence on a move that finishes nothing, or that cannot
// be read back whole; a completion without evidence; one Config.Verify refused; an agent
// completing the review of its own work.
const (
	reasonEvidenceState    = "evidence_state"
	reasonEvidenceForm     = "evidence_form"
	reasonEvidenceRequired = "evidence_required"
	reasonNotVerified      = "not_verified"
	reasonReviewOwn        = "review_own"
	reasonCostInvalid      = "cost_invalid"
	reasonNoteProof        = "note_proof" // a note that would read as the evidence or cost a move writes
)

func init() {
	for k, v := range map[string]string{
		reasonEvidenceState:    "evidence is given with a move to {to}; only completed, failed or skipped take evidence",
		reasonEvidenceForm:     "the evidence has control characters or contains \" — evidence: \" or \" — cost: \"",
		reasonNoteProof:        "the note {value} would read as evidence or a cost (\" — evidence: \", \" — cost: \")",
		reasonEvidenceRequired: "step {step} of plan {name} cannot be completed without evidence",
		reasonNotVerified:      "the completion of step {step} of plan {name} was not verified: {said}",
		reasonReviewOwn:        "step {step} of plan {name} awaits review of {agent}'s work, and only another agent or a person completes it",
		reasonCostInvalid:      "a step's cost has a negative or too large count, or comes with a move to {to}",
	} {
		factTexts[k] = v
	}
}
