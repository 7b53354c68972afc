package plan

// textsZH holds every Chinese text a model sees, with the same keys as textsEN.
var textsZH = map[string]string{
	"instruction": `
## 计划
按名称共享的 Markdown 计划，本任务的所有智能体都能看到。多步骤工作或交接时使用；清单项（- [ ] 步骤）就是计划的步骤。
- 先调用 list_plans；重写计划前先 read_plan。
- 每次修改都返回 revision：把最新的作为 last_known_revision 传回（0 表示仅创建）。遇到 revision_conflict 时先 read_plan since_revision，再重试。
- 用 update_plan_step 标记进度，无需先读取；name 和 step 可省略（in_progress：下一个空闲步骤）。在下一个工作调用的同一条消息里推进：把 update_plan_step(next: true) 列在前面：它完成你的步骤并领取下一个。用 set_plan_status 设置状态，不要为此重写计划。
- 出错时按 message 的提示操作。
`,
	"instruction.files":    "- 大改动：export_plan_to_file，用文件工具编辑该文件，再 update_plan_from_file。\n",
	"instruction.template": "- 规划新工作前，先调用 plan_template。\n",
	"instruction.evidence": "", // the full set teaches evidence in update_plan_step.evidence

	"write_plan":                     "创建或替换计划。未给出的字段保持不变。",
	"write_plan.name":                "a-z 0-9 - _，最多 64 个字符。",
	"write_plan.content":             "Markdown；步骤为 - [ ] 清单项；以 (after 2, 3) 结尾的步骤等步骤 2 和 3。",
	"write_plan.title":               "",
	"write_plan.author":              "",
	"write_plan.status":              "自由文本，如 draft、done。",
	"write_plan.last_known_revision": "你读到的 revision；0：仅创建。",

	"read_plan":                "读取计划：正文、状态、revision、进度。",
	"read_plan.name":           "",
	"read_plan.since_revision": "只返回此 revision 之后的变更。",

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

	"update_plan_step":                     "移动步骤。合法：pending→in_progress|completed|failed|skipped，in_progress→completed|failed。",
	"update_plan_step.name":                "",
	"update_plan_step.step":                "从 1 开始。省略：下一个就绪步骤（in_progress），否则为你持有的那一步。",
	"update_plan_step.status":              "pending、in_progress、completed、failed 或 skipped。",
	"update_plan_step.note":                "附加在该步骤行尾。",
	"update_plan_step.last_known_revision": "",
	"update_plan_step.takeover":            "接手其他智能体持有的步骤，仅在其已停止时。",
	"update_plan_step.next":                "结束你的步骤（completed，或按 status 为 skipped/failed）并领取下一个就绪步骤。",

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
	"digest.header":     "\n## 当前计划（截至 {time}；最新内容以 read_plan 为准）\n",
	"digest.next":       "下一步",
	"digest.more":       "更多：调用 list_plans",
	"digest.unreadable": "无法读取：调用 list_plans",

	"err.args_not_object":    "参数必须是 JSON 对象，例如 {\"name\":\"release-2\"}",
	"err.args_not_json":      "参数不是有效的 JSON；请发送一个包含文档所列字段的 JSON 对象",
	"err.args_too_large":     "参数有 {size} 字节；计划最多 {limit} 字节。请缩短计划或拆分为多个计划",
	"err.args_over_limit":    "参数有 {size} 字节，超过此工具 {limit} 字节的上限；请只发送它需要的简短取值",
	"err.required":           "缺少必填参数 {field}",
	"err.not_string":         "{field} 必须是字符串，而不是 {value}",
	"err.not_integer":        "{field} 必须是整数，而不是 {value}",
	"err.empty":              "{field} 不能为空",
	"err.not_utf8":           "{field} 不是有效的 UTF-8 文本；请以文本重新发送",
	"err.too_long":           "{field} 有 {size} 字节；最多允许 {limit} 字节",
	"err.name_invalid":       "名称 {value} 无效；只能使用小写 a-z、0-9、'-' 和 '_'，并以字母或数字开头，例如 \"release-2\"",
	"err.path_unusable":      "{field} 不是可用的文件路径",
	"err.path_escapes":       "路径 {path} 超出了工作区；请使用工作区内且不含 \"..\" 的路径",
	"err.path_relative":      "路径 {path} 是相对路径；请给出绝对路径，例如 /work/plan.md",
	"err.path_in_plans":      "路径 {path} 位于计划文件夹 {value} 内，该文件夹只能由计划工具修改；请使用其外的路径",
	"err.workspace_write":    "无法在工作区写入 {path}；请用文件工具检查该路径",
	"err.workspace_read":     "无法从工作区读取 {path}；请用文件工具检查该路径",
	"err.needs_content":      "计划 {name} 尚不存在；请提供 content 来创建它",
	"err.revision_negative":  "last_known_revision {rev} 为负数；请使用 read_plan 返回的 revision，或用 0 创建新计划",
	"err.delete_create_only": "last_known_revision 为 0 表示仅创建；删除时请给出计划当前的 revision，或省略该参数",
	"err.step_number":        "step 必须是从 1 开始的步骤编号；read_plan 会列出这些编号",
	"err.step_missing":       "步骤 {step} 不存在；该计划的清单步骤数：{steps}。read_plan 会列出它们",
	"err.step_state_unknown": "未知的步骤状态 {value}；有效状态：pending、in_progress、completed、failed、skipped",
	"err.note_multiline":     "note 必须是单行；请去掉换行",
	"err.goal_invalid":       "goal 必须是非空的 UTF-8 文本，最多 {limit} 字节",
	"err.no_plan":            "没有名为 {name} 的计划；调用 list_plans 查看现有名称",
	"err.no_plan_guarded":    "没有名为 {name} 的计划（可能已被删除）；调用 list_plans，或用 last_known_revision 0 创建它",
	"err.no_file":            "工作区中 {path} 没有文件；export_plan_to_file 会写入一个",
	"err.exists":             "计划 {name} 已存在，revision 为 {current}；请先读取，再用 last_known_revision {current} 重试，或换一个名称",
	"err.stale":              "计划 {name} 当前的 revision 是 {current}，不是 {rev}：已有他人修改。请用 read_plan 重新读取（传 since_revision {rev} 只取变更），再用 last_known_revision {current} 重试",
	"err.content_too_large":  "content 有 {size} 字节；上限为 {limit}。请缩短计划或拆分为多个计划",
	"err.stored_too_large":   "已存储的计划超过 {limit} 字节；请用不带 last_known_revision 的 delete_plan 删除它，或请人调高大小上限",
	"err.file_too_large":     "文件 {path} 超过了 {limit} 字节的计划上限；请缩短它",
	"err.undecodable":        "计划 {name} 无法解析；请用不带 last_known_revision 的 delete_plan 删除后重新写入",
	"err.not_plan_file":      "该计划存储的条目不是计划文件（链接、文件夹或特殊文件）；请用不带 last_known_revision 的 delete_plan 删除它，再重新写入计划",
	"err.revision_exhausted": "计划 {name} 的 revision 无法超过 {current}：其文件被手工修改过；请人修复",
	"err.same_state":         "步骤 {step} 已经是 {from}；无需修改",
	"err.in_progress_only":   "步骤 {step} 处于 in_progress，只能变为 completed 或 failed，不能变为 {to}；如需重新规划，请重写计划",
	"err.final_state":        "步骤 {step} 为 {from}，已是最终状态，不能变为 {to}；如需重新规划，请重写计划",
	"err.orchestrator_only":  "plan_template 仅供编排者使用；请处理分配给你的计划（read_plan、update_plan_step）",
	"err.storage":            "计划存储出错；请稍后重试",
	"err.contention":         "同时修改计划 {name} 的智能体太多；请重试",
	"err.canceled":           "请求在写入任何内容之前已被取消",
	"err.unknown_outcome":    "计划存储在修改过程中出错，无法确定修改是否已完成；请先用 read_plan 重新读取计划，再进行修改",
	"err.no_revision":        "计划 {name} 的 revision {rev} 已不再保留；不带 since_revision 调用 read_plan 可读取整个计划（revision {current}）",
	"err.list_limit":         "limit 必须在 1 到 {limit} 之间",
	"list_plans.limit":       "每页计划数（默认 50）。",
	"list_plans.cursor":      "上一页的 next_cursor。",
	"list_plans.status":      "只列出状态恰为此值的计划。",
	"digest.proof":           "步骤结尾的 (proof T)：只有在你持有它期间、最后一次修改之后调用 T 并通过，才能完成；先运行 T，再完成。",
	"digest.title":           "标题",
	"digest.status":          "状态",
	"digest.done":            "完成",
	"template.more":          "还有 {n} 个（用 list_plans 分页查看）",
	"kind.string":            "字符串",
	"kind.number":            "数字",
	"kind.boolean":           "布尔值",
	"kind.array":             "数组",
	"kind.object":            "对象",
	"kind.null":              "null",
	"err.file_not_utf8":      "文件 {path} 不是有效的 UTF-8 文本；请用文件工具重写后再调用 update_plan_from_file",
	"err.file_empty":         "文件 {path} 是空的；请先用文件工具把计划写进去",
	"err.not_boolean":        "{field} 必须是 true 或 false，不能是{value}",
	"err.step_held":          "步骤 {step} 由 {agent} 持有（是它设为 in_progress 的）；请改领 next_step，只有在 {agent} 已停止处理时才把 takeover 设为 true",
	"err.step_moved":         "步骤 {step} 在 revision {rev} 之后已被 {agent} 修改，现在是 {from}，不能再变为 {to}；请改领 next_step（当前 revision {current}）",
	"err.steps_changed":      "计划 {name} 的步骤在 revision {rev} 之后被增删、改写或重新排序，步骤编号可能已变；请用 read_plan since_revision {rev} 追上变更，再用 last_known_revision {current} 重试",
	"err.person_changed":     "计划 {name} 在你这次修改所依据的 revision {rev} 之后被人（{agent}）修改了；没有写入任何内容。请用 read_plan 加 since_revision {rev} 阅读他们的改动并照做，若此修改仍然合理，再用 last_known_revision {current} 重试",
	"err.hold_taken":         "你对步骤 {step} 的持有已过期（你未在租期内推进它），{agent} 已在 revision {rev} 接手该步骤；它现在是 {from}，所以你的修改没有写入。不要重做它的工作：请改领 next_step，或查看 get_plan_status",
	"lease.until":            "。该持有将于 {at}（{in} 后）到期，除非持有者续期：先做其他步骤或等到那时，再调用 get_plan_status，步骤空出后即可领取",
	// 审批（Config.RequireApproval）。
	"instruction.approval":           "- 计划经人批准（显示 approval）后步骤才能开始：写好计划后调用 request_plan_approval。\n",
	"instruction.approval.sub":       "- 只有已批准（显示 approval）的计划才能推进步骤；遇到 not_approved 时请如实汇报，不要自行改写。\n",
	"request_plan_approval":          "请人审批计划，并等待答复。",
	"request_plan_approval.name":     "",
	"request_plan_approval.message":  "给审批人的说明。",
	"approval.approved":              "已批准：用 update_plan_step 开始执行步骤。",
	"approval.rejected":              "未获批准。请按反馈修改计划（write_plan，基于 revision），再调用 request_plan_approval。",
	"approval.already":               "已经批准；无需再次请求。",
	"approval.waiting":               "等待人工决定：对方会在计划看板或用 planctl 批准或拒绝此修订。计划显示已批准（get_plan_status）后再开始步骤；在此期间不要再次请求。",
	"digest.approved":                "已批准",
	"err.not_approved":               "计划 {name} 尚未获批，步骤不能推进；请调用 request_plan_approval，或等待有人批准",
	"err.not_approved.gated":         "计划 {name} 尚未获批，步骤不能推进；请让每个需要有副作用工具的步骤以 (uses 工具名) 结尾，然后调用 request_plan_approval，或等待有人批准",
	"err.approval_stale":             "计划 {name} 在审批期间从 revision {rev} 变为 {current}；未批准任何内容。请用 read_plan 重新读取，再调用 request_plan_approval",
	"err.no_decision":                "计划 {name} 没有得到审批决定，仍未获批。请稍后再调用 request_plan_approval，或等待有人处理",
	"err.approval_orchestrator_only": "request_plan_approval 仅供编排者使用；请等待计划获批，或告知编排者该计划需要审批",
	"err.after_unknown":              "步骤 {step} 依赖步骤 {value}，但计划中没有该步骤（共 {steps} 个步骤）；未写入任何内容。请修正步骤 {step} 的 \"(after …)\" 后重新写入计划",
	"err.after_cycle":                "步骤 {waits} 互相等待，形成循环，它们都无法开始；未写入任何内容。请删掉循环中的一个 \"(after …)\" 后重新写入计划",
	"err.step_blocked":               "步骤 {step} 依赖的步骤 {waits} 尚未完成或跳过；请改领 next_step，或等它们完成",
	"err.skip_awaited":               "步骤 {step} 未被跳过：步骤 {waits} 依赖它，而需要审批的计划中只有人才能跳过这样的步骤。请完成步骤 {step}，或请人来跳过它，或写一版不含它的计划并请人批准（request_plan_approval）",
	"err.no_ready_step":              "计划 {name} 中没有可以开始的待处理步骤：它们依赖的步骤 {waits} 正在由别人处理或已失败。请完成你自己的步骤，或稍后查看 get_plan_status",
	"reminder.header":                "你正在处理的计划有他人做了更改（详情用 read_plan 查看）：\n",
	"reminder.by":                    "更改者",
	"reminder.rewritten":             "步骤已被改写",
	"err.no_pending_step":            "计划 {name} 已没有待处理的步骤：所有步骤都已被领取或完成。请查看 get_plan_status，然后完成你自己的步骤或停止",
	"err.step_changed":               "步骤 {step} 在 revision {rev} 之后已被修改，现在是 {from}，不能再变为 {to}；请改领 next_step（当前 revision {current}）",
	"err.note_tag":                   "备注 {value} 的结尾像持有者标记 (@名字)，会被当作持有者；请改写结尾",
	"err.note_after":                 "备注 {value} 的结尾像 \"(after N)\"，会改变步骤 {step} 所依赖的步骤；请改写结尾",
	"err.note_asks":                  "备注 {value} 会改变步骤 {step} 是否需要审核或其预算（其 \"(review)\"、\"(budget …)\"）；请改写结尾",
	"err.note_uses":                  "备注 {value} 会改变步骤 {step} 可使用的工具（其 \"(uses …)\"）；请改写结尾",
	"err.claim_in_text":              "第 {step} 步的结尾像持有者标记 (@名字)，而只有 update_plan_step 能持有步骤；请改写该步的结尾（例如 \"(由 名字)\"）后重新提交计划",
	"err.set_aside":                  "计划存储保存历史的位置有不是它写入的文件；这些文件已移到 {path}，供人查看。计划不受影响",
	// 受控工具（Config.GatedTools）、计划集（Config.PlanSet）、补全结果。
	"instruction.gated":          "- 有副作用的工具只在你持有已批准计划中一个列出了它们的 in_progress 步骤时才会运行：步骤结尾写 (uses tool_a, tool_b)。先用 update_plan_step 领取步骤；遇到 not_approved 时按提示操作。\n",
	"instruction.set":            "（{set}）",
	"gate.no_agent":              "{tool} 未运行：该智能体没有名字，无法持有计划步骤，而 {tool} 只在已批准计划中被持有的步骤下运行。请告知运行你的人",
	"gate.no_plan":               "{tool} 未运行：它只在你持有的已批准计划步骤下运行，而目前没有计划。请用 write_plan 写计划，并让步骤以 (uses {tool}) 结尾，调用 request_plan_approval，用 update_plan_step（status 为 in_progress）领取该步骤，然后再调用 {tool}",
	"gate.no_plan.sub":           "{tool} 未运行：它只在你持有的已批准计划步骤下运行，而目前没有计划。请汇报：这项工作需要一个已批准的计划",
	"gate.not_approved":          "{tool} 未运行：它只在你持有的已批准计划步骤下运行，而没有任何计划获批（计划 {name} 处于 revision {rev}）。请确认步骤以 (uses {tool}) 结尾，调用 request_plan_approval，用 update_plan_step（status 为 in_progress）领取步骤，然后再调用 {tool}",
	"gate.not_approved.sub":      "{tool} 未运行：它只在你持有的已批准计划步骤下运行，而没有任何计划获批（计划 {name} 处于 revision {rev}）。请汇报：计划 {name} 需要审批",
	"gate.hold_not_approved":     "{tool} 未运行：你持有计划 {name} 的第 {step} 步，但其 revision {rev} 未获批准（某次修改撤销了批准）。请确认该步骤以 (uses {tool}) 结尾，为计划 {name} 调用 request_plan_approval，然后再调用 {tool}",
	"gate.hold_not_approved.sub": "{tool} 未运行：你持有计划 {name} 的第 {step} 步，但其 revision {rev} 未获批准（某次修改撤销了批准）。请汇报：计划 {name} 需要重新审批",
	"gate.no_step":               "{tool} 未运行：你没有持有已批准计划中进行中的步骤。请用 update_plan_step（计划 {name}，status 为 in_progress）领取一个 (uses …) 列出 {tool} 的步骤，然后再调用 {tool}",
	"gate.tool_not_named":        "{tool} 未运行：你持有计划 {name} 的第 {step} 步，但步骤只解锁其 (uses …) 列出的工具，而它列出的是：{uses}。请用 write_plan 把该步骤改为以 (uses {tool}) 结尾，调用 request_plan_approval 让人重新批准，用 update_plan_step 领取它，然后再调用 {tool}",
	"gate.tool_not_named.sub":    "{tool} 未运行：你持有计划 {name} 的第 {step} 步，但步骤只解锁其 (uses …) 列出的工具，而它列出的是：{uses}。请汇报：该步骤必须在 (uses …) 中列出 {tool} 并重新获批",
	"gate.uses_none":             "无",
	"template.uses":              "需要有副作用工具的步骤在结尾（任何 (after …) 之后）写明工具：- [ ] 部署到生产环境 (after 3) (uses deploy_prod)。人批准的正是这些；没有列出工具的步骤不能使用任何受控工具。",
	"gate.unavailable":           "{tool} 未运行：目前无法读取计划，因此无法核对已批准的步骤。请稍后重试",
	"patched.approval":           "计划 {name} 没有得到审批决定：审批请求已被放弃，计划未获批准。如仍需审批，请再次调用 request_plan_approval",
	"patched.other":              "{tool} 未完成：运行在其结果返回前就停止了。再次调用前请先确认它做了什么",
	// 宽容的参数：拒绝含义不唯一的参数，以及规范化后附在结果里的说明。
	"err.unknown_argument":    "{field} 不是该工具的参数；它接受的参数为 {value}。请用这些名字重新调用",
	"err.conflicting_aliases": "{value} 都表示 {field}，但取值不同；请只给一次 {field}",
	"err.repeated_argument":   "{field} 出现了不止一次且取值不同；请只给一次 {field}",
	"err.step_index":          "{field} 含义不明（可能从 0 开始计数）；请改用 step：从 1 开始的步骤编号，与 read_plan 列出的一致",
	"normalized.unwrapped":    "参数：只需一个 JSON 对象",
	// 文件工具的守卫：位于计划文件夹内或指向密钥的路径；包含它们的搜索。
	"err.plans_off_limits":    "{path} 位于计划文件夹 {value} 内，或是为审批签名的密钥；文件工具不能读取、列出或修改它，此次调用未做任何事。请用 read_plan 读取计划，用 write_plan 和 update_plan_step 修改计划",
	"err.search_covers_plans": "{field} {path} 包含计划文件夹 {value} 或为审批签名的密钥，文件工具不能搜索它，此次调用未做任何事。请搜索不包含它的文件夹（项目的子文件夹）；用 read_plan 读取计划",
	// 无法校验的保留版本。
	"err.rolled_back":           "计划 {name} 的文件是 revision {rev}，比存储最后写入的 revision {current} 更旧：有人手动放回了旧副本，因此该计划无法使用；请告知负责人，由其恢复或删除它",
	"err.revision_mismatch":     "计划 {name} 的 revision {rev} 的保留副本无法校验，因此无法显示此后的更改；请改为阅读整个计划（revision {current}）",
	"err.revision_unverifiable": "计划 {name} 的 revision {rev} 以无法校验的旧格式保留，因此无法显示此后的更改；请改为阅读整个计划（revision {current}）",
	"err.newer_format":          "计划 {name} 由更新版本的计划存储写入（文件格式 {value}），本版本无法在不丢失其记录的情况下修改它；可以阅读它，并请人升级计划存储",
	// 证据、校验、复核与预算。
	"update_plan_step.evidence": "与 completed 一起：证明已完成的依据（命令及退出码、测试数、链接）。",
	"err.evidence_state":        "evidence 只能与 completed、failed 或 skipped 一起提交，不能与 {to} 一起；请在完成该步骤的那次调用中提交",
	"err.evidence_form":         "evidence 含有控制字符或文本 \" — evidence: \" 或 \" — cost: \"；请以一段纯文本提交",
	"err.evidence_required":     "计划 {name} 的第 {step} 步未完成：完成需要提供证据。请再次调用 update_plan_step 并附上 evidence：证明已完成的依据（命令及退出码、测试数、链接）",
	"err.not_verified":          "计划 {name} 的第 {step} 步未完成：对你的完成所做的检查未通过：{said}。该步骤仍由你持有；请按提示修正，然后附上新的证据再次完成",
	"err.note_proof":            "备注 {value} 会被读作 evidence 或开销（\" — \" 之后的 \"evidence: \"、\"cost: \"）；请把证据放在 evidence 中，并改写备注",
	"err.review_own":            "计划 {name} 的第 {step} 步正等待复核你自己的工作，须由其他智能体或人来完成。请改做 next_step",
	"err.cost_invalid":          "步骤的花费被拒绝：某个计数为负或过大，或移到 {to} 并未结束该步骤",
	"step.awaiting_review":      "第 {step} 步等待复核：由其他智能体或人来完成。请接着做 next_step",
	"gate.over_budget":          "{tool} 未运行：你持有的计划 {name} 第 {step} 步已超出该步骤自身的预算。只有人可以提高预算：请不用 {tool} 完成该步骤，或请人提高预算",
	"gate.over_budget.sub":      "{tool} 未运行：你持有的计划 {name} 第 {step} 步已超出该步骤自身的预算。请汇报：第 {step} 步需要更高的预算",
	"gate.over_budget.plan":     "{tool} 未运行：计划 {name}（你持有其第 {step} 步）已超出计划的预算。只有人可以提高预算：请不用 {tool} 完成该步骤，或请人提高计划的预算",
	"gate.over_budget.plan.sub": "{tool} 未运行：计划 {name}（你持有其第 {step} 步）已超出计划的预算。请汇报：计划 {name} 需要更高的预算",
	"err.next_state":            "next 只能与 completed、skipped 或 failed 一起使用，不能与 {to} 一起：它在结束本步骤的同时领取下一步",
	"step.none_ready":           "没有可领取的步骤",
	"budget.tokens":             "{left}/{budget} tokens",
	"budget.time":               "{left}/{budget}",
	"budget.and":                "，",
	"budget.step":               "剩余 {amount}",
	"budget.plan":               "计划预算剩余 {amount}",
	"reminder.budget":           "预算：计划 {name} 的第 {step} 步{left}（已用 {spent}%）。",
	"err.budget_invalid":        "预算 {value} 无法识别；请写成 \"200k tokens\"、\"1h\" 或 \"200k tokens, 1h\"",
	"err.lean_worker":           "你只负责领取和完成步骤：请使用 update_plan_step 和 read_plan",
	// Proof the host observed, and who fails a step others wait for.
	"err.unproven":         "计划 {name} 的第 {step} 步未完成：只有在你持有它期间、最后一次修改之后，调用 {value} 且通过，它才能完成。请现在调用 {value}；通过后再次完成该步骤（你写的证据不算数）",
	"err.note_proof_tools": "备注 {value} 会改变证明第 {step} 步完成的工具（其 \"(proof …)\"）；请改写结尾",
	"err.observed_in_text": "第 {step} 步带有 \" — observed: \"，该标记只由计划存储在看到运行通过时写入；请去掉该标记（或保持原样）后重新提交计划",
	"err.fail_awaited":     "计划 {name} 的第 {step} 步未标记为失败：你没有持有它，且第 {waits} 步在等待它。请先领取它（update_plan_step，状态 in_progress），或把问题报告给人",
	"step.proof":           "第 {step} 步只有在你持有它期间、最后一次修改之后调用 {value} 且通过后才能完成",
	// Config.AdvanceOnProof：证明通过即完成该步骤并领取下一步。
	"digest.proof_advance":          "步骤结尾的 (proof T)：你持有该步骤期间、最后一次修改之后调用 T 并通过，它即自动完成，下一个就绪步骤归你。",
	"err.unproven_advance":          "计划 {name} 的第 {step} 步未完成：只有在你持有它期间、最后一次修改之后，调用 {value} 且通过，它才能完成。请现在调用 {value}；通过后该步骤即自动完成，下一个就绪步骤归你（你写的证据不算数）",
	"step.proof_advance":            "最后一次修改之后你调用 {value} 并通过，第 {step} 步即自动完成，下一个就绪步骤随即归你",
	"advance.evidence":              "{value} 已通过",
	"reminder.advanced":             "计划 {name}：第 {step} 步已完成；现在归你：第 {next} 步 {text}；已完成 {done}。",
	"reminder.advanced_none":        "计划 {name}：第 {step} 步已完成；没有可领取的就绪步骤；已完成 {done}。",
	"reminder.advanced_review":      "计划 {name}：第 {step} 步等待他人复核；现在归你：第 {next} 步 {text}；已完成 {done}。",
	"reminder.advanced_review_none": "计划 {name}：第 {step} 步等待他人复核；没有可领取的就绪步骤；已完成 {done}。",
	"reminder.advanced_budget":      "第 {next} 步{budget}。",
	"reminder.advance_refused":      "计划 {name}：{value} 已通过，但第 {step} 步仍归你：{reason}",
	"verify.failed":                 "验证程序出错",
	"verify.timeout":                "验证程序未在时限内答复",
	"template.proof":                "由一次通过的运行来证明的步骤在结尾写明工具：- [ ] 修复解析器 (uses edit_file) (proof run_tests)。只有在最后一次修改之后运行通过，它才能完成。",
	// 人对步骤的评论。
	"comments.open":        "有人对 comments 中列出的步骤提出了评论（step 0 表示整个计划）。请逐条回应：按评论要求改写该步骤（write_plan），或对该步骤调用 update_plan_step，保持其 status 不变并附上 note 答复（获批之前也可以）。在所有评论得到回应之前，request_plan_approval 会被拒绝。",
	"err.comments_open":    "计划 {name} 有 {size} 条人的评论尚未回应（见 comments；step 0 表示整个计划），因此未提交给人审批。请先逐条回应：按评论要求改写其所指步骤（write_plan），或对该步骤调用 update_plan_step，保持其 status 不变并附上 note 答复；然后再调用 request_plan_approval",
	"err.comments_full":    "计划 {name} 最多保留 {limit} 条评论，而 {size} 条都未回应；请先回应或解决其中一条",
	"err.comment_unknown":  "计划 {name} 没有评论 {value}；read_plan 会列出未回应的评论",
	"err.comment_by_agent": "只有人可以评论计划 {name} 或解决其评论；请通过改写步骤，或对该步骤调用 update_plan_step（status 不变）并附上 note 来回应评论",

	"err.no_held_step": "你在计划 {name} 中没有持有进行中的步骤，因此未移动任何步骤：请传入 step（步骤编号），或先领取一个（status 为 in_progress）",
	"err.held_steps":   "你在计划 {name} 中持有 {size} 个进行中的步骤（{said}），因此未移动任何步骤：请传入 step，即你要移动的那一步的编号",
	"err.plan_unnamed": "缺少 name，可能指 {size} 个计划（{said}），因此未做任何移动：请传入 name",

	// A plan file put back, or a write interrupted, where history is kept just before a write.
	"err.put_back_or_interrupted": "计划 {name} 的历史记录中保存了它的文件 revision {rev}，表明它已被 revision {current} 取代：有人手动放回了旧副本，或某次写入被中断，因此该计划无法使用；请告知负责人，由其删除它",
}

// leanZH replaces the texts of the same keys for a lean worker (tools_lean.go).
var leanZH = map[string]string{
	"instruction": `
## 计划
共享计划，由你完成其步骤。update_plan_step 设 in_progress 领下个空闲步骤；完成时发 next: true（完成它并领下一步），排在同一消息的下个工作调用前。name 和 step 可省略。出错照 message 做。
`,
	"instruction.evidence":                 "- 完成步骤须附 evidence：证明已完成的依据。\n",
	"update_plan_step":                     "领取（in_progress）或结束步骤。",
	"update_plan_step.step":                "省略：下一个空闲步骤，或你的。",
	"update_plan_step.status":              "in_progress、completed、failed 或 skipped。",
	"update_plan_step.note":                "",
	"update_plan_step.evidence":            "completed 时：完成的依据。",
	"update_plan_step.takeover":            "仅当持有者已停止。",
	"update_plan_step.next":                "完成你的，领下一步。",
	"update_plan_step.last_known_revision": "",
	"read_plan":                            "读取计划。",
	"read_plan.since_revision":             "只要此后的变更。",
	"instruction.approval.sub":             "- 步骤只在已批准的计划上推进；遇 not_approved 请汇报。\n",
	"instruction.gated":                    "- 副作用工具仅在你持有已批准计划的 in_progress 步骤时运行。\n",
}
