package document

import (
	"strconv"
	"strings"
	"time"
)

// What a plan file records of the people in the loop, besides an approval (approval.go):
//
//	waiting: "4 2026-11-27T10:00:00Z planner"  a run waits for a decision on revision 4 since then
//	rejected: "4 2026-11-27T10:05:00Z alice"   revision 4 was rejected, by alice, then
//	rejected_feedback: "Add a rollback step"   what alice said
//	by_agent: true                             an agent's tool call made this revision, not a host
//	fence: "6 alice"                           the newest change by a host that agents must read
//
// waiting and rejected stay on the plan until a decision, or a new request, replaces them.
// by_agent belongs to its revision alone; fence is carried forward (fence.go).
const (
	hdrWaiting          = "waiting"
	hdrRejected         = "rejected"
	hdrRejectedFeedback = "rejected_feedback"
	hdrByAgent          = "by_agent"
	hdrFence            = "fence"
)

// formatMark writes "<rev> <RFC 3339 time> <who>", the value of waiting and rejected.
func formatMark(rev int64, at time.Time, who string) string {
	return strconv.FormatInt(rev, 10) + " " + at.UTC().Format(time.RFC3339Nano) + " " + who
}

// parseMark reads formatMark's text; ok is false when it is malformed.
func parseMark(v string) (rev int64, at time.Time, who string, ok bool) {
	parts := strings.SplitN(v, " ", 3)
	if len(parts) < 2 {
		return 0, time.Time{}, "", false
	}
	rev, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || rev < 1 {
		return 0, time.Time{}, "", false
	}
	if at, err = time.Parse(time.RFC3339Nano, parts[1]); err != nil || at.UTC().Year() > 9999 || at.UTC().Year() < 0 {
		return 0, time.Time{}, "", false
	}
	if len(parts) == 3 {
		who = parts[2]
	}
	return rev, at.UTC(), who, true
}

// writeDecisions appends the header lines of p's waiting run, rejection, and the host's
// marks.
func writeDecisions(b *strings.Builder, p *Plan) {
	if w := p.Waiting; w != nil {
		WriteHeaderString(b, hdrWaiting, formatMark(w.Revision, w.Since, w.Agent))
	}
	if r := p.Rejection; r != nil {
		WriteHeaderString(b, hdrRejected, formatMark(r.Revision, r.At, r.By))
		if r.Feedback != "" {
			WriteHeaderString(b, hdrRejectedFeedback, r.Feedback)
		}
	}
	if p.ByAgent {
		b.WriteString(hdrByAgent + ": true\n")
	}
	if p.fence != "" {
		WriteHeaderString(b, hdrFence, p.fence)
	}
}

// setDecisionHeader reads one of writeDecisions' lines, and reports whether key was one. A
// malformed value is no value: these lines never make a plan unreadable.
func (p *Plan) setDecisionHeader(key, value string) bool {
	var s string
	switch key {
	case hdrWaiting:
		if DecodeJSONString(value, &s) == nil {
			if rev, at, who, ok := parseMark(s); ok {
				p.Waiting = &Waiting{Revision: rev, Agent: who, Since: at}
			}
		}
	case hdrRejected:
		if DecodeJSONString(value, &s) == nil {
			if rev, at, who, ok := parseMark(s); ok {
				feedback := ""
				if p.Rejection != nil {
					feedback = p.Rejection.Feedback
				}
				p.Rejection = &Rejection{Revision: rev, By: who, At: at, Feedback: feedback}
			}
		}
	case hdrRejectedFeedback:
		if DecodeJSONString(value, &s) == nil {
			if p.Rejection == nil {
				p.Rejection = &Rejection{}
			}
			p.Rejection.Feedback = s
		}
	case hdrByAgent:
		p.ByAgent = value == "true"
	case hdrFence:
		_ = DecodeJSONString(value, &p.fence)
	default:
		return false
	}
	return true
}

// settleDecisions drops a rejection line decoded without its rejected line.
func (p *Plan) settleDecisions() {
	if p.Rejection != nil && p.Rejection.Revision == 0 {
		p.Rejection = nil
	}
}

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
	// names none use none.
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
// string, json.RawMessage) with these fields ("approved", "by", "feedback", "content", in any
// case), as a host that decoded a request has it. A resume with no data, or data that names
// none of these fields, is no decision and never approves anything.
type ApprovalDecision struct {
	Approved bool
	By       string
	Feedback string
	Content  *string
}
