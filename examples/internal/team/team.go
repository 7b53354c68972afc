// Package team builds the two-agent wiring the examples share: a deep orchestrator that plans
// and a worker sub-agent that carries the steps out, on one plan Backend, each with its own
// plan middleware so each signs its own changes.
package team

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/prebuilt/deep"
	"github.com/cloudwego/eino/components/model"

	"github.com/einoplan/plan"
)

// Config is what differs between the examples.
type Config struct {
	Backend                                    plan.Backend
	OrchestratorModel, WorkerModel             model.ToolCallingChatModel
	OrchestratorDescription                    string
	OrchestratorInstruction, WorkerInstruction string
	OrchestratorIterations, WorkerIterations   int
}

// New returns the orchestrator; the worker is its only sub-agent. The orchestrator forwards
// the worker's events, so a program that prints the run's events sees the worker's changes.
func New(ctx context.Context, cfg Config) (adk.Agent, error) {
	orchestratorMW, err := plan.New(ctx, &plan.Config{Backend: cfg.Backend, AgentName: "orchestrator"})
	if err != nil {
		return nil, err
	}
	// The worker only takes and finishes steps: a lean worker's model sees read_plan and
	// update_plan_step with short texts, and every guard stays.
	workerMW, err := plan.New(ctx, &plan.Config{Backend: cfg.Backend, AgentName: "worker", LeanWorker: true})
	if err != nil {
		return nil, err
	}
	worker, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:          "worker",
		Description:   "Carries out the steps of a plan it is given, marking each one as it goes.",
		Instruction:   cfg.WorkerInstruction,
		Model:         cfg.WorkerModel,
		Handlers:      []adk.ChatModelAgentMiddleware{workerMW},
		MaxIterations: cfg.WorkerIterations,
	})
	if err != nil {
		return nil, err
	}
	return deep.New(ctx, &deep.Config{
		Name:                   "orchestrator",
		Description:            cfg.OrchestratorDescription,
		Instruction:            cfg.OrchestratorInstruction,
		ChatModel:              cfg.OrchestratorModel,
		SubAgents:              []adk.Agent{worker},
		Handlers:               []adk.ChatModelAgentMiddleware{orchestratorMW},
		ToolsConfig:            adk.ToolsConfig{EmitInternalEvents: true},
		WithoutWriteTodos:      true,
		WithoutGeneralSubAgent: true,
		MaxIteration:           cfg.OrchestratorIterations,
	})
}
