package plan

// A lean worker (Config.LeanWorker) only takes and finishes steps: its model sees
// update_plan_step and read_plan, described in as few words as guide a model, and a short
// instruction; every other plan tool stays registered but hidden, and a call to one is
// tool_not_available. Every guard stays: holds, prerequisites,
// the approval requirement and the gate of Config.GatedTools, evidence, verification and
// budgets. These texts replace the full ones of the same keys.

// reasonLeanWorker: a lean worker called a plan tool it is not offered.
const reasonLeanWorker = "lean_worker"

func init() {
	factTexts[reasonLeanWorker] = "this agent only takes and finishes steps: its plan tools are update_plan_step and read_plan"
	textsEN["err.lean_worker"] = "you only take and finish steps: use update_plan_step and read_plan"
	textsZH["err.lean_worker"] = "你只负责领取和完成步骤：请使用 update_plan_step 和 read_plan"
}

// leanHides reports whether the model of a lean worker does not see the tool called name.
func (m *middleware[M]) leanHides(name string) bool {
	if !m.cfg.LeanWorker {
		return false
	}
	for def, shown := range m.names {
		if shown == name {
			return !leanTools[def]
		}
	}
	return false
}

// leanTools are the tools a lean worker's model sees.
var leanTools = map[string]bool{ToolUpdatePlanStep: true, ToolReadPlan: true}

var leanEN = map[string]string{
	"instruction": `
## Plans
Shared plans; you work their steps. update_plan_step status in_progress takes the next free step (yours); do it, then complete it, with evidence. On an error, do what its message says.
`,
	"update_plan_step":                     "Take (in_progress) or finish a step.",
	"update_plan_step.step":                "Omit with in_progress: next free step.",
	"update_plan_step.status":              "in_progress, completed, failed or skipped.",
	"update_plan_step.note":                "",
	"update_plan_step.evidence":            "With completed: what shows it done.",
	"update_plan_step.takeover":            "Only if its holder stopped.",
	"update_plan_step.last_known_revision": "",
	"read_plan":                            "Read a plan.",
	"read_plan.since_revision":             "Only changes since.",
	"instruction.approval.sub":             "- Steps move on approved plans only; on not_approved, report back.\n",
	"instruction.gated":                    "- Side-effect tools run only while you hold an in_progress step of an approved plan.\n",
}

var leanZH = map[string]string{
	"instruction": `
## 计划
共享计划，你负责其中的步骤。update_plan_step 的 status 为 in_progress 时领取下一个空闲步骤（归你）；完成后设为 completed 并附上证据。出错时按 message 操作。
`,
	"update_plan_step":                     "领取（in_progress）或结束一个步骤。",
	"update_plan_step.step":                "与 in_progress 一起省略：下一个空闲步骤。",
	"update_plan_step.status":              "in_progress、completed、failed 或 skipped。",
	"update_plan_step.note":                "",
	"update_plan_step.evidence":            "与 completed 一起：完成的依据。",
	"update_plan_step.takeover":            "仅当持有者已停止时。",
	"update_plan_step.last_known_revision": "",
	"read_plan":                            "读取计划。",
	"read_plan.since_revision":             "只要此后的变更。",
	"instruction.approval.sub":             "- 只有已批准的计划才能推进步骤；遇到 not_approved 请汇报。\n",
	"instruction.gated":                    "- 有副作用的工具只在你持有已批准计划的 in_progress 步骤时运行。\n",
}

// withLean is texts with the lean worker's in place of the full ones.
func withLean(texts map[string]string, zh bool) map[string]string {
	lean := leanEN
	if zh {
		lean = leanZH
	}
	out := make(map[string]string, len(texts))
	for k, v := range texts {
		out[k] = v
	}
	for k, v := range lean {
		out[k] = v
	}
	return out
}
