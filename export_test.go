package plan

import "github.com/einoplan/plan/internal/document"

// Unexported functions that the external tests of this package exercise directly.
var (
	NextStep     = document.NextFreeStep
	SetStepState = document.SetStepState
)
