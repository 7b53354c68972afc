package plan

// textsEN holds every English text a model sees. tools_zh.go must have the same keys.
// Keys: a tool name is its description, "tool.param" a parameter's, "instruction*" the
// agent instruction, "template*" the plan_template result, "digest*" the run digest.
var textsEN = map[string]string{
	"instruction": `
## Plans
Shared Markdown plans, by name, seen by every agent on this task. Use one for multi-step work or hand-over; checklist items (- [ ] step) are its steps.
- list_plans first; read_plan before changing a plan.
- Writes return a revision: pass it as last_known_revision (0 = create only). On revision_conflict re-read, then retry.
- update_plan_step marks progress; set_plan_status sets the status. Don't rewrite the plan for these.
- Errors are {"error":{"code","message"}}: do what the message says.
`,
	"instruction.files":    "- Big edits: export_plan_to_file, edit the file with your file tools, then update_plan_from_file.\n",
	"instruction.template": "- To plan new work, call plan_template first.\n",

	"write_plan":                     "Create or replace a plan (Markdown body). Omitted fields are kept.",
	"write_plan.name":                "Plan name: a-z 0-9 - _, max 64.",
	"write_plan.content":             "Full Markdown body; steps as - [ ] items.",
	"write_plan.title":               "",
	"write_plan.author":              "",
	"write_plan.status":              "Free text, e.g. draft, in-progress, done.",
	"write_plan.last_known_revision": "Revision you read; 0 = must not exist yet.",

	"read_plan":      "Read a plan: body, status, revision, progress.",
	"read_plan.name": "",

	"list_plans": "List plans with status, revision and progress.",

	"delete_plan":                     "Delete a plan.",
	"delete_plan.name":                "",
	"delete_plan.last_known_revision": "",

	"set_plan_status":                     "Set a plan's status without touching the body.",
	"set_plan_status.name":                "",
	"set_plan_status.status":              "",
	"set_plan_status.last_known_revision": "",

	"get_plan_status":      "Get status, revision, progress and current step.",
	"get_plan_status.name": "",

	"update_plan_step":                     "Set one checklist step's state. Legal: pending→in_progress|completed|failed|skipped, in_progress→completed|failed.",
	"update_plan_step.name":                "",
	"update_plan_step.step":                "Step number, from 1.",
	"update_plan_step.status":              "pending, in_progress, completed, failed or skipped.",
	"update_plan_step.note":                "Short note added to the step's line.",
	"update_plan_step.last_known_revision": "",

	"export_plan_to_file":      "Write a plan's body to a workspace file, to edit it cheaply.",
	"export_plan_to_file.name": "",
	"export_plan_to_file.path": "Workspace file path.",

	"update_plan_from_file":                     "Replace a plan's body with a workspace file.",
	"update_plan_from_file.name":                "",
	"update_plan_from_file.path":                "Workspace file path.",
	"update_plan_from_file.title":               "",
	"update_plan_from_file.author":              "",
	"update_plan_from_file.status":              "",
	"update_plan_from_file.last_known_revision": "",

	"plan_template":      "Get a guide for writing a new plan for a goal. Creates nothing.",
	"plan_template.goal": "What the plan must achieve.",

	"template": `# How to write the plan

Write the plan as Markdown with these sections:

# <Title: the outcome in a few words>
## Goal
What is done when this plan is done, and for whom.
## Context
Facts, constraints and links the executors need; decisions already made.
## Steps
- [ ] One checklist item per step, in order, each small enough for one agent in one go
- [ ] Start each step with a verb; name the file, component or agent it concerns
## Risks
What could go wrong, and what to do then.
## Verification
How to check the result (tests to run, outputs to inspect).
`,
	"template.goal":     "Goal of this plan:",
	"template.naming":   "Name rules: lowercase a-z, 0-9, '-' and '_', starting with a letter or digit, at most 64 characters, e.g. \"release-2-0\". Existing plans (pick a different name):",
	"template.none":     "(none)",
	"template.finish":   "Create it with write_plan, giving name, title, content and last_known_revision 0 (create only). Executors then mark steps with update_plan_step.",
	"digest.header":     "\n## Current plans\n",
	"digest.next":       "next",
	"digest.more":       "more: call list_plans",
	"digest.unreadable": "unreadable: call list_plans",
}
