package plan

// textsEN holds every English text a model sees. tools_zh.go must have the same keys.
// Keys: a tool name is its description, "tool.param" a parameter's, "instruction*" the
// agent instruction, "template*" the plan_template result, "digest*" the run digest.
var textsEN = map[string]string{
	"instruction": `
## Plans
Shared Markdown plans, by name, seen by every agent on this task, for multi-step work or hand-over; checklist items (- [ ] step) are its steps.
- list_plans first; read_plan before rewriting a plan.
- Changes return a revision: pass your latest as last_known_revision (0 = create only). On revision_conflict, read_plan since_revision, then retry.
- update_plan_step marks progress, no read needed; name and step may be omitted (in_progress: the next free step). Move on in the same message as your next work call: update_plan_step(next: true) listed first: it completes your step and takes the next. set_plan_status sets the status; don't rewrite the plan for these.
- On an error, do what its message says.
`,
	"instruction.files":    "- Big edits: export_plan_to_file, edit the file with your file tools, then update_plan_from_file.\n",
	"instruction.template": "- To plan new work, call plan_template first.\n",
	"instruction.evidence": "", // the full set teaches evidence in update_plan_step.evidence

	"write_plan":                     "Create or replace a plan. Omitted fields are kept.",
	"write_plan.name":                "a-z 0-9 - _, max 64.",
	"write_plan.content":             "Markdown; steps are - [ ] items; one ending in (after 2, 3) waits for steps 2 and 3.",
	"write_plan.title":               "",
	"write_plan.author":              "",
	"write_plan.status":              "Free text, e.g. draft, done.",
	"write_plan.last_known_revision": "Revision you read; 0: create only.",

	"read_plan":                "Read a plan: body, status, revision, progress.",
	"read_plan.name":           "",
	"read_plan.since_revision": "Only the changes since this revision.",

	"list_plans": "List plans with status, revision and progress.",

	"delete_plan":                     "Delete a plan.",
	"delete_plan.name":                "",
	"delete_plan.last_known_revision": "",

	"set_plan_status":                     "Set a plan's status, not its body.",
	"set_plan_status.name":                "",
	"set_plan_status.status":              "",
	"set_plan_status.last_known_revision": "",

	"get_plan_status":      "Get status, revision, progress and current step.",
	"get_plan_status.name": "",

	"update_plan_step":                     "Move a step. Legal: pending→in_progress|completed|failed|skipped, in_progress→completed|failed.",
	"update_plan_step.name":                "",
	"update_plan_step.step":                "From 1. Omit: the next ready step (in_progress), else the one you hold.",
	"update_plan_step.status":              "pending, in_progress, completed, failed or skipped.",
	"update_plan_step.note":                "Added to the step's line.",
	"update_plan_step.last_known_revision": "",
	"update_plan_step.takeover":            "Take a step another agent holds, only if it stopped.",
	"update_plan_step.next":                "Finish your step (completed, or skipped/failed as status says) and take the next ready one.",

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
	"digest.header":     "\n## Current plans (as of {time}; read_plan has the latest)\n",
	"digest.next":       "next",
	"digest.more":       "more: call list_plans",
	"digest.unreadable": "unreadable: call list_plans",

	"err.args_not_object":    "arguments must be a JSON object, e.g. {\"name\":\"release-2\"}",
	"err.args_not_json":      "arguments are not valid JSON; send one JSON object with the documented fields",
	"err.args_too_large":     "arguments are {size} bytes; a plan is at most {limit} bytes. Shorten the plan or split it into several plans",
	"err.args_over_limit":    "arguments are {size} bytes, over this tool's {limit}-byte limit; send only the short values it takes",
	"err.required":           "{field} is required",
	"err.not_string":         "{field} must be a string, not {value}",
	"err.not_integer":        "{field} must be an integer, not {value}",
	"err.empty":              "{field} must not be empty",
	"err.not_utf8":           "{field} is not valid UTF-8 text; send it again as text",
	"err.too_long":           "{field} is {size} bytes; at most {limit} allowed",
	"err.name_invalid":       "name {value} is invalid; use only lowercase a-z, 0-9, '-' and '_', starting with a letter or digit, e.g. \"release-2\"",
	"err.path_unusable":      "{field} is not a usable file path",
	"err.path_escapes":       "path {path} leaves the workspace; use a path inside it without \"..\"",
	"err.path_relative":      "path {path} is relative; give an absolute path, such as /work/plan.md",
	"err.path_in_plans":      "path {path} is inside the plans folder {value}, which only the plan tools change; use a path outside it",
	"err.workspace_write":    "cannot write {path} in the workspace; check the path with your file tools",
	"err.workspace_read":     "cannot read {path} from the workspace; check the path with your file tools",
	"err.needs_content":      "plan {name} does not exist yet; give content to create it",
	"err.revision_negative":  "last_known_revision {rev} is negative; use the revision from read_plan, or 0 to create a new plan",
	"err.delete_create_only": "last_known_revision 0 means create-only; give the plan's current revision to delete it, or omit it",
	"err.step_number":        "step must be a step number from 1; read_plan lists them",
	"err.step_missing":       "step {step} does not exist; checklist steps in this plan: {steps}. read_plan lists them",
	"err.step_state_unknown": "unknown step state {value}; valid states: pending, in_progress, completed, failed, skipped",
	"err.note_multiline":     "note must be a single line; remove the line breaks",
	"err.goal_invalid":       "goal must be non-empty UTF-8 text of at most {limit} bytes",
	"err.no_plan":            "no plan named {name}; call list_plans to see the existing names",
	"err.no_plan_guarded":    "no plan named {name} (it may have been deleted); call list_plans, or create it with last_known_revision 0",
	"err.no_file":            "no file at {path} in the workspace; export_plan_to_file writes one",
	"err.exists":             "plan {name} already exists at revision {current}; read it and retry with last_known_revision {current}, or pick another name",
	"err.stale":              "plan {name} is at revision {current}, not {rev}: someone else changed it. Re-read it with read_plan (since_revision {rev} gives only the changes) and retry with last_known_revision {current}",
	"err.content_too_large":  "content is {size} bytes; the limit is {limit}. Shorten the plan or split it into several plans",
	"err.stored_too_large":   "the stored plan is larger than {limit} bytes; delete it with delete_plan without last_known_revision, or ask a person to raise the size limit",
	"err.file_too_large":     "file {path} is over the {limit}-byte plan limit; shorten it",
	"err.undecodable":        "plan {name} cannot be decoded; delete it with delete_plan without last_known_revision, then write it again",
	"err.not_plan_file":      "this plan's stored entry is not a plan file (a link, a folder or a special file); delete it with delete_plan without last_known_revision, then write the plan again",
	"err.revision_exhausted": "plan {name} cannot get a revision past {current}: its file was edited by hand; ask a person to repair it",
	"err.same_state":         "step {step} is already {from}; nothing to change",
	"err.in_progress_only":   "step {step} is in_progress and can only become completed or failed, not {to}; to replan, rewrite the plan",
	"err.final_state":        "step {step} is {from}, a final state, and cannot become {to}; to replan, rewrite the plan",
	"err.orchestrator_only":  "plan_template is for the orchestrator only; work on the plan you were given (read_plan, update_plan_step)",
	"err.storage":            "the plan storage failed; try again later",
	"err.contention":         "too many agents are changing plan {name} at once; try again",
	"err.canceled":           "the request was canceled before anything was written",
	"err.unknown_outcome":    "the plan storage failed during the change and could not tell whether it was done; re-read the plan with read_plan before changing it again",
	"err.no_revision":        "revision {rev} of plan {name} is no longer kept; read_plan without since_revision gives the whole plan (revision {current})",
	"err.list_limit":         "limit must be from 1 to {limit}",
	"list_plans.limit":       "Plans per page (default 50).",
	"list_plans.cursor":      "next_cursor of the previous page.",
	"list_plans.status":      "Only plans of exactly this status.",
	"digest.proof":           "(proof T) at the end of a step: it completes only after your call of T passes while you hold it, after your last change; run T, then complete.",
	"digest.title":           "title",
	"digest.status":          "status",
	"digest.done":            "done",
	"template.more":          "and {n} more (list_plans pages through them)",
	"kind.string":            "a string",
	"kind.number":            "a number",
	"kind.boolean":           "a boolean",
	"kind.array":             "an array",
	"kind.object":            "an object",
	"kind.null":              "null",
	"err.file_not_utf8":      "file {path} is not valid UTF-8 text; rewrite it with your file tools, then call update_plan_from_file again",
	"err.file_empty":         "file {path} is empty; write the plan into it with your file tools first",
	"err.not_boolean":        "{field} must be true or false, not {value}",
	"err.step_held":          "step {step} is held by {agent}, who moved it to in_progress; take next_step instead, or pass takeover true only if {agent} has stopped working on it",
	"err.step_moved":         "step {step} was changed by {agent} since revision {rev} and is {from} now, so it cannot become {to}; take next_step instead (current revision {current})",
	"err.steps_changed":      "the steps of plan {name} were added, removed, reworded or reordered since revision {rev}, so step numbers may have moved; catch up with read_plan since_revision {rev}, then retry with last_known_revision {current}",
	"err.person_changed":     "a person ({agent}) changed plan {name} since revision {rev}, which you based this change on; nothing was written. Read what they changed with read_plan since_revision {rev}, follow it, then retry with last_known_revision {current} if the change still makes sense",
	"err.hold_taken":         "your hold on step {step} expired (you did not move it within the lease) and {agent} took the step over at revision {rev}; it is {from} now, so your change was not written. Do not redo its work: take next_step instead, or check get_plan_status",
	"lease.until":            ". The hold runs out at {at} (in {in}) unless its holder renews it: keep working on other steps or wait until then, call get_plan_status again, and take the step if it is free",
	// Approval (Config.RequireApproval).
	"instruction.approval":           "- Steps start once a person approved the plan (it then shows approval): after writing it, call request_plan_approval.\n",
	"instruction.approval.sub":       "- Steps move only on approved plans (they show approval); on not_approved, report back.\n",
	"request_plan_approval":          "Ask a person to approve a plan (the run waits).",
	"request_plan_approval.name":     "",
	"request_plan_approval.message":  "Note to the person.",
	"approval.approved":              "Approved: start the steps with update_plan_step.",
	"approval.rejected":              "Not approved. Revise the plan as the feedback says (write_plan from revision), then call request_plan_approval again.",
	"approval.already":               "Already approved; nothing to ask.",
	"approval.waiting":               "Waiting for a person: they approve or reject this revision on the plan board or with planctl. Steps start once the plan shows approval (get_plan_status); do not ask again meanwhile.",
	"digest.approved":                "approved",
	"err.not_approved":               "plan {name} is not approved yet, so its steps cannot move; call request_plan_approval, or wait for a person to approve it",
	"err.not_approved.gated":         "plan {name} is not approved yet, so its steps cannot move; make each step that needs a tool with side effects end with (uses tool_name), then call request_plan_approval, or wait for a person to approve it",
	"err.approval_stale":             "plan {name} changed from revision {rev} to {current} while a person reviewed it; nothing was approved. Read it with read_plan, then call request_plan_approval again",
	"err.no_decision":                "no decision was given on plan {name}; it is not approved. Call request_plan_approval again later, or wait for a person",
	"err.approval_orchestrator_only": "request_plan_approval is for the orchestrator only; wait until a person approves the plan, or tell the orchestrator it needs approval",
	"err.after_unknown":              "step {step} waits for step {value}, which the plan does not have (it has {steps} steps); nothing was written. Fix the \"(after …)\" of step {step} and write the plan again",
	"err.after_cycle":                "steps {waits} wait for each other in a cycle, so none of them could ever start; nothing was written. Remove one \"(after …)\" of the cycle and write the plan again",
	"err.step_blocked":               "step {step} waits for steps {waits}, which are not completed or skipped yet; take next_step instead, or wait until they are done",
	"err.skip_awaited":               "step {step} was not skipped: steps {waits} wait for it, and on a plan that needs approval only a person skips such a step. Do step {step}, ask a person to skip it, or write the plan without it and have a person approve that (request_plan_approval)",
	"err.no_ready_step":              "no pending step of plan {name} can start yet: they wait for steps {waits}, which others are working on or which failed. Finish your own steps, or check get_plan_status later",
	"reminder.header":                "Plans you work on were changed by others since your last turn (read_plan for details):\n",
	"reminder.by":                    "by",
	"reminder.rewritten":             "steps rewritten",
	"err.no_pending_step":            "no step of plan {name} is pending: every step is taken or finished. Check get_plan_status, then finish your own steps or stop",
	"err.step_changed":               "step {step} changed since revision {rev} and is {from} now, so it cannot become {to}; take next_step instead (current revision {current})",
	"err.note_tag":                   "the note {value} ends like a holder's tag (@name), which would name a holder; reword its end",
	"err.note_after":                 "the note {value} ends like \"(after N)\", which would change which steps step {step} waits for; reword its end",
	"err.note_asks":                  "the note {value} would change whether step {step} asks for review or its budget (its \"(review)\", \"(budget …)\"); reword its end",
	"err.note_uses":                  "the note {value} would change which tools step {step} may use (its \"(uses …)\"); reword its end",
	"err.claim_in_text":              "step {step} ends like a holder's tag (@name), and only update_plan_step holds steps; end that step differently (e.g. \"(by name)\") and send the plan again",
	"err.set_aside":                  "files the plan store did not write stood where it keeps history; they were moved to {path} for a person to look at. Plans are not affected",
	// Gated tools (Config.GatedTools), plan sets (Config.PlanSet), patched results.
	"instruction.gated":          "- Tools with side effects run only while you hold an in_progress step of an approved plan that names them: end the step with (uses tool_a, tool_b). Take the step with update_plan_step first; on not_approved, do what the message says.\n",
	"instruction.set":            " ({set})",
	"gate.no_agent":              "{tool} did not run: this agent has no name, so it cannot hold a plan step, and {tool} runs only under a held step of an approved plan. Tell the person running you",
	"gate.no_plan":               "{tool} did not run: it runs only under a step you hold of an approved plan, and there is no plan. Write one with write_plan whose step ends with (uses {tool}), call request_plan_approval, take that step with update_plan_step (status in_progress), then call {tool} again",
	"gate.no_plan.sub":           "{tool} did not run: it runs only under a step you hold of an approved plan, and there is no plan. Report back that the work needs an approved plan",
	"gate.not_approved":          "{tool} did not run: it runs only under a step you hold of an approved plan, and no plan is approved (plan {name} is at revision {rev}). Make sure the step ends with (uses {tool}), call request_plan_approval, take the step with update_plan_step (status in_progress), then call {tool} again",
	"gate.not_approved.sub":      "{tool} did not run: it runs only under a step you hold of an approved plan, and no plan is approved (plan {name} is at revision {rev}). Report back that plan {name} needs approval",
	"gate.hold_not_approved":     "{tool} did not run: you hold step {step} of plan {name}, but revision {rev} of it is not approved (a change revoked the approval). Make sure the step ends with (uses {tool}), call request_plan_approval for plan {name}, then call {tool} again",
	"gate.hold_not_approved.sub": "{tool} did not run: you hold step {step} of plan {name}, but revision {rev} of it is not approved (a change revoked the approval). Report back that plan {name} needs approval again",
	"gate.no_step":               "{tool} did not run: you hold no step in progress of an approved plan. Take one whose (uses …) names {tool} with update_plan_step (plan {name}, status in_progress), then call {tool} again",
	"gate.tool_not_named":        "{tool} did not run: you hold step {step} of plan {name}, but a step unlocks only the tools its (uses …) names, and it names {uses}. Rewrite the step to end with (uses {tool}) (write_plan), call request_plan_approval so a person approves it again, take it with update_plan_step, then call {tool} again",
	"gate.tool_not_named.sub":    "{tool} did not run: you hold step {step} of plan {name}, but a step unlocks only the tools its (uses …) names, and it names {uses}. Report back that the step must name {tool} in (uses …) and be approved again",
	"gate.uses_none":             "none",
	"template.uses":              "A step that needs a tool with side effects names it at its end, after any (after …): - [ ] Deploy to production (after 3) (uses deploy_prod). A person approves exactly that; a step naming no tools can use none.",
	"gate.unavailable":           "{tool} did not run: the plans cannot be read right now, so no approved step can be checked. Try again in a moment",
	"patched.approval":           "no decision came for plan {name}: the request for approval was abandoned, and the plan is not approved. Call request_plan_approval again if it still needs approval",
	"patched.other":              "{tool} did not finish: the run stopped before its result came. Check what it did before calling it again",
	// Forgiving arguments: refusals of what has no one meaning, and the note on a call read after normalizing.
	"err.unknown_argument":    "{field} is not an argument of this tool; it takes {value}. Send the call again with those names",
	"err.conflicting_aliases": "{value} all mean {field} but have different values; give {field} once",
	"err.repeated_argument":   "{field} appears more than once with different values; give {field} once",
	"err.step_index":          "{field} is ambiguous (it may count from 0); give step instead: the step's number counting from 1, as read_plan lists it",
	"normalized.unwrapped":    "arguments: one bare JSON object",
	// The file tools' guard: a path in a plans folder or at a key; a search that holds one.
	"err.plans_off_limits":    "{path} is inside the plans folder {value} or is the key approvals are sealed with; file tools may not read, list or change it, so this call did nothing. Read plans with read_plan and change them with write_plan and update_plan_step",
	"err.search_covers_plans": "{field} {path} holds the plans folder {value} or the key approvals are sealed with, which file tools may not search, so this call did nothing. Search a folder that does not hold it (a subfolder of your project); read plans with read_plan",
	// A kept revision that cannot be verified.
	"err.rolled_back":           "the file of plan {name} is revision {rev}, older than revision {current} the Store wrote last: someone put an old copy back by hand, so the plan cannot be used; tell the person, who must restore or delete it",
	"err.revision_mismatch":     "the kept copy of revision {rev} of plan {name} could not be verified, so the changes since it cannot be shown; read the whole plan (revision {current}) instead",
	"err.revision_unverifiable": "revision {rev} of plan {name} was kept in an older format that cannot be verified, so the changes since it cannot be shown; read the whole plan (revision {current}) instead",
	"err.newer_format":          "plan {name} was written by a newer version of the plan store (file format {value}), which this one cannot change without losing what it recorded; read it, and ask a person to upgrade the plan store",
	// Evidence, verification, review and budgets.
	"update_plan_step.evidence": "With completed: what shows it done (command and exit code, test counts, link).",
	"err.evidence_state":        "evidence goes with status completed, failed or skipped, not {to}; send it with the move that finishes the step",
	"err.evidence_form":         "the evidence has control characters or the text \" — evidence: \" or \" — cost: \"; send it as plain text on one paragraph",
	"err.evidence_required":     "step {step} of plan {name} was not completed: a completion needs evidence. Call update_plan_step again with evidence: what shows it is done (a command and its exit code, test counts, a link)",
	"err.not_verified":          "step {step} of plan {name} was not completed: the check of your completion failed: {said}. The step is still yours; fix what it says, then complete it again with new evidence",
	"err.note_proof":            "the note {value} would read as evidence or a cost (\"evidence: \", \"cost: \" after \" — \"); send evidence in evidence, and reword the note",
	"err.review_own":            "step {step} of plan {name} awaits review of your own work; another agent or a person completes it. Take next_step instead",
	"err.cost_invalid":          "a step's cost was refused: a count is negative or too large, or the move to {to} finishes nothing",
	"step.awaiting_review":      "step {step} awaits review: another agent or a person completes it. Take next_step",
	"gate.over_budget":          "{tool} did not run: step {step} of plan {name}, which you hold, went over its own budget. Only a person can raise it: finish the step without {tool}, or ask a person to raise the budget",
	"gate.over_budget.sub":      "{tool} did not run: step {step} of plan {name}, which you hold, went over its own budget. Report back that step {step} needs a higher budget",
	"gate.over_budget.plan":     "{tool} did not run: plan {name}, whose step {step} you hold, went over the plan's budget. Only a person can raise it: finish the step without {tool}, or ask a person to raise the plan's budget",
	"gate.over_budget.plan.sub": "{tool} did not run: plan {name}, whose step {step} you hold, went over the plan's budget. Report back that plan {name} needs a higher budget",
	"err.next_state":            "next goes with status completed, skipped or failed, not {to}: it takes the next step as this one finishes",
	"step.none_ready":           "no step is ready to take",
	"budget.tokens":             "{left} of {budget} tokens",
	"budget.time":               "{left} of {budget}",
	"budget.and":                ", ",
	"budget.step":               "{amount} left",
	"budget.plan":               "{amount} left in the plan's budget",
	"reminder.budget":           "Budget: step {step} of plan {name} has {left} ({spent}% spent).",
	"err.budget_invalid":        "budget {value} does not read; write \"200k tokens\", \"1h\" or \"200k tokens, 1h\"",
	"err.lean_worker":           "you only take and finish steps: use update_plan_step and read_plan",
	// Proof the host observed, and who fails a step others wait for.
	"err.unproven":         "step {step} of plan {name} was not completed: it completes only on a passing call of {value} that you make while you hold it, after your last change. Call {value} now; when it passes, complete the step again (what you write as evidence does not count)",
	"err.note_proof_tools": "the note {value} would change which tools prove step {step} done (its \"(proof …)\"); reword its end",
	"err.observed_in_text": "step {step} carries \" — observed: \", which only the plan store writes when it saw a passing run; leave that mark out (or as it was) and send the plan again",
	"err.fail_awaited":     "step {step} of plan {name} was not marked failed: you do not hold it and steps {waits} wait for it. Take it first (update_plan_step, status in_progress), or report the problem to a person",
	"step.proof":           "step {step} completes only after a passing call of {value} you make while you hold it, after your last change",
	// Config.AdvanceOnProof: a passing proof completes the step and takes the next.
	"digest.proof_advance":          "(proof T) at a step's end: once your call of T passes while you hold the step (after your last change), it completes itself and the next ready one is yours.",
	"err.unproven_advance":          "step {step} of plan {name} was not completed: it completes only on a passing call of {value} that you make while you hold it, after your last change. Call {value} now; when it passes, the step completes itself and the next ready one is yours (what you write as evidence does not count)",
	"step.proof_advance":            "step {step} completes itself when your call of {value} passes, after your last change; the next ready step is then yours",
	"advance.evidence":              "{value} passed",
	"reminder.advanced":             "Plan {name}: step {step} completed; yours now: step {next} {text}; done {done}.",
	"reminder.advanced_none":        "Plan {name}: step {step} completed; no step is ready to take; done {done}.",
	"reminder.advanced_review":      "Plan {name}: step {step} awaits someone else's review; yours now: step {next} {text}; done {done}.",
	"reminder.advanced_review_none": "Plan {name}: step {step} awaits someone else's review; no step is ready to take; done {done}.",
	"reminder.holding":              "Plan {name}: step {next} is yours: {text}.",
	"reminder.advanced_budget":      " Step {next} has {budget}.",
	"reminder.advance_refused":      "Plan {name}: {value} passed, but step {step} stays yours: {reason}",
	"verify.failed":                 "the verifier failed",
	"verify.timeout":                "the verifier did not answer in time",
	"template.proof":                "A step that a passing run proves names the tool at its end: - [ ] Fix the parser (uses edit_file) (proof run_tests). It completes only after the run passes, after the last edit.",
	// People's comments on steps.
	"comments.open":        "People commented on the steps listed in comments (step 0: the whole plan). Answer each: rewrite that step as it asks (write_plan), or reply on that step with update_plan_step, its status unchanged, and a note (allowed before approval too). request_plan_approval is refused until every comment is answered.",
	"err.comments_open":    "plan {name} has {size} open comments of people (listed in comments; step 0 is the whole plan), so it was not put to a person. Answer each first: rewrite the step it names as it asks (write_plan), or reply on that step with update_plan_step, its status unchanged, and a note; then call request_plan_approval again",
	"err.comments_full":    "plan {name} keeps at most {limit} comments and all {size} are open; answer or resolve one first",
	"err.comment_unknown":  "plan {name} has no comment {value}; read_plan lists the open ones",
	"err.comment_by_agent": "only a person comments on plan {name} or resolves its comments; answer a comment by rewriting its step or with update_plan_step's note on it, its status unchanged",

	"err.no_held_step": "you hold no step in progress of plan {name}, so no step was moved: pass step (its number), or take one first (status in_progress)",
	"err.held_steps":   "you hold {size} steps in progress of plan {name} ({said}), so no step was moved: pass step, the number of the one you mean",
	"err.plan_unnamed": "name is missing and {size} plans could be meant ({said}), so nothing was moved: pass name",

	// A plan file put back, or a write interrupted, where history is kept just before a write.
	"err.put_back_or_interrupted": "the history of plan {name} keeps its file, revision {rev}, as replaced by revision {current}: someone put an old copy back by hand, or a write was interrupted, so the plan cannot be used; tell the person, who must delete it",
}

// leanEN replaces the texts of the same keys for a lean worker (tools_lean.go).
var leanEN = map[string]string{
	"instruction": `
## Plans
Shared plans; you work their steps. update_plan_step status in_progress takes the next free step (yours); do it, then send next: true (completes it, takes the next), listed before your next work call in the same message. Name and step may be omitted. On an error, do what its message says.
`,
	"instruction.evidence":                 "- A completion needs evidence: what shows the step done.\n",
	"update_plan_step":                     "Take (in_progress) or finish a step.",
	"update_plan_step.step":                "Omit: next free step, or yours.",
	"update_plan_step.status":              "in_progress, completed, failed or skipped.",
	"update_plan_step.note":                "",
	"update_plan_step.evidence":            "With completed: what shows it done.",
	"update_plan_step.takeover":            "Only if its holder stopped.",
	"update_plan_step.next":                "Complete yours, take the next.",
	"update_plan_step.last_known_revision": "",
	"read_plan":                            "Read a plan.",
	"read_plan.since_revision":             "Only changes since.",
	"instruction.approval.sub":             "- Steps move on approved plans only; on not_approved, report back.\n",
	"instruction.gated":                    "- Side-effect tools run only while you hold an in_progress step of an approved plan.\n",
}
