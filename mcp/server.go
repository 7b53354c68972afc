// Package mcp serves the plan tools and the plans of a Store over the Model Context
// Protocol, so an MCP client (Claude Code, Codex, Gemini CLI) shares the plans an Eino agent
// keeps: the same tools, descriptions, arguments, errors and limits as the Eino middleware
// gives (they are its tools, called outside an Eino run), holds named after the client, and
// every plan as a resource plan://NAME that a subscribed client hears change.
//
// NewServer returns a server of the official MCP Go SDK: run it on standard input and
// output (planctl mcp does) or mount it on an HTTP transport of the host's. The package is
// a module of its own, so the root module does not depend on the SDK.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/agentrun"
	"github.com/einoplan/plan/internal/tools"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure NewServer.
type Options struct {
	// Store holds the plans served; required.
	Store *plan.Store
	// Language of the tool descriptions, the instruction and the tools' messages.
	Language adk.Language
	// As names who every client acts as: the holder of the steps it takes, the actor in
	// history. "" names each client after the clientInfo.name it sent; a client that sent
	// none, or one that cannot name a holder, gets a JSON-RPC error on every tool call.
	// Clients of one name are one agent: they share its holds, as two runs of one Eino
	// agent name do.
	As string
	// RequireApproval is plan mode, as Config.RequireApproval: steps move only on approved
	// plans, and request_plan_approval is offered.
	RequireApproval bool
	// AskClients lets request_plan_approval put the plan to the person through the calling
	// client (MCP elicitation), for a person who trusts that client to ask them: a request
	// to the client under the protocols before 2026-07-28, an input-required result the
	// client answers by calling again under 2026-07-28. Otherwise, and whenever the client
	// cannot ask, the call returns at once and the plan waits for a decision on the board or
	// with planctl. An approval given through a client is sealed as any other and names
	// Person and the client; only an answer to a question this server asked counts.
	AskClients bool
	// Person is who answers through a client (AskClients); "person" when empty.
	Person string
	// Version is the server's version in the MCP handshake.
	Version string
}

// Server is an MCP server of the plans of one Store.
type Server struct {
	*sdk.Server
	o Options

	mu     sync.Mutex
	agents map[string]map[string]*tools.PlanTool // by client name, the tools by name
	named  map[*sdk.ServerSession]string         // the name each session acts as, once known

	questions questions // approval questions put to clients, until answered
}

// maxAgents bounds the client names whose tools are kept; beyond it one of them is dropped
// and rebuilt on its next call, which only costs its caches.
const maxAgents = 64

// NewServer returns the MCP server of o.Store. Until ctx ends it watches the Store, so that
// subscribed clients hear every change any process makes (notifications/resources/updated)
// and every client hears plans come and go (notifications/resources/list_changed).
func NewServer(ctx context.Context, o Options) (*Server, error) {
	if o.Store == nil {
		return nil, errors.New("mcp: Options.Store is nil")
	}
	if o.Language != adk.LanguageEnglish && o.Language != adk.LanguageChinese {
		return nil, fmt.Errorf("mcp: unsupported Language %v", o.Language)
	}
	if o.As != "" {
		if err := CheckName(o.As); err != nil {
			return nil, err
		}
	}
	if o.Version == "" {
		o.Version = "devel"
	}
	s := &Server{o: o, agents: map[string]map[string]*tools.PlanTool{}, named: map[*sdk.ServerSession]string{}}
	instruction, specs, err := s.hostTools("")
	if err != nil {
		return nil, err
	}
	s.Server = sdk.NewServer(&sdk.Implementation{Name: "planctl", Title: "plan", Version: o.Version}, &sdk.ServerOptions{
		Instructions:       strings.TrimSpace(instruction),
		Capabilities:       &sdk.ServerCapabilities{Resources: &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true}},
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	for _, t := range specs {
		if err := s.addTool(ctx, t); err != nil {
			return nil, err
		}
	}
	if err := s.serveResources(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// hostTools builds the Eino middleware's tools acting as agent, and its instruction.
func (s *Server) hostTools(agent string) (string, []*tools.PlanTool, error) {
	mw, err := plan.NewTyped[*schema.Message](context.Background(), &plan.Config{Store: s.o.Store, Language: s.o.Language,
		Role: plan.RoleOrchestrator, AgentName: agent, RequireApproval: s.o.RequireApproval})
	if err != nil {
		return "", nil, err
	}
	m, ok := mw.(*agentrun.Middleware[*schema.Message, *plan.Store])
	if !ok {
		return "", nil, fmt.Errorf("mcp: the plan middleware is a %T", mw)
	}
	instruction, planTools := m.HostTools(s.o.Language)
	return instruction, planTools, nil
}

// toolsOf returns the tools that act as agent, built on first use.
func (s *Server) toolsOf(agent string) (map[string]*tools.PlanTool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ts, ok := s.agents[agent]; ok {
		return ts, nil
	}
	_, list, err := s.hostTools(agent)
	if err != nil {
		return nil, err
	}
	ts := make(map[string]*tools.PlanTool, len(list))
	for _, t := range list {
		ts[t.Spec.Name] = t
	}
	if len(s.agents) >= maxAgents {
		for k := range s.agents {
			delete(s.agents, k)
			break
		}
	}
	s.agents[agent] = ts
	return ts, nil
}

// CheckName refuses a name that cannot name a holder a person reads: empty, longer than
// api.MaxHolderLen bytes, not UTF-8, or holding a control character.
func CheckName(name string) error {
	switch {
	case strings.TrimSpace(name) == "":
		return errors.New("mcp: a client's name is empty")
	case len(name) > api.MaxHolderLen:
		return fmt.Errorf("mcp: a client's name is longer than %d bytes", api.MaxHolderLen)
	case !utf8.ValidString(name):
		return errors.New("mcp: a client's name is not UTF-8")
	case strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("mcp: a client's name %q holds a control character", name)
	}
	return nil
}
