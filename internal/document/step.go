package document

import "github.com/einoplan/plan/api"

// The words of a plan's checklist: a step, its states, and the separators its line is
// written with. Reading and writing them is in steps*.go.

// A step and what it records, declared in package api.
type (
	Step      = api.Step
	StepState = api.StepState
	StepCost  = api.StepCost
	Budget    = api.Budget
)

// The step states.
const (
	StepPending    = api.StepPending
	StepInProgress = api.StepInProgress
	StepCompleted  = api.StepCompleted
	StepFailed     = api.StepFailed
	StepSkipped    = api.StepSkipped
)

// MaxStepNoteLen is the longest note, in bytes after trimming, that setStepState appends.
const MaxStepNoteLen = 500

// StepNoteSep separates a step's text from a note appended by setStepState.
const StepNoteSep = " — "

// costSep starts a step's cost on its line.
const costSep = StepNoteSep + "cost: "

// evidenceSep starts a step's evidence on its line.
const evidenceSep = StepNoteSep + "evidence: "
