package plan

// textsZH holds every Chinese text a model sees, with the same keys as textsEN.
var textsZH = map[string]string{
	"instruction": `
## 计划
按名称共享的 Markdown 计划，本任务的所有智能体都能看到。多步骤工作或交接时使用；清单项（- [ ] 步骤）就是计划的步骤。
- 先调用 list_plans；修改计划前先 read_plan。
- 每次写入都返回 revision：作为 last_known_revision 传回（0 表示仅创建）。遇到 revision_conflict 时重新读取后重试。
- 用 update_plan_step 标记进度，用 set_plan_status 设置状态，不要为此重写计划。
- 错误格式为 {"error":{"code","message"}}：按 message 的提示操作。
`,
	"instruction.files":    "- 大改动：export_plan_to_file，用文件工具编辑该文件，再 update_plan_from_file。\n",
	"instruction.template": "- 规划新工作前，先调用 plan_template。\n",

	"write_plan":                     "创建或替换计划（Markdown 正文）。未给出的字段保持不变。",
	"write_plan.name":                "计划名：a-z 0-9 - _，最多 64 个字符。",
	"write_plan.content":             "完整的 Markdown 正文；步骤写成 - [ ] 清单项。",
	"write_plan.title":               "",
	"write_plan.author":              "",
	"write_plan.status":              "自由文本，如 draft、in-progress、done。",
	"write_plan.last_known_revision": "你读到的 revision；0 表示计划必须尚不存在。",

	"read_plan":      "读取计划：正文、状态、revision、进度。",
	"read_plan.name": "",

	"list_plans": "列出计划及其状态、revision 和进度。",

	"delete_plan":                     "删除计划。",
	"delete_plan.name":                "",
	"delete_plan.last_known_revision": "",

	"set_plan_status":                     "只设置计划状态，不改正文。",
	"set_plan_status.name":                "",
	"set_plan_status.status":              "",
	"set_plan_status.last_known_revision": "",

	"get_plan_status":      "获取状态、revision、进度和当前步骤。",
	"get_plan_status.name": "",

	"update_plan_step":                     "设置某个清单步骤的状态。合法转换：pending→in_progress|completed|failed|skipped，in_progress→completed|failed。",
	"update_plan_step.name":                "",
	"update_plan_step.step":                "步骤编号，从 1 开始。",
	"update_plan_step.status":              "pending、in_progress、completed、failed 或 skipped。",
	"update_plan_step.note":                "附加在该步骤行尾的简短备注。",
	"update_plan_step.last_known_revision": "",

	"export_plan_to_file":      "把计划正文写入工作区文件，便于低成本编辑。",
	"export_plan_to_file.name": "",
	"export_plan_to_file.path": "工作区文件路径。",

	"update_plan_from_file":                     "用工作区文件替换计划正文。",
	"update_plan_from_file.name":                "",
	"update_plan_from_file.path":                "工作区文件路径。",
	"update_plan_from_file.title":               "",
	"update_plan_from_file.author":              "",
	"update_plan_from_file.status":              "",
	"update_plan_from_file.last_known_revision": "",

	"plan_template":      "获取为某个目标编写新计划的指南。不会创建任何内容。",
	"plan_template.goal": "计划要达成的目标。",

	"template": `# 如何编写计划

用 Markdown 编写计划，包含以下部分：

# <标题：用几个词说明结果>
## 目标
计划完成时什么已经完成，为谁完成。
## 背景
执行者需要的事实、约束和链接；已经做出的决定。
## 步骤
- [ ] 每个步骤一个清单项，按顺序排列，每项小到一个智能体一次即可完成
- [ ] 每个步骤以动词开头；写明涉及的文件、组件或智能体
## 风险
可能出什么问题，出问题时怎么办。
## 验证
如何检查结果（要运行的测试、要检查的输出）。
`,
	"template.goal":     "本计划的目标：",
	"template.naming":   "命名规则：小写 a-z、0-9、'-' 和 '_'，以字母或数字开头，最多 64 个字符，例如 \"release-2-0\"。已有计划（请选用不同的名称）：",
	"template.none":     "（无）",
	"template.finish":   "用 write_plan 创建它，给出 name、title、content，并设 last_known_revision 为 0（仅创建）。执行者随后用 update_plan_step 标记步骤。",
	"digest.header":     "\n## 当前计划\n",
	"digest.next":       "下一步",
	"digest.more":       "更多：调用 list_plans",
	"digest.unreadable": "无法读取：调用 list_plans",
}
