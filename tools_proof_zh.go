package plan

// 证据、校验与复核的中文文本；键与 tools_proof_en.go 相同。
var textsProofZH = map[string]string{
	"update_plan_step.evidence": "与 completed 一起：证明已完成的依据（命令及退出码、测试数、链接）。",
	"err.evidence_state":        "evidence 只能与 completed、failed 或 skipped 一起提交，不能与 {to} 一起；请在完成该步骤的那次调用中提交",
	"err.evidence_form":         "evidence 含有控制字符或文本 \" — evidence: \" 或 \" — cost: \"；请以一段纯文本提交",
	"err.evidence_required":     "计划 {name} 的第 {step} 步未完成：完成需要提供证据。请再次调用 update_plan_step 并附上 evidence：证明已完成的依据（命令及退出码、测试数、链接）",
	"err.not_verified":          "计划 {name} 的第 {step} 步未完成：对你的完成所做的检查未通过：{said}。该步骤仍由你持有；请按提示修正，然后附上新的证据再次完成",
	"err.note_proof":            "备注 {value} 会被读作 evidence 或开销（\" — \" 之后的 \"evidence: \"、\"cost: \"）；请把证据放在 evidence 中，并改写备注",
	"err.review_own":            "计划 {name} 的第 {step} 步正等待复核你自己的工作，须由其他智能体或人来完成。请改做 next_step",
	"err.cost_invalid":          "步骤的花费被拒绝：某个计数为负或过大，或移到 {to} 并未结束该步骤",
	"step.awaiting_review":      "第 {step} 步等待复核：由其他智能体或人来完成。请接着做 next_step",
	"gate.over_budget":          "{tool} 未运行：你持有的计划 {name} 第 {step} 步已超出预算（或整个计划已超出）。只有人可以提高预算：请不用 {tool} 完成该步骤，或请人提高预算",
	"gate.over_budget.sub":      "{tool} 未运行：你持有的计划 {name} 第 {step} 步已超出预算（或整个计划已超出）。请汇报：第 {step} 步需要更高的预算",
}

func init() {
	for k, v := range textsProofZH {
		textsZH[k] = v
	}
}
