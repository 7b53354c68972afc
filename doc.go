// Package plan gives Eino agents shared, durable, cheap-to-edit plans.
//
// Add the middleware returned by [New] to a ChatModelAgent's Handlers and its model gets plan
// tools (write_plan, read_plan, list_plans, update_plan_step, set_plan_status, ...), a short
// instruction and a digest of the current plans. Host programs reach the same plans, with
// the same locks and checks, through [Store]; people reach them with the planctl command
// (github.com/einoplan/plan/cmd/planctl).
//
// # Plans and steps
//
// A plan is a Markdown body with a small header (title, status, author, revision, time of
// the last update), stored by name as NAME.md in the Store's BaseDir. Its checklist items are
// steps, whose state is the marker between the brackets: "- [ ]" pending, "- [~]" in
// progress, "- [x]" completed, "- [!]" failed, "- [-]" skipped. update_plan_step moves one
// step without the model sending the plan again, and every summary carries the progress
// and the current step, so a model rarely needs to read a whole plan.
//
// # Where the fields are
//
// The values a host builds and reads ([Plan], [Step], [StepMove], [Update], [StoreConfig],
// [Change], [Revision], [Error], [ApprovalRequest], [ApprovalDecision], [GatedCall],
// [Completion], [CostReport], [WatchOptions] and the rest) are declared in package
// [github.com/einoplan/plan/api] and named here under the same names, so a host imports
// this package alone: `go doc github.com/einoplan/plan/api StepMove` shows a type's fields
// and what each promises. What a backend author needs is in package
// [github.com/einoplan/plan/driver].
//
// # Revisions
//
// Every write bumps the plan's revision. A write that names the revision it read
// (last_known_revision for a model, [Update].IfRevision for a host) is refused with
// revision_conflict, and changes nothing, when someone else wrote first; revision 0 only
// creates. Revisions never repeat for a name, even across a delete, so agents, processes
// and machines can share one plan without losing updates.
//
// Each plan keeps its last revisions ([Store.History], [Store.Diff]), so a step move or a
// status change that names an older revision is judged against it: it applies when the
// changes since cannot have made it wrong (other steps moved), and is a revision_conflict
// otherwise (the steps were reordered, the step itself moved). A step moved to in progress
// is held by the agent that moved it, "- [~] Build (@worker-2)", and only that agent
// finishes it unless another takes it over ([Store.MoveStep]), so parallel workers on one
// plan neither collide nor do a step twice.
//
// # Approval
//
// With Config.RequireApproval, no step of a plan moves until a person approved the plan at
// a revision: request_plan_approval pauses the run with an Eino interrupt carrying an
// [ApprovalRequest], and the host resumes it with an [ApprovalDecision]; hosts also call
// [Store.Approve] and [Store.Revoke]. Step moves keep an approval, other edits revoke it.
//
// # Roles
//
// plan_template, the plan writing guide, is for the agent that plans. With [RoleAuto], the
// default, a run started inside a run of an agent using this package (a sub-agent called
// through adk.NewAgentTool or a deep agent's task tool) is a sub-agent and never sees it,
// so one middleware can serve a deep agent and its sub-agents alike.
//
// # Changes
//
// Every successful mutation is reported as a [Change] (name, action, revision, progress,
// never the body): to Config.OnChange, and during a run as an event of the run whose
// Output.CustomizedOutput is the Change, so a program can show progress live from the
// events it already reads. A sub-agent's events reach its parent's event stream only when
// the parent sets adk.ToolsConfig.EmitInternalEvents.
//
// # Backends
//
// A [Backend] only stores bytes at paths; every plan rule lives in the Store. [MemoryBackend]
// keeps plans in the process, [LocalBackend] keeps them as files in a folder with atomic
// writes and, on Linux, macOS, the BSDs and illumos, a lock per plan that other processes
// honour, and the modules github.com/einoplan/plan/backends/redis and backends/postgres share
// them between machines. A Backend that is
// also a [driver.Locker] or a [driver.Swapper] makes guarded writes atomic beyond one process.
//
// # Errors
//
// Every mistake a model can make comes back as a JSON error result with a [Code] and a
// message saying what to do, and the run goes on. Store methods return the same codes as
// an [*Error].
package plan
