package document

import (
	"context"
	"strings"
)

// Who makes each change: the agent of a tool call or the actor a host names, recorded in
// the history, in every Change and in the holds it takes.

// ChangedBy is who makes a change: the context's actor (a tool call's agent, WithActor),
// else for a create the plan's author; "" when nobody says.
func ChangedBy(ctx context.Context, cur, next *Plan) string {
	if by := ActorOf(ctx); by != "" {
		return by
	}
	if cur == nil {
		return next.Author
	}
	return ""
}

// actorKey marks a context with who makes the changes it carries.
type actorKey struct{}

// WithActor returns ctx marked with who makes the Store changes made with it: a person
// using a host program, say. The history records name as who made each change (but an
// approval, which names its approver), MoveStep holds steps under it when given no name of
// its own, and a plan created without an author gets it. Tool calls carry the agent that
// makes them; "" leaves ctx unchanged.
func WithActor(ctx context.Context, name string) context.Context {
	if name == "" {
		return ctx
	}
	name = TruncateUTF8(strings.ToValidUTF8(name, "\uFFFD"), MaxHeaderField) // it may become an author
	return context.WithValue(ctx, actorKey{}, name)
}

func ActorOf(ctx context.Context) string {
	s, _ := ctx.Value(actorKey{}).(string)
	return s
}

// AgentCallKey marks a context as a plan tool's call: its changes are an agent's, not a
// person's. Only the tools set it, so no host context ever carries it.
type AgentCallKey struct{}

// WithAgentActor is WithActor for a tool call of agent, marked as an agent's change.
func WithAgentActor(ctx context.Context, agent string) context.Context {
	return context.WithValue(WithActor(ctx, agent), AgentCallKey{}, true)
}

// ByAgent reports whether the changes of ctx come from an agent's tool call; false means a
// host (a person through planctl, the board, or code with WithActor).
func ByAgent(ctx context.Context) bool {
	b, _ := ctx.Value(AgentCallKey{}).(bool)
	return b
}
