package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/einoplan/plan/internal/document"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// approvalInput names the approval question among a call's input requests.
const approvalInput = "approval"

// approvalCall is one request_plan_approval call as the person's asker sees it: under
// Options.AskClients, a call that brings no answer returns the question as an input
// request (asking is set; the SDK sends it as an elicitation request to clients of older
// protocols and as an input-required result under 2026-07-28), and the call that brings
// the answer back applies it. Only an answer to a question this server asked is taken.
type approvalCall struct {
	s     *Server
	agent string
	req   *sdk.CallToolRequest

	asking *sdk.ElicitParams // the question to return instead of the tool's result
	state  string            // the request state that names it
}

// ask is the call's tools.ApprovalAsker: the person's decision, or nil when there is none
// now (not asked, asked now, declined, cancelled, or an answer to no question of ours), and
// the plan waits for the board or planctl.
func (c *approvalCall) ask(_ context.Context, req document.ApprovalRequest) (*document.ApprovalDecision, error) {
	if !c.s.o.AskClients || !canElicit(c.req) {
		return nil, nil
	}
	digest, ok := questionDigest(c.agent, req)
	if !ok {
		return nil, nil
	}
	if p := c.req.Params; p != nil && (len(p.InputResponses) > 0 || p.RequestState != "") {
		// A call that brings an answer is never asked again: the SDK calls once more for
		// a client of an older protocol, and a changed plan is asked about by a new call.
		if !c.s.questions.take(p.RequestState, c.agent, digest) {
			return nil, nil
		}
		res, _ := p.InputResponses[approvalInput].(*sdk.ElicitResult)
		return c.s.decisionOf(res, c.agent), nil
	}
	state, err := c.s.questions.keep(c.agent, digest)
	if err != nil {
		return nil, err
	}
	c.state = state
	c.asking = &sdk.ElicitParams{Mode: "form", Message: approvalQuestion(req, c.agent),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"approve":  map[string]any{"type": "boolean", "title": "Approve this revision"},
			"feedback": map[string]any{"type": "string", "title": "Why not, or what to change"},
		}, "required": []string{"approve"}}}
	return nil, nil
}

// result is what the call returns in place of the tool's result when it asks.
func (c *approvalCall) result() *sdk.CallToolResult {
	return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{approvalInput: c.asking}, RequestState: c.state}
}

// decisionOf reads the person's answer: a decision only when they accepted and said
// whether they approve.
func (s *Server) decisionOf(res *sdk.ElicitResult, agent string) *document.ApprovalDecision {
	if res == nil || res.Action != "accept" {
		return nil // declined or cancelled: the plan keeps waiting
	}
	approve, ok := res.Content["approve"].(bool)
	if !ok {
		return nil
	}
	feedback, _ := res.Content["feedback"].(string)
	return &document.ApprovalDecision{Approved: approve, Feedback: feedback, By: s.answeredBy(agent)}
}

// canElicit reports whether the calling client said it can put a form to its user: in
// initialize, or under 2026-07-28 in the request's own _meta.
func canElicit(req *sdk.CallToolRequest) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil // neither named means form, as the protocol says
}

// answeredBy names a decision given through a client: the person, and how it reached them,
// which the approval and the history keep.
func (s *Server) answeredBy(agent string) string {
	person := strings.TrimSpace(s.o.Person)
	if person == "" {
		person = "person"
	}
	return fmt.Sprintf("%s via MCP client %s", person, agent)
}

// approvalQuestion is what the client shows its user: the plan as it is and what changed
// since the last approval. It names no revision: the call that brings the answer marks the
// plan waiting again, and the decision applies to that revision when nothing else changed.
func approvalQuestion(req document.ApprovalRequest, agent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s asks you to approve plan %q", agent, req.Name)
	if req.Title != "" {
		fmt.Fprintf(&b, " (%s)", req.Title)
	}
	b.WriteString(".\n")
	if req.Message != "" {
		fmt.Fprintf(&b, "Its note: %s\n", req.Message)
	}
	b.WriteString("\n")
	b.WriteString(document.TruncateUTF8(req.Content, 16<<10))
	if req.Diff != "" {
		b.WriteString("\nSince the last approved revision:\n")
		b.WriteString(document.TruncateUTF8(req.Diff, 8<<10))
	}
	return b.String()
}
