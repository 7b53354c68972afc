package main

// messagesEN holds every text planctl prints for people in English, the language it speaks
// unless -lang or the locale asks for Chinese (lang.go). messagesZH has the same keys and
// the same {placeholders}.
var messagesEN = map[string]string{
	"usage": `Usage: planctl [-dir DIR | -redis URL | -postgres URL] COMMAND [ARGS]

Commands:
  list                      list plans: name, title, status, progress, revision, approval, last update
  show NAME                 print a plan's header (approval, who holds which step) and body
  watch                     a live view of every plan, redrawn on every change (Ctrl-C quits)
                            with -acp SESSION: ACP session/update notifications, one a line
  log NAME                  the kept revisions, newest first: revision, time, action, who, status,
                            whose hold had expired
  diff NAME [FROM [TO]]     what changed from revision FROM (default: the one before TO)
                            to TO (default: the current revision)
  approve NAME -rev N       approve revision N, the one you reviewed, if the plan is still at N;
                            without -rev, print what changed since the last approved revision
  reject NAME -rev N -feedback TEXT
                            turn down revision N, saying why: a run waiting on it gets TEXT
  comment NAME STEP TEXT    comment on step STEP (0 or "plan": the whole plan); the agents must
                            answer it (rewrite the step, or a note on it) before asking again
  resolve NAME ID           close comment ID (as show lists it), answered or not
  revoke NAME               withdraw a plan's approval
  take NAME STEP [-to WHO]  hand a step in progress to WHO, or release it (no -to)
  complete NAME STEP        complete a step as a person (-by WHO, default $USER): the
                            review of a step that awaits it
  budget NAME [STEP] BUDGET
                            set what the plan, or step STEP, may cost ("200k tokens", "1h"
                            or both, comma separated); keeps its approval
  status NAME STATUS        set a plan's status
  export NAME FILE          write a plan's body to FILE ("-" for standard output)
  import NAME FILE          create a plan, or replace its body, from FILE ("-" for standard input)
  import-plantask NAME TASKDIR
                            create a plan from the tasks Eino's plantask middleware keeps in
                            TASKDIR (its BaseDir: a folder, or a path in Redis or PostgreSQL)
  rm NAME                   delete a plan
  check                     after an upgrade: what is left to do (plans to migrate, approvals
                            to give again, history that cannot be read); exit 5 if anything
  migrate [NAME]            convert what an earlier release stored (its kept revisions, the
                            file format) in NAME or in every plan; a second run does nothing;
                            -adopt-key also adopts the key 0.1.0 kept in the plans folder
  serve                     the plan board in a browser, live (-addr, default 127.0.0.1:8080),
                            at the URL it prints: it carries this run's secret
  mcp                       serve the plan tools and the plans over MCP on standard input and
                            output; clients act as their clientInfo.name, or as -as NAME

Flags, before or after the command:
  -dir DIR     folder of plan files (default $PLAN_DIR, else ./.plans);
               with -redis, the plans folder inside Redis (default /plans)
  -redis URL   plans kept in Redis, e.g. redis://localhost:6379/0 (default $PLAN_REDIS)
  -postgres URL  plans kept in PostgreSQL, e.g. postgres://user@localhost:5432/db
               (default $PLAN_POSTGRES; schema $PLAN_POSTGRES_SCHEMA)
  -prefix P    key prefix of the Redis backend (default its own)
  -lang L      en or zh: the language planctl speaks, and of the MCP tools (default: zh when
               the first of LC_ALL, LC_MESSAGES and LANG that is set starts with zh, else en)
  -rev N       change the plan only if it is still at revision N (status, import, rm, complete, budget);
               with import, -rev 0 only creates; import-plantask only creates without it;
               approve needs it
  -by WHO      who approves, rejects, completes, comments or resolves (approve, reject,
               complete, comment, resolve; default $USER)
  -feedback T  why the plan is rejected (reject)
  -to WHO      who takes the step over (take; without it the step is released)
  -addr A      where serve listens (default 127.0.0.1:8080; the board acts as $USER on loopback only)
  -as NAME     who every MCP client acts as: holder of its steps, actor in history (mcp)
  -approval    plan mode: steps move on approved plans only; offers request_plan_approval (mcp)
  -ask-client  request_plan_approval asks the person through the client (MCP elicitation) (mcp)
  -acp ID      print ACP plan updates for session ID (watch)
  -json        print JSON (list, show, log, check, migrate)
  -adopt-key   adopt the approval key inside the plans folder, where 0.1.0 kept it, when the
               folder still holds 0.1.0's files; says which approvals it makes valid (migrate)
  -limit N     list at most N plans, then say how to see the next page (list)
  -after NAME  list the plans after NAME, as that hint says (list)
  -status S    list only plans whose status is exactly S (list)

Exit status: 0 done, 1 failed, 2 usage error, 3 revision conflict (nothing changed),
4 no such plan or revision, 5 check found something to do.
`,

	"main.lang":            "-lang is en or zh, not {value}",
	"main.flag_undefined":  "unknown flag {flag}",
	"main.flag_no_value":   "{flag} needs a value",
	"main.flag_rev":        "-rev {value}: must be a revision number, 0 or more",
	"main.flag_value":      "{value} is not a value {flag} takes",
	"main.no_command":      "no command given",
	"main.unknown_command": "unknown command {name}",
	"main.arg_count":       "{command} takes {count}: planctl {synopsis}",
	"main.limit":           "-limit must be a positive number",
	"main.prefix":          "-prefix applies with -redis only",
	"main.args_range":      "{min} to {max} arguments",
	"main.args_one":        "1 argument",
	"main.args_n":          "{n} arguments",
	"main.usage_error":     "planctl: {msg}\n\n{usage}",
	"main.and":             "{list} and {last}",
	"main.flag_misuse":     "-{flag} applies to {commands} only, not to {command}",
	"sep":                  "; ",

	"list.none":    "No plans in {where}\n",
	"list.header":  "NAME\tTITLE\tSTATUS\tPROGRESS\tREV\tAPPROVED\tUPDATED\n",
	"list.upgrade": "an upgrade left something to do in {plans}: `planctl check` says what\n",
	"list.page":    "{shown} of {total} plans shown; next page: planctl list -after {cursor} -limit {limit}\n",

	"show.title":         "{name}: {title}\n",
	"show.status":        "status:   {status}\n",
	"show.revision":      "revision: {rev}\n",
	"show.approval":      "approval: {text}\n",
	"show.asked":         "asked:    {text}\n",
	"show.rejected":      "rejected: {text}\n",
	"show.author":        "author:   {author}\n",
	"show.updated":       "updated:  {time}\n",
	"show.progress":      "progress: {bar} ({percent}%)",
	"show.progress_next": "{progress}, next: step {n}, {text}",
	"show.line":          "{line}\n",
	"show.held":          "held:     {text}\n",
	"show.waiting":       "waiting:  {text}\n",
	"show.uses":          "uses:     {text}\n",
	"show.proof":         "proof:    {text}\n",
	"show.review":        "review:   {text}\n",
	"show.budget":        "budget:   {text}\n",
	"show.cost":          "cost:     {text}\n",
	"show.over":          "over:     {what} over budget; `planctl budget {name} [STEP] BUDGET` raises it\n",
	"show.waits_for":     "step {n} for {steps}",

	"fail.code":                   "planctl: {code}: {msg}\n",
	"fail.plain":                  "planctl: {msg}\n",
	"err.exists":                  "{name} already exists, at revision {rev}; nothing was changed. See it with `planctl show {name}`, or replace it with -rev {rev}",
	"err.conflict_not":            "{name} is at revision {rev}, not {given}; nothing was changed. Check it with `planctl show {name}` and retry with -rev {rev}",
	"err.conflict":                "{name} is at revision {rev}; nothing was changed. Check it with `planctl show {name}` and retry with -rev {rev}",
	"err.no_revision_yet":         "{name} has no revision {rev} yet: it is at revision {cur}",
	"err.revision_gone":           "revision {rev} of {name} is no longer kept (it is at revision {cur}); `planctl log {name}` lists the kept revisions",
	"err.comment_unknown":         "{name} has no comment {id}; `planctl show {name}` lists its comments",
	"err.revision_mismatch":       "the kept copy of revision {rev} of {name} (or of a revision after it) does not match the SHA-256 that names it, so it is not shown (it is at revision {cur}); `planctl log {name}` lists the revisions that can be verified",
	"err.revision_unverifiable":   "revision {rev} of {name} was kept by an earlier release under a CRC-32C, which cannot prove it, so it is not shown (it is at revision {cur}); `planctl log {name}` lists the revisions that can be verified",
	"err.no_plan":                 "no plan named {name} in {where}; `planctl list` shows the plans there",
	"err.no_plan_nested":          "no plan named {name} in {where}, but its plans folder has one: use -dir {nested}",
	"err.corrupt":                 "{name} cannot be read: its file is not in the plan format. Fix the file, or remove it with `planctl rm {name}` (without -rev)",
	"err.rolled_back":             "{name} is not used: its file is older than the revisions the Store wrote of it (an old copy put back by hand), and an approval it carries does not count. Put the newest file back, or remove the plan with `planctl rm {name}` (without -rev) and write it again",
	"err.put_back_or_interrupted": "{name} is not used: its history keeps its file as replaced by a newer revision (an old copy put back by hand, or a write interrupted). Remove the plan with `planctl rm {name}` (without -rev) and write it again",
	"err.import_too_large":        "{file} is larger than a plan may be ({max} bytes); shorten it or split it into several plans",
	"err.too_large":               "{name} cannot be read: its file is larger than a plan may be. Remove it with `planctl rm {name}` (without -rev)",
	"err.step_missing":            "{name} has no step {step}: its checklist has {steps} steps, as `planctl show {name}` lists them",
	"err.after_cycle":             "the steps of {name} would wait for each other in a cycle (steps {steps}), so none of them could ever start; change an (after …) so one of them does not wait. Nothing was changed",
	"err.by":                      "-by must name who approves: not empty, at most 1024 bytes of UTF-8 ({reason})",
	"err.take_refused":            "take refused the change to {name} ({reason})",
	"err.budget":                  "{value} is not a budget: write \"200k tokens\", \"1h\" or \"200k tokens, 1h\"",
	"err.invalid":                 "{command} refused the change to {name}: a title, status or author over 1024 bytes or not UTF-8",
	"err.take_illegal":            "step {step} of {name} is {state}: only a step in progress can change hands, or a pending one be started; `planctl show {name}` shows the steps",
	"err.illegal":                 "step {step} of {name} cannot move from {from} to {to}",
	"err.step_held":               "step {step} of {name} is held by {holder}; `planctl take {name} {step} -to WHO` hands it over, `planctl take {name} {step}` releases it",
	"err.not_approved":            "{name} is not approved; review it with `planctl show {name}`, then `planctl approve {name} -rev N`",
	"err.backend":                 "the plan storage at {where} failed: {err}; nothing may have changed, try again",
	"err.unknown_outcome":         "the plan storage at {where} failed during the change ({err}), so whether it landed is unknown: check with `planctl show {name}`",
	"err.canceled":                "interrupted before anything was changed",
	"err.other":                   "{command} failed on {name}",
	"err.the_plan":                "the plan",
	"err.approved_already":        "revision {rev} of {name} is approved already, by {by}; nothing was changed (the plan is at revision {cur})",
	"err.approve_ahead":           "{name} is at revision {cur}, not {rev}; nothing was approved. Review it with `planctl show {name}` and approve with -rev {cur}",
	"err.approve_behind":          "{name} changed since revision {rev}: it is at revision {cur} now, and nothing was approved. See what changed with `planctl diff {name} {rev} {cur}`, then approve with -rev {cur}",
	"warn.corrupt":                "its file is not in the plan format; `planctl rm {name}` removes it",
	"warn.rolled_back":            "its file is older than the revisions written of it (put back by hand); `planctl rm {name}` removes it",
	"warn.too_large":              "its file is larger than a plan may be; `planctl rm {name}` removes it",
	"warn.failed":                 "the storage failed to read it",
	"warn.line":                   "planctl: warning: plan {name} cannot be read ({code}): {why}\n",

	"approve.needs_rev":     "approve needs -rev N, the revision you reviewed: `planctl show {name}` prints it",
	"approve.rev0":          "-rev 0 names no revision: revisions start at 1",
	"approve.done":          "{name}: revision {rev} approved by {by}; the plan is now at revision {cur}\n",
	"revoke.nothing":        "{name}: not approved, nothing to revoke (revision {rev})\n",
	"revoke.done_of":        "{name}: the approval of revision {rev} by {by} revoked; the plan is now at revision {cur}\n",
	"revoke.done":           "{name}: the approval revoked; the plan is now at revision {cur}\n",
	"approval.none":         "not approved",
	"approval.text":         "approved at r{rev} by {by}, {when}",
	"approval.cell_waits":   "no, {who} waits",
	"approval.cell_no":      "no",
	"approval.cell":         "r{rev} by {by}",
	"approval.a_run":        "a run",
	"approval.waiting":      "{who} waits for a decision on r{rev} since {when}",
	"rejection.text":        "r{rev} by {by}, {when}",
	"rejection.feedback":    "r{rev} by {by}, {when}: {feedback}",
	"person.approves":       "$USER is not set: say who approves with -by WHO",
	"person.rejects":        "$USER is not set: say who rejects with -by WHO",
	"person.comments":       "$USER is not set: say who comments with -by WHO",
	"person.resolves":       "$USER is not set: say who resolves with -by WHO",
	"person.completes":      "$USER is not set: say who completes the step with -by WHO",
	"reject.needs_rev":      "reject needs -rev N, the revision you reviewed: `planctl show {name}` prints it",
	"reject.needs_feedback": "reject needs -feedback TEXT: say why, for the agent that revises the plan",
	"reject.done":           "{name}: revision {rev} rejected by {by}; the plan is now at revision {cur}\n",
	"since.same":            "{name}: revision {rev} is as revision {approved}, approved by {by}\n",
	"since.changes":         "{name}: changes since revision {approved}, approved by {by}:\n{diff}",
	"since.none":            "{name}: revision {rev}; no earlier approval is kept\n",

	"step.not_number":       "{value} is not a step number: steps are numbered from 1, as `planctl show {name}` lists them",
	"budget.still_approved": ", still approved",
	"budget.plan":           "{name}: budget {budget}, revision {rev}{kept}\n",
	"budget.step":           "{name}: step {n} ({text}) budget {budget}, revision {rev}{kept}\n",
	"budget.over_plan":      "the plan ({budget})",
	"budget.over_step":      "step {n} ({budget})",
	"budget.mark":           ", over budget",

	"comment.step":          "STEP is a step number, or 0 (or \"plan\") for the whole plan: `planctl show {name}` numbers them",
	"comment.done":          "{name}: comment {id} {on} by {by}; revision {rev}\n",
	"resolve.done":          "{name}: comment {id} resolved by {by}; {open} open; revision {rev}\n",
	"comment.on_plan":       "on the plan",
	"comment.on_step":       "on step {n}",
	"comment.open":          "open",
	"comment.resolved":      "resolved by {who}",
	"comment.answered":      "answered by {who}",
	"comment.answered_text": "answered by {who}: {answer}",
	"comment.line":          "comment:  {id} {on} by {author}, r{rev}, {when}: {text} [{state}]\n",

	"complete.done":    "{name}: step {n} ({text}) completed by {by}; revision {rev}\n",
	"review.step":      "step {n}",
	"review.done_by":   "step {n}, done by {who}",
	"cost.of_step":     "{cost} (step {steps})",
	"cost.of_steps":    "{cost} (steps {steps})",
	"cost.tokens":      "{prompt}+{completion} tokens",
	"cost.calls.one":   "{n} call",
	"cost.calls.other": "{n} calls",
	"cost.no_usage":    " ({n} without usage)",
	"cost.tools.one":   "{n} tool",
	"cost.tools.other": "{n} tools",
	"cost.seconds":     "{n}s",
	"cost.sep":         ", ",

	"check.error":          "{name}: cannot be checked: {err}\n",
	"check.newer":          "{name} r{rev}: file format {format} is newer than this planctl knows ({known}); use a newer planctl\n",
	"check.convertible":    "{name} r{rev}: format {format}; kept {revs} in the format of 0.1.0, not served until `planctl migrate` converts them\n",
	"check.migrate":        "{name} r{rev}: format {format}; `planctl migrate` brings the file to format {known}\n",
	"check.unreadable":     "{name} r{rev}: kept revision {kept} cannot be verified ({reason}), so it and older ones are not served; no migration can restore them\n",
	"check.reapprove":      "{name} r{rev}: its approval no longer holds ({reason}): {advice}\n",
	"check.names_no_tools": "{name} r{rev}: approved, but no step names a tool it may use in (uses …), as plans written before (uses …) existed do not: under Config.GatedTools every gated call of it is refused; add (uses TOOL) to the steps that need one (`planctl export {name} -`, `planctl import {name} FILE`) and approve it again\n",
	"check.legacy_key":     "an approval key is at {path}, inside the plans folder, where 0.1.0 kept it, but whoever can write plan files may have planted it: the approvals it sealed read as not approved until `planctl migrate -adopt-key` moves it beside the folder, if you trust it\n",
	"check.planted_key":    "an approval key is at {path}, inside the plans folder: no plan file here is in 0.1.0's format, so 0.1.0 did not leave it and it may have been planted; it is never used: remove it\n",
	"check.stray":          "set aside: {path} (a file that stood where history goes); look at it, then remove it\n",
	"check.clean":          "{n} plans checked: nothing to do\n",
	"check.todo":           "{where}: {n} to do (listed above)",
	"check.key_missing":    "no approval key was found; review the plan and run `planctl approve {name} -rev {rev}`",
	"check.key_changed":    "it was sealed under another key; review the plan and run `planctl approve {name} -rev {rev}`",
	"check.edited":         "the file was edited after it was approved; review it and run `planctl approve {name} -rev {rev}`",
	"check.rev_one":        "revision {rev}",
	"check.revs":           "revisions {revs}",
	"list.see_check":       ", see check",
	"plans.one":            "1 plan",
	"plans.other":          "{n} plans",

	"status.done":      "{name}: status {status}, revision {rev}\n",
	"export.done":      "{name}: revision {rev} written to {file} ({bytes} bytes); import it with -rev {rev} to keep changes made meanwhile\n",
	"import.empty":     "{file} is empty; a plan needs a body, with its steps as a checklist (- [ ] step)",
	"import.updated":   "{name}: updated from {file}, revision {rev}, {progress}\n",
	"import.created":   "{name}: created from {file}, revision {rev}, {progress}\n",
	"import.too_large": "{file} is larger than the {max}-byte plan limit",
	"rm.done_at":       "{name}: removed at revision {rev}\n",
	"rm.done":          "{name}: removed\n",

	"log.header":         "REV\tTIME\tACTION\tBY\tSTATUS",
	"log.header_expired": "\tEXPIRED",
	"log.approve":        "approve r{rev}",
	"log.reject":         "reject r{rev} {feedback}",
	"log.expired":        "{who} (step {n})",
	"log.unverified":     "revisions before {rev} are kept but cannot be verified, so they are not shown\n",
	"log.gone":           "revisions before {rev} are no longer kept\n",
	"action.write":       "write",
	"action.status":      "status",
	"action.step":        "step",
	"action.delete":      "delete",
	"action.approve":     "approve",
	"action.revoke":      "revoke",
	"action.reject":      "reject",
	"action.await":       "await",
	"diff.not_revision":  "{value} is not a revision: give a revision number, as `planctl log {name}` lists them",
	"diff.first":         "{name} has no revision before revision 1 to compare with; `planctl show {name}` prints it",
	"diff.same":          "{name}: revisions {from} and {to} have the same title, status, author and body\n",

	"uses.step":           "step {n}: {tools}",
	"uses.others":         "other steps: none",
	"proof.not_observed":  "not yet observed",
	"proof.observed":      "observed {what}",
	"proof.step":          "step {n}: {tools}, {seen}",
	"take.pending":        "step {n} of {name} is pending: nobody holds it, so there is nothing to release; `planctl take {name} {n} -to WHO` starts it for WHO",
	"take.already":        "{name}: step {n} ({text}) is already held by {who}; nothing was changed (revision {rev})\n",
	"take.released":       "{name}: step {n} ({text}) released: in progress, held by nobody; revision {rev}\n",
	"take.held":           "{name}: step {n} ({text}) is now held by {who}; revision {rev}\n",
	"take.already_nobody": "{name}: step {n} ({text}) is already held by nobody; nothing was changed (revision {rev})\n",
	"held.nobody":         "step {n} by nobody",
	"held.step":           "step {n} by {who}",

	"serve.addr":         "-addr {addr} is not HOST:PORT, e.g. {example}",
	"serve.secret":       "cannot make the board's secret: {err}",
	"serve.listen":       "cannot listen on {addr}: {err}",
	"serve.acting":       "acting as {who}",
	"serve.no_user":      "read-only: $USER is not set",
	"serve.not_loopback": "read-only: {host} is not a loopback address",
	"serve.started":      "planctl serve: the plan board of {where} at http://{addr}/?{param}={secret} ({mode}; the URL carries the board's secret: open it, don't share it; Ctrl-C stops)\n",
	"serve.stopped":      "the board stopped: {err}",
	"serve.stopping":     "stopping the board: {err}",

	"store.prefix":         " (prefix {prefix})",
	"store.no_dir":         "{dir} does not exist: no plans there, and nothing was created; check -dir (default $PLAN_DIR, else ./.plans)",
	"store.open_local":     "cannot open the plans folder {dir}: {err}",
	"store.bad_dir":        "-dir {dir} cannot be a plans folder: {err}",
	"store.redis_url":      "-redis {url} is not a Redis URL such as redis://localhost:6379/0 ({err})",
	"store.redis_reach":    "cannot reach Redis at {addr}: {err}",
	"store.wrong_dir":      "{where} holds no plans, but its plans folder holds {plans}: use -dir {nested}",
	"store.bad_name":       "{name} is not a plan name: use lowercase letters, digits, '-' and '_', starting with a letter or digit, at most 64 bytes",
	"store.empty_status":   "STATUS is empty; give a short text such as in-progress or done",
	"store.two_places":     "-postgres and -redis name two places for the plans: give one",
	"store.postgres_url":   "-postgres {url} is not a PostgreSQL URL such as postgres://user@localhost:5432/db ({err})",
	"store.postgres_reach": "cannot reach PostgreSQL at {where}: {err}",
	"store.schema_unset":   "$PLAN_POSTGRES_SCHEMA (unset: the default schema)",
	"store.schema":         " (schema {schema})",
	"store.no_schema":      "no plans at {where}: the schema does not exist or has no plan tables, and nothing was created; check {from}",

	"key.no_config":  "planctl: no config folder for the approval key ({err}); the key of {dir} goes beside it, at {path}: keep that file out of version control\n",
	"key.not_a_key":  "{path} holds no approval key",
	"key.unreadable": "the approval key of {dir}: {err}; remove that file to make a new one (approvals sealed with it then read as not approved)",
	"key.differs":    "planctl: {beside} holds another approval key than planctl's for {dir} ({own}); planctl ignores it, so a program that uses it and planctl read each other's approvals as not approved: give the program planctl's key (StoreConfig.ApprovalKey), or remove {own} to use the one beside the folder\n",
	"key.in_project": "planctl: the approval key of {dir} is at {beside}, in the project, where an earlier planctl made it; planctl still uses it: keep it out of version control, or move it out of the project with `mkdir -p {keydir} && mv {beside} {own}`\n",
	"key.make":       "cannot make the approval key of {dir} at {path}: {err}",
	"key.made":       "planctl: made the approval key of {dir} at {path}, outside the project; a program that shares this folder needs it (StoreConfig.ApprovalKey)\n",
	"acp.session":    "-acp needs the ACP session's ID",

	"migrate.converted":   "{name} r{rev}: kept {revs} converted, served again\n",
	"migrate.format":      "{name} r{rev}: the file now names its format\n",
	"migrate.unreadable":  "{name} r{rev}: kept revision {kept} cannot be verified ({reason}) and stays unserved\n",
	"migrate.nothing":     "{n} plans: nothing to migrate\n",
	"migrate.adopted":     "adopted the approval key at {path} (moved beside the folder); approvals it makes valid: {n}\n",
	"migrate.validated":   "  {name} r{rev} approved by {by}\n",
	"migrate.not_adopted": "the approval key at {path} is not adopted: whoever can write plan files may have put it there; if 0.1.0 left it, `planctl migrate -adopt-key` adopts it\n",
	"migrate.not_legacy":  "the approval key at {path} is not adopted: no plan file here is in 0.1.0's format, so 0.1.0 did not leave it; remove it\n",

	"watch.failed":     "{now} the plan storage failed: {err}; retrying on the next change\n",
	"watch.none":       "{now} no plans in {where} yet; waiting for changes\n",
	"watch.line":       "{now} {name}: {progress}, {status}, revision {rev}, {step}, by {by}\n",
	"watch.removed":    "{now} {name}: removed at revision {rev}\n",
	"watch.title":      "planctl watch  {where}  {plans}  at {now}  (Ctrl-C quits)\n\n",
	"watch.empty":      "No plans yet; waiting for changes.\n",
	"watch.header":     "NAME\tPROGRESS\tSTATUS\tREV\tCURRENT STEP\tLAST CHANGE BY\n",
	"watch.unreadable": "! {name} cannot be read ({code})\n",
	"watch.failed_at":  "! the plan storage failed at {now}: {err}\n",
	"watch.no_steps":   "no steps",
	"watch.doing":      "doing {n}: {text}",
	"watch.next":       "next {n}: {text}",
	"watch.all_over":   "all steps over",
	"mcp.as":           "-as: {err}",

	"plantask.none":           "no plantask tasks (N.json files) in {where}; give the BaseDir the plantask middleware was configured with",
	"plantask.cycle":          "tasks {tasks} in {where} wait for each other (blockedBy, blocks): {cycle}, so none of them could ever start; remove one of those dependencies in plantask. Nothing was written",
	"plantask.waits_for":      " waits for ",
	"plantask.too_large":      "the {n} tasks in {where} make a plan of {bytes} bytes, more than a plan may hold ({max}); nothing was written",
	"plantask.updated":        "updated",
	"plantask.created":        "created",
	"plantask.not_held":       "planctl: step {n} [task {id}] is not held by {owner}: {err}\n",
	"plantask.holds_failed":   "{name} was {verb}, but not every hold could be taken; hand those steps with `planctl take {name} STEP -to WHO`",
	"plantask.held":           "step {n} [task {id}] held by {who}",
	"plantask.done":           "{name}: {verb} from the {n} plantask tasks in {where}, revision {rev}, {progress}\n",
	"plantask.note":           "  {line}\n",
	"plantask.list":           "cannot list {where}: {err}",
	"plantask.no_dir":         "{dir} does not exist; give the folder holding plantask's N.json task files",
	"plantask.twice":          "{first} and {second} are both task {n}: plantask keeps one file per id, so which one is the task cannot be told; remove the one plantask did not write. Nothing was written",
	"plantask.read":           "cannot read {path}: {err}",
	"plantask.file_too_large": "{path} is larger than a plan may be ({max} bytes)",
	"plantask.not_task":       "{path} is not a plantask task: {err}; nothing was written",
	"plantask.no_owner":       "step {n} [task {id}] is in progress, held by nobody (it had no owner)",
	"plantask.waiting":        "step {n} [task {id}] stays pending, waiting for steps {steps}; its owner {owner} is noted under it",

	"state.pending":     "pending",
	"state.in_progress": "in_progress",
	"state.completed":   "completed",
	"state.failed":      "failed",
	"state.skipped":     "skipped",
}
