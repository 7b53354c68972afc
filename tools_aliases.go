package plan

import "github.com/einoplan/plan/internal/tools"

// Completion is a step completion about to land, as Config.Verify sees it: nothing of it is
// written until Verify returns nil.
type Completion = tools.Completion

// CostReport is what a host hears of a step's cost (Config.OnCost, and an event of the run
// whose Output.CustomizedOutput is the CostReport): when the step leaves in_progress, and
// when it first goes over its budget or its plan's (Over).
type CostReport = tools.CostReport

// Role decides whether an agent run may use plan_template and request_plan_approval.
type Role = tools.Role

// RoleAuto decides per run: a run started inside a run of an agent that uses this
// package (a sub-agent called through adk.NewAgentTool or a deep agent's task tool) is
// a sub-agent, any other run is the orchestrator. One middleware can therefore serve a
// deep agent and its general-purpose sub-agent, as deep.New requires.
const RoleAuto = tools.RoleAuto

// RoleOrchestrator always offers plan_template.
const RoleOrchestrator = tools.RoleOrchestrator

// RoleSubAgent never shows plan_template to the model; a call to it anyway returns
// tool_not_available.
const RoleSubAgent = tools.RoleSubAgent

const ToolDeletePlan = tools.ToolDeletePlan

const ToolExportPlanToFile = tools.ToolExportPlanToFile

const ToolGetPlanStatus = tools.ToolGetPlanStatus

const ToolListPlans = tools.ToolListPlans

const ToolPlanTemplate = tools.ToolPlanTemplate

const ToolReadPlan = tools.ToolReadPlan

// ToolRequestPlanApproval asks a person to approve a plan. It is offered only with
// Config.RequireApproval, and only to the orchestrator.
const ToolRequestPlanApproval = tools.ToolRequestPlanApproval

const ToolSetPlanStatus = tools.ToolSetPlanStatus

const ToolUpdatePlanFromFile = tools.ToolUpdatePlanFromFile

const ToolUpdatePlanStep = tools.ToolUpdatePlanStep

const ToolWritePlan = tools.ToolWritePlan
