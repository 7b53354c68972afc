package main

// messagesZH holds every text planctl prints for people in Chinese, with the keys and the
// {placeholders} of messagesEN; its words are the board's (计划, 步骤, 批准, 驳回, 预算, 评论).
var messagesZH = map[string]string{
	"usage": `用法：planctl [-dir DIR | -redis URL | -postgres URL] 命令 [参数]

命令：
  list                      列出计划：名称、标题、状态、进度、版本、批准、最后更新
  show NAME                 显示计划的头部（批准情况、谁负责哪个步骤）和正文
  watch                     所有计划的实时视图，每次变更都会重绘（Ctrl-C 退出）
                            加 -acp SESSION：输出 ACP session/update 通知，每行一条
  log NAME                  保留的版本，最新的在前：版本、时间、操作、操作者、状态、
                            持有已过期的负责人
  diff NAME [FROM [TO]]     从第 FROM 版（默认：TO 的前一版）到第 TO 版（默认：当前版本）
                            的改动
  approve NAME -rev N       批准第 N 版，即你审阅过的那一版，前提是计划仍在第 N 版；
                            不带 -rev 时，显示自上次批准的版本以来的改动
  reject NAME -rev N -feedback TEXT
                            驳回第 N 版并说明理由：等待它的运行会收到 TEXT
  comment NAME STEP TEXT    评论第 STEP 步（0 或 "plan"：整个计划）；智能体必须先回复
                            （重写该步骤，或在其上留备注），才能再次请求批准
  resolve NAME ID           将评论 ID（show 列出的编号）标记为解决，无论是否已回复
  revoke NAME               撤销计划的批准
  take NAME STEP [-to WHO]  把进行中的步骤移交给 WHO，或释放它（不带 -to）
  complete NAME STEP        以人的身份完成步骤（-by WHO，默认 $USER）：即对等待复核
                            的步骤进行复核
  budget NAME [STEP] BUDGET
                            设置计划或第 STEP 步的预算（"200k tokens"、"1h" 或两者，
                            用逗号分隔）；批准保持有效
  status NAME STATUS        设置计划的状态
  export NAME FILE          把计划正文写入 FILE（"-" 表示标准输出）
  import NAME FILE          用 FILE 创建计划或替换其正文（"-" 表示标准输入）
  import-plantask NAME TASKDIR
                            用 Eino 的 plantask 中间件保存在 TASKDIR 中的任务创建计划
                            （即它的 BaseDir：一个文件夹，或 Redis、PostgreSQL 中的路径）
  rm NAME                   删除计划
  check                     升级之后：还有哪些事要做（要迁移的计划、要重新批准的计划、
                            无法读取的历史）；有任何事要做时退出码为 5
  migrate [NAME]            转换早期版本在 NAME 或所有计划中保存的内容（保留的版本、
                            文件格式）；再运行一次不会做任何事；
                            -adopt-key 还会采用 0.1.0 保存在计划文件夹中的密钥
  serve                     在浏览器中实时显示计划看板（-addr，默认 127.0.0.1:8080），
                            地址见它打印的 URL：其中带有本次运行的密钥
  mcp                       通过标准输入输出以 MCP 提供计划工具和计划；客户端以其
                            clientInfo.name 的身份操作，或以 -as NAME 的身份操作

选项（可放在命令之前或之后）：
  -dir DIR     计划文件所在的文件夹（默认 $PLAN_DIR，否则 ./.plans）；
               与 -redis 一起使用时，是 Redis 中的计划文件夹（默认 /plans）
  -redis URL   保存在 Redis 中的计划，如 redis://localhost:6379/0（默认 $PLAN_REDIS）
  -postgres URL  保存在 PostgreSQL 中的计划，如 postgres://user@localhost:5432/db
               （默认 $PLAN_POSTGRES；模式 $PLAN_POSTGRES_SCHEMA）
  -prefix P    Redis 后端的键前缀（默认为后端自己的前缀）
  -lang L      en 或 zh：planctl 使用的语言，也是 MCP 工具的语言（默认：LC_ALL、
               LC_MESSAGES、LANG 中第一个已设置的以 zh 开头时为 zh，否则为 en）
  -rev N       仅当计划仍在第 N 版时才修改（status、import、rm、complete、budget）；
               import 加 -rev 0 只创建；import-plantask 不带它时只创建；
               approve 必须带它
  -by WHO      谁来批准、驳回、完成、评论或标记解决（approve、reject、complete、
               comment、resolve；默认 $USER）
  -feedback T  驳回计划的理由（reject）
  -to WHO      由谁接手该步骤（take；不带它则释放该步骤）
  -addr A      serve 监听的地址（默认 127.0.0.1:8080；仅在回环地址上看板以 $USER 的身份操作）
  -as NAME     每个 MCP 客户端的身份：其步骤的负责人、历史中的操作者（mcp）
  -approval    计划模式：步骤只能在已批准的计划上推进；提供 request_plan_approval（mcp）
  -ask-client  request_plan_approval 通过客户端询问用户（MCP elicitation）（mcp）
  -acp ID      为会话 ID 输出 ACP 计划更新（watch）
  -json        输出 JSON（list、show、log、check、migrate）
  -adopt-key   当计划文件夹中仍有 0.1.0 的文件时，采用 0.1.0 保存在该文件夹中的批准密钥；
               并说明它使哪些批准生效（migrate）
  -limit N     最多列出 N 个计划，然后说明如何查看下一页（list）
  -after NAME  列出 NAME 之后的计划，按那条提示操作（list）
  -status S    只列出状态恰好为 S 的计划（list）

退出码：0 完成，1 失败，2 用法错误，3 版本冲突（未做任何更改），
4 没有这个计划或版本，5 check 发现有事要做。
`,

	"main.lang":            "-lang 只能是 en 或 zh，不能是 {value}",
	"main.flag_undefined":  "未知选项 {flag}",
	"main.flag_no_value":   "{flag} 需要一个值",
	"main.flag_rev":        "-rev {value}：必须是版本号，0 或更大",
	"main.flag_value":      "{value} 不是 {flag} 接受的值",
	"main.no_command":      "没有给出命令",
	"main.unknown_command": "未知命令 {name}",
	"main.arg_count":       "{command} 需要 {count}：planctl {synopsis}",
	"main.limit":           "-limit 必须是正数",
	"main.prefix":          "-prefix 只能与 -redis 一起使用",
	"main.args_range":      "{min} 到 {max} 个参数",
	"main.args_one":        "1 个参数",
	"main.args_n":          "{n} 个参数",
	"main.usage_error":     "planctl: {msg}\n\n{usage}",
	"main.and":             "{list} 和 {last}",
	"main.flag_misuse":     "-{flag} 只适用于 {commands}，不适用于 {command}",
	"sep":                  "；",

	"list.none":    "{where} 中没有计划\n",
	"list.header":  "名称\t标题\t状态\t进度\t版本\t批准\t更新时间\n",
	"list.upgrade": "升级后 {plans}还有事要做：运行 `planctl check` 查看\n",
	"list.page":    "显示了 {total} 个计划中的 {shown} 个；下一页：planctl list -after {cursor} -limit {limit}\n",

	"show.title":         "{name}：{title}\n",
	"show.status":        "状态：  {status}\n",
	"show.revision":      "版本：  {rev}\n",
	"show.approval":      "批准：  {text}\n",
	"show.asked":         "待决定：{text}\n",
	"show.rejected":      "驳回：  {text}\n",
	"show.author":        "作者：  {author}\n",
	"show.updated":       "更新：  {time}\n",
	"show.progress":      "进度：  {bar}（{percent}%）",
	"show.progress_next": "{progress}，下一步：第 {n} 步，{text}",
	"show.line":          "{line}\n",
	"show.held":          "负责：  {text}\n",
	"show.waiting":       "等待：  {text}\n",
	"show.uses":          "工具：  {text}\n",
	"show.proof":         "证明：  {text}\n",
	"show.review":        "复核：  {text}\n",
	"show.budget":        "预算：  {text}\n",
	"show.cost":          "花费：  {text}\n",
	"show.over":          "超支：  {what}超出预算；`planctl budget {name} [STEP] BUDGET` 可提高预算\n",
	"show.waits_for":     "第 {n} 步等待第 {steps} 步",

	"fail.code":                   "planctl: {code}: {msg}\n",
	"fail.plain":                  "planctl: {msg}\n",
	"err.exists":                  "{name} 已存在，当前为第 {rev} 版；未做任何更改。用 `planctl show {name}` 查看，或用 -rev {rev} 替换它",
	"err.conflict_not":            "{name} 当前为第 {rev} 版，而不是第 {given} 版；未做任何更改。用 `planctl show {name}` 查看后，以 -rev {rev} 重试",
	"err.conflict":                "{name} 当前为第 {rev} 版；未做任何更改。用 `planctl show {name}` 查看后，以 -rev {rev} 重试",
	"err.no_revision_yet":         "{name} 还没有第 {rev} 版：它当前为第 {cur} 版",
	"err.revision_gone":           "{name} 的第 {rev} 版已不再保留（当前为第 {cur} 版）；`planctl log {name}` 列出保留的版本",
	"err.comment_unknown":         "{name} 没有评论 {id}；`planctl show {name}` 列出它的评论",
	"err.revision_mismatch":       "{name} 第 {rev} 版（或其后某一版）保留的副本与标识它的 SHA-256 不符，因此不予显示（当前为第 {cur} 版）；`planctl log {name}` 列出可以验证的版本",
	"err.revision_unverifiable":   "{name} 的第 {rev} 版由早期版本以 CRC-32C 保存，无法证明其内容，因此不予显示（当前为第 {cur} 版）；`planctl log {name}` 列出可以验证的版本",
	"err.no_plan":                 "{where} 中没有名为 {name} 的计划；`planctl list` 列出那里的计划",
	"err.no_plan_nested":          "{where} 中没有名为 {name} 的计划，但它的 plans 文件夹中有：请使用 -dir {nested}",
	"err.corrupt":                 "无法读取 {name}：它的文件不是计划格式。请修复该文件，或用 `planctl rm {name}`（不带 -rev）删除它",
	"err.rolled_back":             "{name} 未被使用：它的文件比存储为它写入的版本更旧（有人手动放回了旧副本），其中的批准不算数。请放回最新的文件，或用 `planctl rm {name}`（不带 -rev）删除该计划后重新编写",
	"err.put_back_or_interrupted": "{name} 未被使用：它的历史记录表明该文件已被更新的版本取代（有人手动放回了旧副本，或某次写入被中断）。请用 `planctl rm {name}`（不带 -rev）删除该计划后重新编写",
	"err.import_too_large":        "{file} 超过了计划的大小上限（{max} 字节）；请缩短它，或拆分成几个计划",
	"err.too_large":               "无法读取 {name}：它的文件超过了计划的大小上限。用 `planctl rm {name}`（不带 -rev）删除它",
	"err.step_missing":            "{name} 没有第 {step} 步：它的清单只有 {steps} 个步骤，见 `planctl show {name}`",
	"err.after_cycle":             "{name} 的步骤会循环等待彼此（步骤 {steps}），因此都无法开始；请修改某个 (after …)，让其中一步不再等待。未做任何更改",
	"err.by":                      "-by 必须写明批准人：不能为空，最多 1024 字节的 UTF-8（{reason}）",
	"err.take_refused":            "take 拒绝了对 {name} 的更改（{reason}）",
	"err.budget":                  "{value} 不是预算：请写 \"200k tokens\"、\"1h\" 或 \"200k tokens, 1h\"",
	"err.invalid":                 "{command} 拒绝了对 {name} 的更改：标题、状态或作者超过 1024 字节或不是 UTF-8",
	"err.take_illegal":            "{name} 的第 {step} 步当前为“{state}”：只有进行中的步骤可以移交，或开始一个待办步骤；`planctl show {name}` 显示各步骤",
	"err.illegal":                 "{name} 的第 {step} 步不能从“{from}”变为“{to}”",
	"err.step_held":               "{name} 的第 {step} 步由 {holder} 负责；`planctl take {name} {step} -to WHO` 移交它，`planctl take {name} {step}` 释放它",
	"err.not_approved":            "{name} 未获批准；先用 `planctl show {name}` 审阅，再运行 `planctl approve {name} -rev N`",
	"err.backend":                 "{where} 的计划存储出错：{err}；可能没有任何更改，请重试",
	"err.unknown_outcome":         "{where} 的计划存储在更改过程中出错（{err}），无法确定更改是否生效：用 `planctl show {name}` 查看",
	"err.canceled":                "在做出任何更改之前被中断",
	"err.other":                   "{command} 在 {name} 上失败",
	"err.the_plan":                "该计划",
	"err.approved_already":        "{name} 的第 {rev} 版已由 {by} 批准；未做任何更改（计划当前为第 {cur} 版）",
	"err.approve_ahead":           "{name} 当前为第 {cur} 版，而不是第 {rev} 版；未批准任何内容。用 `planctl show {name}` 审阅后，以 -rev {cur} 批准",
	"err.approve_behind":          "{name} 自第 {rev} 版以来已被修改：当前为第 {cur} 版，未批准任何内容。用 `planctl diff {name} {rev} {cur}` 查看改动，再以 -rev {cur} 批准",
	"warn.corrupt":                "它的文件不是计划格式；`planctl rm {name}` 可删除它",
	"warn.rolled_back":            "它的文件比为它写入的版本更旧（被手动放回）；`planctl rm {name}` 可删除它",
	"warn.too_large":              "它的文件超过了计划的大小上限；`planctl rm {name}` 可删除它",
	"warn.failed":                 "存储读取它时出错",
	"warn.line":                   "planctl: 警告：无法读取计划 {name}（{code}）：{why}\n",

	"approve.needs_rev":     "approve 需要 -rev N，即你审阅过的版本：`planctl show {name}` 会显示它",
	"approve.rev0":          "-rev 0 不是任何版本：版本从 1 开始",
	"approve.done":          "{name}：第 {rev} 版已由 {by} 批准；计划现为第 {cur} 版\n",
	"revoke.nothing":        "{name}：未获批准，无需撤销（第 {rev} 版）\n",
	"revoke.done_of":        "{name}：已撤销 {by} 对第 {rev} 版的批准；计划现为第 {cur} 版\n",
	"revoke.done":           "{name}：已撤销批准；计划现为第 {cur} 版\n",
	"approval.none":         "未批准",
	"approval.text":         "已由 {by} 批准（第 {rev} 版），{when}",
	"approval.cell_waits":   "否，{who} 在等待",
	"approval.cell_no":      "否",
	"approval.cell":         "第 {rev} 版，{by}",
	"approval.a_run":        "一个运行",
	"approval.waiting":      "{who} 自 {when} 起等待对第 {rev} 版的决定",
	"rejection.text":        "第 {rev} 版，{by}，{when}",
	"rejection.feedback":    "第 {rev} 版，{by}，{when}：{feedback}",
	"person.approves":       "没有设置 $USER：请用 -by WHO 说明由谁批准",
	"person.rejects":        "没有设置 $USER：请用 -by WHO 说明由谁驳回",
	"person.comments":       "没有设置 $USER：请用 -by WHO 说明由谁评论",
	"person.resolves":       "没有设置 $USER：请用 -by WHO 说明由谁标记解决",
	"person.completes":      "没有设置 $USER：请用 -by WHO 说明由谁完成该步骤",
	"reject.needs_rev":      "reject 需要 -rev N，即你审阅过的版本：`planctl show {name}` 会显示它",
	"reject.needs_feedback": "reject 需要 -feedback TEXT：请写明理由，供修改计划的智能体参考",
	"reject.done":           "{name}：第 {rev} 版已被 {by} 驳回；计划现为第 {cur} 版\n",
	"since.same":            "{name}：第 {rev} 版与 {by} 批准的第 {approved} 版相同\n",
	"since.changes":         "{name}：自 {by} 批准的第 {approved} 版以来的改动：\n{diff}",
	"since.none":            "{name}：第 {rev} 版；没有保留更早的批准\n",

	"step.not_number":       "{value} 不是步骤编号：步骤从 1 开始编号，见 `planctl show {name}`",
	"budget.still_approved": "，仍已批准",
	"budget.plan":           "{name}：预算 {budget}，第 {rev} 版{kept}\n",
	"budget.step":           "{name}：第 {n} 步（{text}）预算 {budget}，第 {rev} 版{kept}\n",
	"budget.over_plan":      "计划（{budget}）",
	"budget.over_step":      "第 {n} 步（{budget}）",
	"budget.mark":           "，超出预算",

	"comment.step":          "STEP 是步骤编号，或用 0（或 \"plan\"）表示整个计划：`planctl show {name}` 会给步骤编号",
	"comment.done":          "{name}：{by} {on}添加了评论 {id}；第 {rev} 版\n",
	"resolve.done":          "{name}：评论 {id} 已由 {by} 标记为解决；还有 {open} 条未解决；第 {rev} 版\n",
	"comment.on_plan":       "对计划",
	"comment.on_step":       "对第 {n} 步",
	"comment.open":          "等待回复",
	"comment.resolved":      "{who} 已标记为解决",
	"comment.answered":      "{who} 已回复",
	"comment.answered_text": "{who} 已回复：{answer}",
	"comment.line":          "评论：  {id} {author} {on}（第 {rev} 版，{when}）：{text} [{state}]\n",

	"complete.done":    "{name}：第 {n} 步（{text}）已由 {by} 完成；第 {rev} 版\n",
	"review.step":      "第 {n} 步",
	"review.done_by":   "第 {n} 步，由 {who} 完成",
	"cost.of_step":     "{cost}（第 {steps} 步）",
	"cost.of_steps":    "{cost}（步骤 {steps}）",
	"cost.tokens":      "{prompt}+{completion} 个 token",
	"cost.calls.one":   "{n} 次模型调用",
	"cost.calls.other": "{n} 次模型调用",
	"cost.no_usage":    "（{n} 次未报告用量）",
	"cost.tools.one":   "{n} 次工具调用",
	"cost.tools.other": "{n} 次工具调用",
	"cost.seconds":     "{n} 秒",
	"cost.sep":         " · ",

	"check.error":          "{name}：无法检查：{err}\n",
	"check.newer":          "{name} 第 {rev} 版：文件格式 {format} 比这个 planctl 所知的（{known}）更新；请使用更新的 planctl\n",
	"check.convertible":    "{name} 第 {rev} 版：格式 {format}；保留的{revs}是 0.1.0 的格式，在 `planctl migrate` 转换之前不会提供\n",
	"check.migrate":        "{name} 第 {rev} 版：格式 {format}；`planctl migrate` 会把文件转换为格式 {known}\n",
	"check.unreadable":     "{name} 第 {rev} 版：保留的第 {kept} 版无法验证（{reason}），因此它及更早的版本都不会提供；任何迁移都无法恢复它们\n",
	"check.reapprove":      "{name} 第 {rev} 版：它的批准已不再有效（{reason}）：{advice}\n",
	"check.names_no_tools": "{name} 第 {rev} 版：已批准，但没有任何步骤在 (uses …) 中写明可以使用的工具（(uses …) 出现之前写的计划都是这样）：在 Config.GatedTools 下，它的每个受控调用都会被拒绝；请给需要工具的步骤加上 (uses TOOL)（`planctl export {name} -`，`planctl import {name} FILE`），然后重新批准\n",
	"check.legacy_key":     "计划文件夹中的 {path} 有一个批准密钥，0.1.0 就保存在那里，但能写计划文件的人都可能放置它：由它封存的批准会被视为未批准，直到 `planctl migrate -adopt-key` 把它移到文件夹旁边（如果你信任它）\n",
	"check.planted_key":    "计划文件夹中的 {path} 有一个批准密钥：这里没有 0.1.0 格式的计划文件，因此它不是 0.1.0 留下的，可能是被人放置的；它永远不会被使用：请删除它\n",
	"check.stray":          "已移到一旁：{path}（一个占据了历史位置的文件）；检查后删除它\n",
	"check.clean":          "检查了 {n} 个计划：无事可做\n",
	"check.todo":           "{where}：有 {n} 件事要做（见上）",
	"check.key_missing":    "没有找到批准密钥；审阅计划后运行 `planctl approve {name} -rev {rev}`",
	"check.key_changed":    "它是用另一个密钥封存的；审阅计划后运行 `planctl approve {name} -rev {rev}`",
	"check.edited":         "文件在批准后被编辑过；审阅后运行 `planctl approve {name} -rev {rev}`",
	"check.rev_one":        "第 {rev} 版",
	"check.revs":           "版本 {revs}",
	"list.see_check":       "，见 check",
	"plans.one":            "1 个计划",
	"plans.other":          "{n} 个计划",

	"status.done":      "{name}：状态 {status}，第 {rev} 版\n",
	"export.done":      "{name}：第 {rev} 版已写入 {file}（{bytes} 字节）；导入时加 -rev {rev}，可保留期间的其他改动\n",
	"import.empty":     "{file} 是空的；计划需要正文，步骤写成清单（- [ ] 步骤）",
	"import.updated":   "{name}：已从 {file} 更新，第 {rev} 版，{progress}\n",
	"import.created":   "{name}：已从 {file} 创建，第 {rev} 版，{progress}\n",
	"import.too_large": "{file} 超过了计划 {max} 字节的上限",
	"rm.done_at":       "{name}：已在第 {rev} 版删除\n",
	"rm.done":          "{name}：已删除\n",

	"log.header":         "版本\t时间\t操作\t操作者\t状态",
	"log.header_expired": "\t持有过期",
	"log.approve":        "批准第 {rev} 版",
	"log.reject":         "驳回第 {rev} 版 {feedback}",
	"log.expired":        "{who}（第 {n} 步）",
	"log.unverified":     "第 {rev} 版之前的版本仍有保留，但无法验证，因此不予显示\n",
	"log.gone":           "第 {rev} 版之前的版本已不再保留\n",
	"action.write":       "编辑",
	"action.status":      "设置状态",
	"action.step":        "移动步骤",
	"action.delete":      "删除",
	"action.approve":     "批准",
	"action.revoke":      "撤销批准",
	"action.reject":      "驳回",
	"action.await":       "请求批准",
	"diff.not_revision":  "{value} 不是版本：请给出版本号，见 `planctl log {name}`",
	"diff.first":         "{name} 在第 1 版之前没有可比较的版本；`planctl show {name}` 会显示它",
	"diff.same":          "{name}：第 {from} 版和第 {to} 版的标题、状态、作者和正文都相同\n",

	"uses.step":           "第 {n} 步：{tools}",
	"uses.others":         "其他步骤：无",
	"proof.not_observed":  "尚未观察到",
	"proof.observed":      "已观察到 {what}",
	"proof.step":          "第 {n} 步：{tools}，{seen}",
	"take.pending":        "{name} 的第 {n} 步是待办：无人负责，因此无需释放；`planctl take {name} {n} -to WHO` 为 WHO 开始它",
	"take.already":        "{name}：第 {n} 步（{text}）已由 {who} 负责；未做任何更改（第 {rev} 版）\n",
	"take.released":       "{name}：第 {n} 步（{text}）已释放：仍在进行中，无人负责；第 {rev} 版\n",
	"take.held":           "{name}：第 {n} 步（{text}）现由 {who} 负责；第 {rev} 版\n",
	"take.already_nobody": "{name}：第 {n} 步（{text}）已经无人负责；未做任何更改（第 {rev} 版）\n",
	"held.nobody":         "第 {n} 步无人负责",
	"held.step":           "第 {n} 步由 {who} 负责",

	"serve.addr":         "-addr {addr} 不是 HOST:PORT 格式，例如 {example}",
	"serve.secret":       "无法生成看板的密钥：{err}",
	"serve.listen":       "无法在 {addr} 上监听：{err}",
	"serve.acting":       "以 {who} 的身份操作",
	"serve.no_user":      "只读：没有设置 $USER",
	"serve.not_loopback": "只读：{host} 不是回环地址",
	"serve.started":      "planctl serve：{where} 的计划看板在 http://{addr}/?{param}={secret}（{mode}；此 URL 带有看板的密钥：自己打开，不要分享；Ctrl-C 停止）\n",
	"serve.stopped":      "看板已停止：{err}",
	"serve.stopping":     "停止看板时出错：{err}",

	"store.prefix":         "（前缀 {prefix}）",
	"store.no_dir":         "{dir} 不存在：那里没有计划，也没有创建任何东西；请检查 -dir（默认 $PLAN_DIR，否则 ./.plans）",
	"store.open_local":     "无法打开计划文件夹 {dir}：{err}",
	"store.bad_dir":        "-dir {dir} 不能作为计划文件夹：{err}",
	"store.redis_url":      "-redis {url} 不是 Redis URL，例如 redis://localhost:6379/0（{err}）",
	"store.redis_reach":    "无法连接 {addr} 上的 Redis：{err}",
	"store.wrong_dir":      "{where} 中没有计划，但它的 plans 文件夹中有 {plans}：请使用 -dir {nested}",
	"store.bad_name":       "{name} 不是计划名：请使用小写字母、数字、'-' 和 '_'，以字母或数字开头，最多 64 字节",
	"store.empty_status":   "STATUS 是空的；请给出简短的文字，如 in-progress 或 done",
	"store.two_places":     "-postgres 和 -redis 指定了两个存放计划的地方：只能给一个",
	"store.postgres_url":   "-postgres {url} 不是 PostgreSQL URL，例如 postgres://user@localhost:5432/db（{err}）",
	"store.postgres_reach": "无法连接 {where} 上的 PostgreSQL：{err}",
	"store.schema_unset":   "$PLAN_POSTGRES_SCHEMA（未设置：使用默认模式）",
	"store.schema":         "（模式 {schema}）",
	"store.no_schema":      "{where} 没有计划：该模式不存在或没有计划表，也没有创建任何东西；请检查 {from}",

	"key.no_config":  "planctl: 没有存放批准密钥的配置文件夹（{err}）；{dir} 的密钥放在它旁边的 {path}：请把该文件排除在版本控制之外\n",
	"key.not_a_key":  "{path} 中没有批准密钥",
	"key.unreadable": "{dir} 的批准密钥：{err}；删除该文件即可生成新的密钥（用它封存的批准随后会被视为未批准）",
	"key.differs":    "planctl: {beside} 中的批准密钥与 planctl 为 {dir} 使用的（{own}）不同；planctl 忽略它，因此使用它的程序与 planctl 会把对方的批准视为未批准：请把 planctl 的密钥交给该程序（StoreConfig.ApprovalKey），或删除 {own} 以使用文件夹旁边的密钥\n",
	"key.in_project": "planctl: {dir} 的批准密钥在项目中的 {beside}，是早期的 planctl 生成的；planctl 仍在使用它：请把它排除在版本控制之外，或用 `mkdir -p {keydir} && mv {beside} {own}` 把它移出项目\n",
	"key.make":       "无法在 {path} 生成 {dir} 的批准密钥：{err}",
	"key.made":       "planctl: 已在项目之外的 {path} 生成 {dir} 的批准密钥；共享此文件夹的程序需要它（StoreConfig.ApprovalKey）\n",
	"acp.session":    "-acp 需要 ACP 会话的 ID",

	"migrate.converted":   "{name} 第 {rev} 版：保留的{revs}已转换，重新提供\n",
	"migrate.format":      "{name} 第 {rev} 版：文件现已写明其格式\n",
	"migrate.unreadable":  "{name} 第 {rev} 版：保留的第 {kept} 版无法验证（{reason}），仍不提供\n",
	"migrate.nothing":     "{n} 个计划：无需迁移\n",
	"migrate.adopted":     "已采用 {path} 的批准密钥（已移到文件夹旁边）；它使 {n} 个批准生效\n",
	"migrate.validated":   "  {name} 第 {rev} 版，由 {by} 批准\n",
	"migrate.not_adopted": "未采用 {path} 的批准密钥：能写计划文件的人都可能把它放在那里；如果它是 0.1.0 留下的，`planctl migrate -adopt-key` 会采用它\n",
	"migrate.not_legacy":  "未采用 {path} 的批准密钥：这里没有 0.1.0 格式的计划文件，因此它不是 0.1.0 留下的；请删除它\n",

	"watch.failed":     "{now} 计划存储出错：{err}；下次变更时重试\n",
	"watch.none":       "{now} {where} 中还没有计划；等待变更\n",
	"watch.line":       "{now} {name}：{progress}，{status}，第 {rev} 版，{step}，由 {by} 修改\n",
	"watch.removed":    "{now} {name}：已在第 {rev} 版删除\n",
	"watch.title":      "planctl watch  {where}  {plans}  {now}  （Ctrl-C 退出）\n\n",
	"watch.empty":      "还没有计划；等待变更。\n",
	"watch.header":     "名称\t进度\t状态\t版本\t当前步骤\t最后修改者\n",
	"watch.unreadable": "! 无法读取 {name}（{code}）\n",
	"watch.failed_at":  "! 计划存储在 {now} 出错：{err}\n",
	"watch.no_steps":   "没有步骤",
	"watch.doing":      "正在做第 {n} 步：{text}",
	"watch.next":       "下一步第 {n} 步：{text}",
	"watch.all_over":   "所有步骤已结束",
	"mcp.as":           "-as：{err}",

	"plantask.none":           "{where} 中没有 plantask 任务（N.json 文件）；请给出 plantask 中间件配置的 BaseDir",
	"plantask.cycle":          "{where} 中的任务 {tasks} 循环等待彼此（blockedBy、blocks）：{cycle}，因此都无法开始；请在 plantask 中删除其中一个依赖。未写入任何内容",
	"plantask.waits_for":      " 等待 ",
	"plantask.too_large":      "{where} 中的 {n} 个任务组成的计划有 {bytes} 字节，超过了计划的上限（{max}）；未写入任何内容",
	"plantask.updated":        "已更新",
	"plantask.created":        "已创建",
	"plantask.not_held":       "planctl: 第 {n} 步 [task {id}] 没有交给 {owner} 负责：{err}\n",
	"plantask.holds_failed":   "{name} {verb}，但并非所有步骤都能交给负责人；用 `planctl take {name} STEP -to WHO` 移交这些步骤",
	"plantask.held":           "第 {n} 步 [task {id}] 由 {who} 负责",
	"plantask.done":           "{name}：{verb}，来自 {where} 中的 {n} 个 plantask 任务，第 {rev} 版，{progress}\n",
	"plantask.note":           "  {line}\n",
	"plantask.list":           "无法列出 {where}：{err}",
	"plantask.no_dir":         "{dir} 不存在；请给出存放 plantask 的 N.json 任务文件的文件夹",
	"plantask.twice":          "{first} 和 {second} 都是任务 {n}：plantask 每个 id 只保存一个文件，因此无法判断哪个才是该任务；请删除不是 plantask 写的那个。未写入任何内容",
	"plantask.read":           "无法读取 {path}：{err}",
	"plantask.file_too_large": "{path} 超过了计划的大小上限（{max} 字节）",
	"plantask.not_task":       "{path} 不是 plantask 任务：{err}；未写入任何内容",
	"plantask.no_owner":       "第 {n} 步 [task {id}] 正在进行，无人负责（它没有 owner）",
	"plantask.waiting":        "第 {n} 步 [task {id}] 仍为待办，等待步骤 {steps}；它的 owner {owner} 记在它下面",

	"state.pending":     "待办",
	"state.in_progress": "进行中",
	"state.completed":   "已完成",
	"state.failed":      "失败",
	"state.skipped":     "已跳过",
}
