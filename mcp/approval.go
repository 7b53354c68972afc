package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// asker is how request_plan_approval puts a plan to a person for a call of ss acting as
// agent: through the client when Options.AskClients trusts it to (MCP elicitation), else
// nobody is asked now and the plan waits for the board or planctl.
func (s *Server) asker(ss *sdk.ServerSession, agent string) tools.ApprovalAsker {
	return func(ctx context.Context, req document.ApprovalRequest) (*document.ApprovalDecision, error) {
		if !s.o.AskClients || ss == nil || !canElicit(ss) {
			return nil, nil
		}
		res, err := ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: approvalQuestion(req, agent),
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
				"approve":  map[string]any{"type": "boolean", "title": "Approve this revision"},
				"feedback": map[string]any{"type": "string", "title": "Why not, or what to change"},
			}, "required": []string{"approve"}}})
		if err != nil || res == nil || res.Action != "accept" {
			return nil, err // declined or cancelled: no decision, the plan keeps waiting
		}
		approve, _ := res.Content["approve"].(bool)
		feedback, _ := res.Content["feedback"].(string)
		return &document.ApprovalDecision{Approved: approve, Feedback: feedback, By: s.answeredBy(agent)}, nil
	}
}

// canElicit reports whether the client of ss said it can ask its user (form elicitation).
func canElicit(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
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

// approvalQuestion is what the client shows its user.
func approvalQuestion(req document.ApprovalRequest, agent string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s asks you to approve plan %q at revision %d", agent, req.Name, req.Revision)
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
