package agentrun

import (
	"context"

	"github.com/cloudwego/eino/adk"
)

// This file is the one place that names Eino's run context, whose type changes between
// Eino lines. On v0.9.21 BeforeAgent receives *adk.ChatModelAgentContext for every message
// type. Eino's next line passes *adk.ChatModelAgentContext[M] instead (M the agent's message
// type, as in TypedChatModelAgentMiddleware[M, S]); serving it means changing the two
// parameter and result types below to *adk.ChatModelAgentContext[M], and nothing else: the
// middleware reads and writes only Instruction and Tools, through runSetup.

// BeforeAgent adds the plan tools, the instruction and the digest to the run, and marks
// the run's context with its role so that runs started inside it know they are
// sub-agents. A nil run context is passed on unchanged; on an error the run context is
// returned unchanged.
func (m *Middleware[M, S]) BeforeAgent(ctx context.Context, runCtx *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	if runCtx == nil {
		return ctx, runCtx, nil
	}
	ctx, setup, err := m.beforeAgent(ctx, runSetup{Instruction: runCtx.Instruction, Tools: runCtx.Tools})
	if err != nil {
		return ctx, runCtx, err
	}
	next := *runCtx
	next.Instruction, next.Tools = setup.Instruction, setup.Tools
	return ctx, &next, nil
}
