package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/einoplan/plan/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTool serves t under its name, description and argument schema, as the Eino middleware
// shows them to a model.
func (s *Server) addTool(ctx context.Context, t *tools.PlanTool) error {
	info, err := t.Info(ctx)
	if err != nil {
		return err
	}
	js, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil {
		return fmt.Errorf("mcp: the schema of %s: %w", info.Name, err)
	}
	raw, err := json.Marshal(js)
	if err != nil {
		return fmt.Errorf("mcp: the schema of %s: %w", info.Name, err)
	}
	name := t.Spec.Name
	s.AddTool(&sdk.Tool{Name: info.Name, Description: info.Desc, InputSchema: json.RawMessage(raw)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return s.call(ctx, req, name)
		})
	return nil
}

// call runs the tool called name as the calling client. Every failure a model can cause is
// a result with isError and the JSON error object an Eino agent gets; a client without a
// name that can hold a step gets a JSON-RPC error, since no argument can fix it.
func (s *Server) call(ctx context.Context, req *sdk.CallToolRequest, name string) (*sdk.CallToolResult, error) {
	agent, err := s.clientName(req.Session, req.ClientInfo())
	if err != nil {
		return nil, err
	}
	ts, err := s.toolsOf(agent)
	if err != nil {
		return nil, err
	}
	t, ok := ts[name]
	if !ok {
		return nil, fmt.Errorf("mcp: no tool %q", name)
	}
	args := "{}"
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		args = string(req.Params.Arguments)
	}
	approval := &approvalCall{s: s, agent: agent, req: req}
	ctx = tools.WithApprovalAsker(ctx, approval.ask)
	out, err := t.InvokableRun(ctx, args)
	if err != nil {
		return nil, err
	}
	if approval.asking != nil {
		return approval.result(), nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: out}}, IsError: tools.IsErrorResult(out)}, nil
}

// clientName is who a session's calls act as: Options.As, else the name the session's
// client gave first, kept for the session so a later request cannot change it.
func (s *Server) clientName(ss *sdk.ServerSession, info *sdk.Implementation) (string, error) {
	if s.o.As != "" {
		return s.o.As, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if name, ok := s.named[ss]; ok && ss != nil {
		return name, nil
	}
	name := ""
	if info != nil {
		name = info.Name
	}
	if err := CheckName(name); err != nil {
		return "", fmt.Errorf("%w: the client's clientInfo.name names who holds its steps; start the server with -as NAME", err)
	}
	if ss != nil {
		s.named[ss] = name
		go func() { _ = ss.Wait(); s.forget(ss) }()
	}
	return name, nil
}

// forget drops what is kept for a session that ended.
func (s *Server) forget(ss *sdk.ServerSession) {
	s.mu.Lock()
	delete(s.named, ss)
	s.mu.Unlock()
}
