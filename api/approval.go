package api

// ApprovalRequest is the Info of the Eino interrupt that request_plan_approval raises: what a
// person is asked to approve. Revision is the revision shown; the decision applies to it
// and to nothing newer. Diff is what changed since the last approved revision, "" when no
// earlier approval is kept in the history.
type ApprovalRequest struct {
	Name     string
	Revision int64
	Title    string
	Content  string
	Diff     string
	Message  string // what the agent said when asking
	// Steps are the steps of Content, each with the gated tools it may use (Step.Uses):
	// under Config.GatedTools, approving lets each step use exactly those, and a step that
	// names none use none; and the tools whose passing run proves it done (Step.Proof).
	Steps []Step
	// Budget is what the plan may cost in total: its own budget (Plan.Budget), else what
	// its steps' budgets add up to; nil when nothing says.
	Budget *Budget
}

// ApprovalDecision is the resume data a host passes for an ApprovalRequest, by interrupt ID,
// in adk.ResumeParams.Targets. Approved with Content nil approves the revision shown;
// Approved with Content saves that body as a new revision and approves it; not Approved
// changes nothing and gives the model Feedback. By names the person ("person" when empty).
// The resume data may also be a non-nil pointer to one, a map[string]any or JSON ([]byte,
// string, json.RawMessage) with these fields ("approved", "by", "feedback", "content", "comments", in any
// case), as a host that decoded a request has it. A resume with no data, or data that names
// none of these fields, is no decision and never approves anything.
type ApprovalDecision struct {
	Approved bool
	By       string
	Feedback string
	Content  *string
	// Comments, with a rejection, are comments on steps the agent must answer before it asks
	// again (Comment: Step and Text are read, the Store fills in the rest); ignored with an
	// approval.
	Comments []Comment
}
