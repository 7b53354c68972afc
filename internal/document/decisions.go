package document

import (
	"strconv"
	"strings"
	"time"

	"github.com/einoplan/plan/api"
)

// What a plan file records of the people in the loop, besides an approval (approval.go):
//
//	waiting: "4 2026-11-27T10:00:00Z planner"  a run waits for a decision on revision 4 since then
//	waiting_interrupt: "9f1c…"                 the ID of the Eino interrupt it paused on
//	rejected: "4 2026-11-27T10:05:00Z alice"   revision 4 was rejected, by alice, then
//	rejected_feedback: "Add a rollback step"   what alice said
//	by_agent: true                             an agent's tool call made this revision, not a host
//	fence: "6 alice"                           the newest change by a host that agents must read
//
// waiting and rejected stay on the plan until a decision, or a new request, replaces them.
// by_agent belongs to its revision alone; fence is carried forward (fence.go).
const (
	hdrWaiting          = "waiting"
	hdrWaitingInterrupt = "waiting_interrupt"
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
		if w.Interrupt != "" {
			WriteHeaderString(b, hdrWaitingInterrupt, w.Interrupt)
		}
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
	if p.Fence != "" {
		WriteHeaderString(b, hdrFence, p.Fence)
	}
}

// setDecisionHeader reads one of writeDecisions' lines, and reports whether key was one. A
// malformed value is no value: these lines never make a plan unreadable.
func setDecisionHeader(p *Plan, key, value string) bool {
	var s string
	switch key {
	case hdrWaiting:
		if DecodeJSONString(value, &s) == nil {
			if rev, at, who, ok := parseMark(s); ok {
				interrupt := ""
				if p.Waiting != nil {
					interrupt = p.Waiting.Interrupt
				}
				p.Waiting = &Waiting{Revision: rev, Agent: who, Since: at, Interrupt: interrupt}
			}
		}
	case hdrWaitingInterrupt:
		if DecodeJSONString(value, &s) == nil {
			if p.Waiting == nil {
				p.Waiting = &Waiting{}
			}
			p.Waiting.Interrupt = s
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
		_ = DecodeJSONString(value, &p.Fence)
	default:
		return false
	}
	return true
}

// settleDecisions drops a rejection line decoded without its rejected line, and an
// interrupt without its waiting line.
func settleDecisions(p *Plan) {
	if p.Waiting != nil && p.Waiting.Revision == 0 {
		p.Waiting = nil
	}
	if p.Rejection != nil && p.Rejection.Revision == 0 {
		p.Rejection = nil
	}
}

// What a person is asked and answers, declared in package api.
type (
	ApprovalRequest  = api.ApprovalRequest
	ApprovalDecision = api.ApprovalDecision
)
