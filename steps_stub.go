package plan

type StepState string
type Step struct {
	Number int       `json:"number"`
	State  StepState `json:"status"`
	Text   string    `json:"text"`
	Depth  int       `json:"-"`
	Line   int       `json:"-"`
}
type Progress struct{ Total, Pending, InProgress, Completed, Failed, Skipped, Percent int }

func ParseSteps(body string) []Step                { return nil }
func ComputeProgress(steps []Step) Progress          { return Progress{} }
func CurrentStep(steps []Step) (Step, bool)          { return Step{}, false }
func ParseStepState(s string) (StepState, error)     { return StepState(s), nil }
func SetStepState(body string, number int, to StepState, note string) (string, Step, error) {
	return body, Step{}, nil
}

const (
	StepPending    StepState = "pending"
	StepInProgress StepState = "in_progress"
	StepCompleted  StepState = "completed"
	StepFailed     StepState = "failed"
	StepSkipped    StepState = "skipped"
)
