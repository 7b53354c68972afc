package plan

// Unexported functions that the external tests of this package exercise directly.
var (
	HolderName   = holderName
	NextStep     = nextFreeStep
	SetStepState = setStepState
)
