'use strict';
// The plan board page: reads the board's JSON API, follows its event stream, and sends a
// person's actions with the revision the page showed. Every text is in TEXTS, in English
// and Chinese; the language follows the browser.
(function () {
  const TEXTS = {
    en: {
      title: 'Plan board',
      plans_one: '{n} plan', plans_other: '{n} plans',
      live: 'Live', connecting: 'Connecting…', reconnecting: 'Reconnecting…',
      signedIn: 'Signed in as {who}', readOnly: 'Read-only', notSignedIn: 'Not signed in: read-only',
      empty: 'No plans yet. A plan shows here as soon as an agent writes one.',
      revision: 'Revision {rev}', changedBy: '{who} {what}', writtenBy: 'written by {who}', updated: 'updated {when}',
      moreSteps_one: 'Show {n} more step', moreSteps_other: 'Show {n} more steps',
      act_write: 'edited the plan', act_step: 'moved a step', act_status: 'set the status',
      act_approve: 'approved it', act_revoke: 'withdrew the approval', act_delete: 'deleted it',
      act_reject: 'rejected it', act_await: 'asked for approval',
      approved: 'Approved at revision {rev} by {by}', unapproved: 'Not approved',
      waiting: '{who} waits for a decision on revision {rev} since {since}', someone: 'A run',
      rejectedBy: 'Revision {rev} rejected by {by}: {feedback}',
      leaseUntil: 'until {when}', leaseExpired: 'lease expired {when}', after: 'after {steps}', reviewDiff: 'Changes since revision {rev}, approved by {by}:',
      progress: '{done}/{total} · {pct}%', noSteps: 'No steps',
      st_pending: 'To do', st_in_progress: 'In progress', st_completed: 'Done', st_failed: 'Failed', st_skipped: 'Skipped',
      nobody: 'held by nobody',
      evidence: 'evidence: {text}', observed: '✔ observed: {text}', proofStep: 'proven by a passing run of {tools}', planCost: 'cost {cost}', planBudget: 'budget {budget}',
      tokens_one: '{n} token', tokens_other: '{n} tokens', calls_one: '{n} model call', calls_other: '{n} model calls',
      toolCalls_one: '{n} tool call', toolCalls_other: '{n} tool calls', noUsage: 'no usage reported', someNoUsage: '{n} without usage',
      secs: '{n} s', minSecs: '{m} min {s} s', mins: '{n} min', hours: '{n} h', hoursMins: '{h} h {m} min', costSep: ' · ',
      stepBudget: 'budget {budget}', overBudget: 'over budget', planOverBudget: 'This plan is over its budget: its gated tools stop until a person raises it.',
      decisions: 'Decisions', statusLabel: 'status: {status}', needsReview: 'reviewed by someone else', uses: 'uses {tools}',
      openComments_one: '{n} comment waits for an answer', openComments_other: '{n} comments wait for an answer',
      planComments: 'Comments on the plan', commentMeta: '{who} · {when} · revision {rev}',
      commentAnswered: 'answered by {who}: {answer}', commentAnsweredNoText: 'answered by {who}', commentResolved: 'resolved by {who}',
      commentBtn: 'Comment…', resolveBtn: 'Resolve', budgetBtn: 'Budget…',
      commentTitleStep: 'Comment on step {n}', commentTitlePlan: 'Comment on the plan {title}', commentText: 'Your comment (an agent must answer it)', send: 'Send',
      commentedOk: 'Your comment on {what} of {name} was added.', resolvedOk: 'The comment was resolved.', stepN: 'step {n}', thePlan: 'the plan',
      budgetTitleStep: 'Budget of step {n}', budgetTitlePlan: 'Budget of the plan {title}', budgetNow: 'Now: {budget}', budgetNone: 'no budget',
      budgetValue: 'New budget (e.g. "20k tokens", "10m", "50k tokens, 1h")', setBudget: 'Set budget', budgetOk: 'The budget of {what} of {name} is now {budget}.',
      err_text_required: 'Write the comment first.', err_budget_required: 'Write the new budget first.',
      awaitingReview: 'awaiting review', awaitingReviewBy: 'done by {who}, awaiting review',
      completeReviewBtn: 'Complete review', reviewedOk: 'Step {n} of {name} is reviewed and completed.', err_not_awaiting_review: 'This step no longer awaits review.',
      review: 'Review…', history: 'History', hideHistory: 'Hide history', diff: 'Changes', noHistory: 'No kept revisions.',
      handOverBtn: 'Hand over…', assignBtn: 'Assign…',
      reviewTitle: 'Review {title}', reviewMeta: 'Revision {rev} · status {status}',
      approveRev: 'Approve revision {rev}', reject: 'Reject', cancel: 'Cancel',
      feedback: 'Feedback (required to reject)',
      staleReview: 'This plan has changed since you opened it: it is now at revision {cur}.',
      reviewCurrent: 'Review the current revision',
      usesTitle: 'What each step may use (its tools with side effects):', usesStep: 'Step {n}: {tools}', usesNone: 'nothing',
      handTitle: 'Hand over step {n}', newHolder: 'New holder', handOver: 'Hand over', release: 'Release',
      handStep: '{text} · {holder}',
      approvedOk: 'You approved revision {rev} of {name}.',
      rejectedOk: 'You rejected revision {rev} of {name}.', rejectedRevoked: 'You rejected revision {rev} of {name}; its approval was withdrawn.',
      handedOk: 'Step {n} of {name} is now held by {holder}.', releasedOk: 'Step {n} of {name} was released: in progress, held by nobody.',
      unchangedOk: 'Nothing to change: step {n} is already held that way.',
      warning: 'Cannot read plan {name}: {msg}',
      status_draft: 'draft', 'status_in-progress': 'in progress', status_done: 'done', status_blocked: 'blocked', status_failed: 'failed', status_cancelled: 'cancelled',
      err_revision_conflict: 'The plan changed after you opened it: you saw revision {rev}, it is now at revision {cur}. Nothing was changed. Look at the current revision, then try again.',
      err_read_only: 'This board is read-only: the server lets nobody act on it.',
      err_unauthenticated: 'Sign in to act on the board.',
      err_sign_in_required: 'Sign in to see the plans.',
      err_cross_site: 'The request was refused because it did not come from this page.',
      err_not_json: 'The request was refused because it did not come from this page.',
      err_not_found: 'This plan no longer exists.',
      err_no_such_step: 'This step no longer exists.',
      err_nothing_to_release: 'The step is not started: nobody holds it, so there is nothing to release.',
      err_step_held: 'Someone else holds this step ({holder}).',
      err_illegal_transition: 'This step is over and cannot be handed over.',
      err_not_approved: 'The plan must be approved first.', err_comments_open: 'Comments on this plan wait for an answer.',
      err_bad_holder: 'A holder is a name of at most 64 characters, without spaces or parentheses.',
      err_feedback_required: 'Say why you reject the plan: write feedback first.',
      err_bad_request: 'The board did not understand the request.',
      err_invalid_argument: 'The board did not accept the request.',
      err_network: 'The board cannot be reached. Check your connection and try again.',
      err_other: 'The action failed ({code}). Nothing may have changed: look at the plan, then try again.'
    },
    zh: {
      title: '计划看板',
      plans_one: '{n} 个计划', plans_other: '{n} 个计划',
      live: '实时', connecting: '连接中…', reconnecting: '重新连接中…',
      signedIn: '当前用户：{who}', readOnly: '只读', notSignedIn: '未登录：只读',
      empty: '还没有计划。智能体一写下计划，就会显示在这里。',
      revision: '第 {rev} 版', changedBy: '{who} {what}', writtenBy: '作者 {who}', updated: '更新于 {when}',
      moreSteps_one: '再显示 {n} 个步骤', moreSteps_other: '再显示 {n} 个步骤',
      act_write: '编辑了计划', act_step: '移动了步骤', act_status: '设置了状态',
      act_approve: '批准了计划', act_revoke: '撤销了批准', act_delete: '删除了计划',
      act_reject: '驳回了计划', act_await: '请求批准',
      approved: '已由 {by} 批准（第 {rev} 版）', unapproved: '未批准',
      waiting: '{who} 自 {since} 起等待对第 {rev} 版的决定', someone: '一个运行',
      rejectedBy: '第 {rev} 版已被 {by} 驳回：{feedback}',
      leaseUntil: '持有至 {when}', leaseExpired: '持有已于 {when} 过期', after: '在 {steps} 之后', reviewDiff: '自 {by} 批准的第 {rev} 版以来的改动：',
      progress: '{done}/{total} · {pct}%', noSteps: '没有步骤',
      st_pending: '待办', st_in_progress: '进行中', st_completed: '已完成', st_failed: '失败', st_skipped: '已跳过',
      nobody: '无人负责',
      evidence: '证据：{text}', observed: '✔ 已观察到：{text}', proofStep: '由 {tools} 的一次通过运行证明', planCost: '花费 {cost}', planBudget: '预算 {budget}',
      tokens_one: '{n} 个 token', tokens_other: '{n} 个 token', calls_one: '{n} 次模型调用', calls_other: '{n} 次模型调用',
      toolCalls_one: '{n} 次工具调用', toolCalls_other: '{n} 次工具调用', noUsage: '未报告用量', someNoUsage: '{n} 次未报告用量',
      secs: '{n} 秒', minSecs: '{m} 分 {s} 秒', mins: '{n} 分钟', hours: '{n} 小时', hoursMins: '{h} 小时 {m} 分钟', costSep: ' · ',
      stepBudget: '预算 {budget}', overBudget: '超出预算', planOverBudget: '此计划已超出预算：受控工具将停止，直到有人提高预算。',
      decisions: '决定', statusLabel: '状态：{status}', needsReview: '须由他人复核', uses: '使用 {tools}',
      openComments_one: '{n} 条评论等待回复', openComments_other: '{n} 条评论等待回复',
      planComments: '对计划的评论', commentMeta: '{who} · {when} · 第 {rev} 版',
      commentAnswered: '{who} 已回复：{answer}', commentAnsweredNoText: '{who} 已回复', commentResolved: '{who} 已标记为解决',
      commentBtn: '评论…', resolveBtn: '标记为解决', budgetBtn: '预算…',
      commentTitleStep: '评论第 {n} 步', commentTitlePlan: '评论计划 {title}', commentText: '你的评论（智能体必须回复）', send: '发送',
      commentedOk: '你对 {name} 的{what}的评论已添加。', resolvedOk: '评论已标记为解决。', stepN: '第 {n} 步', thePlan: '计划',
      budgetTitleStep: '第 {n} 步的预算', budgetTitlePlan: '计划 {title} 的预算', budgetNow: '当前：{budget}', budgetNone: '无预算',
      budgetValue: '新的预算（例如 "20k tokens"、"10m"、"50k tokens, 1h"）', setBudget: '设置预算', budgetOk: '{name} 的{what}的预算现为 {budget}。',
      err_text_required: '请先写下评论。', err_budget_required: '请先写下新的预算。',
      awaitingReview: '等待复核', awaitingReviewBy: '{who} 已完成，等待复核',
      completeReviewBtn: '完成复核', reviewedOk: '{name} 的第 {n} 步已复核并完成。', err_not_awaiting_review: '此步骤已不再等待复核。',
      review: '审阅…', history: '历史', hideHistory: '收起历史', diff: '改动', noHistory: '没有保留的版本。',
      handOverBtn: '移交…', assignBtn: '指派…',
      reviewTitle: '审阅 {title}', reviewMeta: '第 {rev} 版 · 状态 {status}',
      approveRev: '批准第 {rev} 版', reject: '驳回', cancel: '取消',
      feedback: '意见（驳回时必填）',
      staleReview: '你打开后此计划已被修改：现在是第 {cur} 版。',
      reviewCurrent: '审阅当前版本',
      usesTitle: '各步骤可使用的工具（有副作用的工具）：', usesStep: '第 {n} 步：{tools}', usesNone: '无',
      handTitle: '移交第 {n} 步', newHolder: '新的负责人', handOver: '移交', release: '释放',
      handStep: '{text} · {holder}',
      approvedOk: '你已批准 {name} 的第 {rev} 版。',
      rejectedOk: '你已驳回 {name} 的第 {rev} 版。', rejectedRevoked: '你已驳回 {name} 的第 {rev} 版，并撤销了它的批准。',
      handedOk: '{name} 的第 {n} 步现由 {holder} 负责。', releasedOk: '{name} 的第 {n} 步已释放：仍在进行中，无人负责。',
      unchangedOk: '无需更改：第 {n} 步已经是这样分配的。',
      warning: '无法读取计划 {name}：{msg}',
      status_draft: '草稿', 'status_in-progress': '进行中', status_done: '已完成', status_blocked: '受阻', status_failed: '失败', status_cancelled: '已取消',
      err_revision_conflict: '你打开后此计划已被修改：你看到的是第 {rev} 版，现在是第 {cur} 版。没有做任何更改。请先查看当前版本，再重试。',
      err_read_only: '此看板为只读：服务器不允许任何人在此操作。',
      err_unauthenticated: '请先登录再操作。',
      err_sign_in_required: '请先登录再查看计划。',
      err_cross_site: '请求被拒绝：它不是从本页面发出的。',
      err_not_json: '请求被拒绝：它不是从本页面发出的。',
      err_not_found: '此计划已不存在。',
      err_no_such_step: '此步骤已不存在。',
      err_nothing_to_release: '此步骤尚未开始，无人负责，无需释放。',
      err_step_held: '此步骤由其他人负责（{holder}）。',
      err_illegal_transition: '此步骤已结束，不能移交。',
      err_not_approved: '计划必须先获批准。', err_comments_open: '此计划还有评论等待回复。',
      err_bad_holder: '负责人是不超过 64 个字符的名字，不能包含空格或括号。',
      err_feedback_required: '请写下驳回的理由。',
      err_bad_request: '看板无法理解此请求。',
      err_invalid_argument: '看板不接受此请求。',
      err_network: '无法连接看板。请检查网络后重试。',
      err_other: '操作失败（{code}）。可能没有任何更改：请查看计划后重试。'
    }
  };

  function pickLanguage() {
    const langs = (navigator.languages && navigator.languages.length) ? navigator.languages : [navigator.language];
    for (const l of langs) {
      const s = String(l || '').toLowerCase();
      if (s === 'zh' || s.startsWith('zh-')) return 'zh';
      if (s === 'en' || s.startsWith('en-')) return 'en';
    }
    return document.documentElement.lang === 'zh' ? 'zh' : 'en';
  }
  const lang = pickLanguage();
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  const dict = TEXTS[lang];

  function t(key, vars) {
    let s = Object.prototype.hasOwnProperty.call(dict, key) ? dict[key] : TEXTS.en[key];
    if (s === undefined) return key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (vars && vars[k] !== undefined && vars[k] !== null) ? String(vars[k]) : m);
  }
  const $ = (id) => document.getElementById(id);
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const timeFmt = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const dateFmt = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
  function when(iso) {
    const d = new Date(iso);
    if (isNaN(d.getTime())) return '';
    return (new Date().toDateString() === d.toDateString() ? timeFmt : dateFmt).format(d);
  }
  function statusText(s) {
    const key = 'status_' + s;
    return Object.prototype.hasOwnProperty.call(dict, key) ? dict[key] : s;
  }

  document.title = t('title');
  for (const e of document.querySelectorAll('[data-t]')) e.textContent = t(e.dataset.t);

  const state = { me: { can_act: false, read_only: true }, plans: new Map(), warnings: [], total: 0, history: new Set(), seq: new Map(), changes: new Map() };

  // --- talking to the board ---
  class BoardError extends Error {
    constructor(status, body) {
      const e = (body && body.error) || {};
      super(e.message || ('HTTP ' + status));
      this.status = status; this.code = e.code || (status === 0 ? 'network' : 'other');
      this.revision = e.revision; this.current = e.current_revision; this.holder = e.holder;
    }
  }
  async function call(url, init) {
    let r;
    try { r = await fetch(url, Object.assign({ cache: 'no-store', credentials: 'same-origin' }, init)); } catch (e) { throw new BoardError(0, null); }
    let body = null;
    try { body = await r.json(); } catch (e) { body = null; }
    if (!r.ok) throw new BoardError(r.status, body);
    return body;
  }
  const planURL = (name) => 'api/plans/' + encodeURIComponent(name);
  const stepsURL = (name, from) => planURL(name) + '/steps' + (from > 1 ? '?from=' + from : '');
  function act(path, payload) {
    return call(path, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Plan-Board': '1' }, body: JSON.stringify(payload) });
  }
  // pl is the text key+"_one" or key+"_other" (as the language's plural rules choose for n),
  // with n written as the language writes numbers.
  const plurals = new Intl.PluralRules(lang === 'zh' ? 'zh-CN' : 'en-US');
  const numbers = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US');
  const compact = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en-US', { notation: 'compact' });
  function pl(key, n, vars) {
    const k = key + '_' + plurals.select(n);
    return t(Object.prototype.hasOwnProperty.call(dict, k) ? k : key + '_other', Object.assign({ n: numbers.format(n) }, vars));
  }
  function secondsText(secs) {
    if (secs < 60) return t('secs', { n: numbers.format(secs) });
    if (secs < 3600) return t('minSecs', { m: Math.floor(secs / 60), s: secs % 60 });
    const h = Math.floor(secs / 3600), m = Math.floor((secs % 3600) / 60);
    return m ? t('hoursMins', { h: h, m: m }) : t('hours', { n: h });
  }
  // costText is a step's or a plan's cost: tokens, model calls, tool calls, time.
  function costText(c) {
    const calls = c.model_calls || 0, none = c.no_usage || 0;
    const parts = [];
    if (!calls || none < calls) parts.push(pl('tokens', (c.prompt_tokens || 0) + (c.completion_tokens || 0)));
    parts.push(pl('calls', calls));
    if (none) parts.push(none === calls ? t('noUsage') : t('someNoUsage', { n: none }));
    parts.push(pl('toolCalls', c.tool_calls || 0), secondsText(c.seconds || 0));
    return parts.join(t('costSep'));
  }
  // budgetText is a step's budget ({tokens, time in nanoseconds}).
  function budgetText(b) {
    const parts = [];
    if (b.tokens) parts.push(t('tokens_other', { n: compact.format(b.tokens) }));
    if (b.time) {
      const mins = Math.round(b.time / 6e10);
      parts.push(mins >= 60 ? (mins % 60 ? t('hoursMins', { h: Math.floor(mins / 60), m: mins % 60 }) : t('hours', { n: mins / 60 }))
        : mins >= 1 ? t('mins', { n: mins }) : t('secs', { n: Math.round(b.time / 1e9) }));
    }
    return parts.join(t('costSep'));
  }
  function errorText(err) {
    const key = 'err_' + err.code;
    const vars = { rev: err.revision, cur: err.current, holder: err.holder ? '@' + err.holder : '', code: err.code };
    return Object.prototype.hasOwnProperty.call(dict, key) ? t(key, vars) : t('err_other', vars);
  }

  // --- notices ---
  let noticeTimer = 0;
  function notice(text, kind) {
    const n = $('notice');
    n.textContent = text; n.dataset.kind = kind || 'info'; n.hidden = false;
    clearTimeout(noticeTimer);
    if (kind !== 'error') noticeTimer = setTimeout(() => { n.hidden = true; }, 8000);
  }

  // --- rendering ---
  function renderHeader() {
    const n = state.plans.size;
    $('count').textContent = state.total > n ? pl('plans', state.total, { n: n + '/' + numbers.format(state.total) }) : pl('plans', n);
    const who = $('who');
    if (state.me.can_act) who.textContent = t('signedIn', { who: state.me.person });
    else who.textContent = state.me.read_only ? t('readOnly') : t('notSignedIn');
    $('empty').hidden = n > 0 || !state.loaded; // no "no plans" before the first list came
  }
  const MARKS = { pending: '○', in_progress: '◐', completed: '✓', failed: '✕', skipped: '–' };

  function renderPlan(p) {
    const card = el('article', 'plan');
    card.dataset.plan = p.name; card.dataset.revision = String(p.revision);
    if (p.over_budget) card.dataset.overBudget = '1';
    const head = el('header');
    head.append(el('h2', 'title', p.title || p.name), el('span', 'name', p.name), el('span', 'label status', t('statusLabel', { status: statusText(p.status) })));
    card.append(head, renderDecisions(p));
    if (p.over_budget) card.append(el('p', 'alert over-budget', t('planOverBudget')));
    const comments = Array.isArray(p.comments) ? p.comments : [];
    const open = comments.filter(isOpen).length;
    if (open) card.append(el('p', 'alert open-comments', pl('openComments', open)));

    const prog = el('div', 'progress');
    const bar = el('div', 'bar'); const fill = el('div', 'fill');
    const pg = p.progress || { total: 0, percent: 0 };
    fill.style.width = Math.max(0, Math.min(100, pg.percent || 0)) + '%';
    bar.append(fill);
    const done = (pg.completed || 0) + (pg.skipped || 0);
    prog.append(bar, el('span', 'pct', pg.total ? t('progress', { done: done, total: pg.total, pct: pg.percent || 0 }) : t('noSteps')));
    card.append(prog);

    const meta = el('p', 'meta');
    const parts = [t('revision', { rev: p.revision })];
    const seen = state.changes.get(p.name);
    const by = p.changed_by || (seen && seen.revision === p.revision ? seen.actor : '');
    const what = p.changed_by ? p.change_action : (seen && seen.revision === p.revision ? seen.action : '');
    if (by) parts.push(t('changedBy', { who: by, what: t('act_' + (what || 'write')) }));
    else if (p.author) parts.push(t('writtenBy', { who: p.author }));
    const w = when(p.updated_at);
    if (w) parts.push(t('updated', { when: w }));
    meta.textContent = parts.join(' · ');
    meta.dataset.changedBy = by || '';
    card.append(meta);
    if (p.cost || p.budget || p.over_budget) {
      const pc = el('div', 'plan-cost');
      if (p.cost) pc.append(el('span', 'chip cost', t('planCost', { cost: costText(p.cost) })));
      if (p.budget) pc.append(el('span', 'chip budget', t('planBudget', { budget: p.budget })));
      if (p.over_budget) pc.append(el('span', 'chip over-budget', t('overBudget')));
      card.append(pc);
    }

    const list = el('ol', 'steps');
    for (const s of p.steps || []) list.append(renderStep(p, s, comments));
    card.append(list);
    if (p.next_from) {
      const shown = (p.steps || []).length;
      const total = (p.progress && p.progress.total) || 0;
      const mb = el('button', 'small more-steps', pl('moreSteps', Math.max(total - shown, 1)));
      mb.type = 'button';
      mb.addEventListener('click', () => moreSteps(p));
      card.append(mb);
    }
    const onPlan = comments.filter((c) => !c.step);
    if (onPlan.length) {
      const box = el('section', 'plan-comments');
      box.append(el('h3', '', t('planComments')), renderComments(p, onPlan));
      card.append(box);
    }

    const actions = el('div', 'actions');
    if (state.me.can_act) {
      const rb = el('button', 'primary review', t('review'));
      rb.type = 'button';
      rb.addEventListener('click', () => openReview(p.name));
      actions.append(rb, button('comment-open', t('commentBtn'), () => openComment(p, null)),
        button('budget-open', t('budgetBtn'), () => openBudget(p, null)));
    }
    const shownHistory = state.history.has(p.name);
    const hb = el('button', 'history-toggle', shownHistory ? t('hideHistory') : t('history'));
    hb.type = 'button';
    hb.addEventListener('click', () => {
      if (state.history.has(p.name)) state.history.delete(p.name); else state.history.add(p.name);
      refresh(p.name, true);
    });
    actions.append(hb);
    card.append(actions);
    if (shownHistory) card.append(renderHistory(p));
    return card;
  }

  function button(cls, text, onClick) {
    const b = el('button', cls, text);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  // renderDecisions is what people decided on the plan, or wait to: its approval (or none),
  // the run waiting for a decision, the last rejection. Each carries data-decision.
  function renderDecisions(p) {
    const bar = el('div', 'decisions');
    bar.setAttribute('role', 'group'); bar.setAttribute('aria-label', t('decisions'));
    const decision = (tag, cls, kind, text) => { const d = el(tag, 'decision ' + cls + ' ' + kind, text); d.dataset.decision = kind; bar.append(d); return d; };
    if (p.approval) decision('span', 'approval', 'approved', t('approved', { rev: p.approval.revision, by: p.approval.by }));
    else decision('span', 'approval', 'unapproved', t('unapproved'));
    if (p.waiting) {
      const wt = decision('p', '', 'waiting', t('waiting', { who: p.waiting.agent || t('someone'), rev: p.waiting.revision, since: when(p.waiting.since) }));
      wt.dataset.revision = String(p.waiting.revision);
    }
    if (p.rejection && !p.approval) {
      decision('p', '', 'rejected', t('rejectedBy', { rev: p.rejection.revision, by: p.rejection.by, feedback: p.rejection.feedback || '' }));
    }
    return bar;
  }

  // SUFFIXES are the suffixes of a step's text that the page shows beneath it, each shown
  // only when the board read it (the field it fills is set), so the text drops only those.
  const SUFFIXES = [['after ', 'after'], ['uses ', 'uses'], ['proof ', 'proof'], ['review', 'review'], ['budget ', 'budget']];
  function bareText(s) {
    let text = s.text;
    for (;;) {
      const m = /\s*\(([^()]*)\)\s*$/.exec(text);
      if (!m) return text;
      const kind = SUFFIXES.find(([kw, field]) => (kw.endsWith(' ') ? m[1].startsWith(kw) : m[1] === kw) && s[field] && (!Array.isArray(s[field]) || s[field].length));
      if (!kind || m.index === 0) return text;
      text = text.slice(0, m.index);
    }
  }

  function renderStep(p, s, comments) {
    const li = el('li', 'step');
    li.dataset.step = String(s.number); li.dataset.state = s.state;
    if (s.over_budget) li.dataset.overBudget = '1';
    if (s.depth) li.style.setProperty('--depth', String(s.depth));
    const text = el('span', 'text', bareText(s));
    text.dataset.n = String(s.number);
    li.append(text);

    const chips = el('div', 'chips');
    chips.append(el('span', 'mark', MARKS[s.state] || '?'), el('span', 'state', t('st_' + s.state)));
    if (s.state === 'in_progress' && !s.awaiting_review) {
      chips.append(s.holder ? el('span', 'holder', '@' + s.holder) : el('span', 'holder nobody', t('nobody')));
      if (s.holder && s.held_until) {
        const end = new Date(s.held_until);
        const gone = end.getTime() <= Date.now();
        const lease = el('span', 'lease', t(gone ? 'leaseExpired' : 'leaseUntil', { when: when(s.held_until) }));
        lease.dataset.expires = s.held_until; lease.dataset.expired = gone ? '1' : '0';
        chips.append(lease);
      }
    }
    if (s.by) chips.append(el('span', 'by', '@' + s.by));
    if (s.awaiting_review) chips.append(el('span', 'awaiting', s.done_by ? t('awaitingReviewBy', { who: '@' + s.done_by }) : t('awaitingReview')));
    if ((s.after || []).length) {
      const a = el('span', 'chip after', t('after', { steps: s.after.join(', ') }));
      const finished = (n) => (p.steps || []).some((o) => o.number === n && (o.state === 'completed' || o.state === 'skipped'));
      a.dataset.ready = s.after.every(finished) ? '1' : '0';
      chips.append(a);
    }
    if ((s.uses || []).length) chips.append(el('span', 'chip uses', t('uses', { tools: s.uses.join(', ') })));
    if ((s.proof || []).length) chips.append(el('span', 'chip proof', t('proofStep', { tools: s.proof.join(', ') })));
    if (s.review && !s.awaiting_review) chips.append(el('span', 'chip review-needed', t('needsReview')));
    if (s.cost) chips.append(el('span', 'chip cost', costText(s.cost)));
    if (s.budget) chips.append(el('span', 'chip budget', t('stepBudget', { budget: budgetText(s.budget) })));
    if (s.over_budget) chips.append(el('span', 'chip over-budget', t('overBudget')));
    if (state.me.can_act) {
      const acts = el('span', 'step-actions');
      if (s.awaiting_review) acts.append(button('small complete', t('completeReviewBtn'), () => completeReview(p, s)));
      if (s.state === 'in_progress' || s.state === 'pending') {
        acts.append(button('small hand', s.state === 'pending' ? t('assignBtn') : t('handOverBtn'), () => openHand(p, s)));
      }
      acts.append(button('small comment-open', t('commentBtn'), () => openComment(p, s)));
      if (s.budget || s.over_budget) acts.append(button('small budget-open', t('budgetBtn'), () => openBudget(p, s)));
      chips.append(acts);
    }
    li.append(chips);

    if (s.observed || s.evidence) {
      const proofs = el('div', 'proofs');
      if (s.observed) proofs.append(el('span', 'observed', t('observed', { text: s.observed })));
      if (s.evidence) proofs.append(el('span', 'evidence', t('evidence', { text: s.evidence })));
      li.append(proofs);
    }
    const mine = comments.filter((c) => c.step === s.number);
    if (mine.length) li.append(renderComments(p, mine));
    return li;
  }

  // isOpen: a comment nobody answered or resolved yet.
  function isOpen(c) { return !c.answered_at && !c.resolved_at && !c.answered_by && !c.resolved_by; }

  // renderComments lists comments, open ones first and marked, answered or resolved ones muted.
  function renderComments(p, list) {
    const ul = el('ul', 'comments');
    const sorted = list.filter(isOpen).concat(list.filter((c) => !isOpen(c)));
    for (const c of sorted) {
      const open = isOpen(c);
      const li = el('li', 'comment ' + (open ? 'open' : 'closed'));
      li.dataset.comment = String(c.id);
      li.append(el('span', 'who', t('commentMeta', { who: c.author || '', when: when(c.at), rev: c.revision })), el('span', 'body', c.text || ''));
      if (c.answered_by) li.append(el('span', 'answer', c.answer ? t('commentAnswered', { who: c.answered_by, answer: c.answer }) : t('commentAnsweredNoText', { who: c.answered_by })));
      if (c.resolved_by) li.append(el('span', 'answer', t('commentResolved', { who: c.resolved_by })));
      if (open && state.me.can_act) li.append(button('small resolve', t('resolveBtn'), () => resolveComment(p, c)));
      ul.append(li);
    }
    return ul;
  }

  function renderHistory(p) {
    const box = el('div', 'history');
    const hist = p.history || [];
    if (!hist.length) { box.append(el('p', '', t('noHistory'))); return box; }
    const ol = el('ol');
    const pre = el('pre', 'diff'); pre.hidden = true;
    for (const r of hist) {
      const li = el('li');
      li.dataset.revision = String(r.revision);
      const what = r.action ? t('act_' + r.action) : '';
      li.append(el('span', '', t('revision', { rev: r.revision })), el('span', '', when(r.updated_at)),
        el('span', '', [r.author, what].filter(Boolean).join(' ')), el('span', '', statusText(r.status)));
      if (r.revision > 1) {
        const d = el('button', 'small', t('diff'));
        d.type = 'button';
        d.addEventListener('click', async () => {
          try {
            const res = await call(planURL(p.name) + '/diff?from=' + (r.revision - 1) + '&to=' + r.revision);
            pre.textContent = res.diff; pre.hidden = false;
          } catch (e) { notice(errorText(e), 'error'); }
        });
        li.append(d);
      }
      ol.append(li);
    }
    box.append(ol, pre);
    return box;
  }

  function place(p, flash) {
    const main = $('plans');
    const card = renderPlan(p);
    const old = main.querySelector('article[data-plan="' + CSS.escape(p.name) + '"]');
    if (old) old.replaceWith(card);
    else {
      let before = null;
      for (const c of main.children) { if (c.dataset.plan > p.name) { before = c; break; } }
      main.insertBefore(card, before);
    }
    if (flash) { card.classList.add('updated'); setTimeout(() => card.classList.remove('updated'), 900); }
  }
  function removePlan(name) {
    state.plans.delete(name);
    const old = $('plans').querySelector('article[data-plan="' + CSS.escape(name) + '"]');
    if (old) old.remove();
    renderHeader();
  }

  // --- loading ---
  // The list gives summaries, a page at a time; each card's steps come per plan, a page at
  // a time too, so no answer grows with the plans.
  async function listAll() {
    const plans = [];
    let res, cursor = '', total = 0, warnings = [];
    for (let i = 0; i < 1000; i++) {
      res = await call('api/plans' + (cursor ? '?cursor=' + encodeURIComponent(cursor) : ''));
      plans.push(...res.plans);
      total = res.total;
      if (i === 0) warnings = res.warnings || [];
      if (!res.next_cursor) break;
      cursor = res.next_cursor;
    }
    return { plans, total, warnings };
  }
  // card reads what a card shows of plan name: its summary and first page of steps, and its
  // kept revisions when its history is open.
  async function card(name) {
    const p = await call(stepsURL(name));
    if (state.history.has(name)) {
      try { const d = await call(planURL(name)); p.history = d.history; p.changed_by = d.changed_by; p.change_action = d.change_action; } catch (e) { /* shown without */ }
    }
    return p;
  }
  async function loadAll() {
    try {
      const res = await listAll();
      state.plans = new Map();
      state.total = res.total;
      $('plans').replaceChildren();
      for (const p of res.plans) { state.plans.set(p.name, p); place(p, false); }
      const queue = res.plans.map((p) => p.name);
      const worker = async () => { while (queue.length) await refresh(queue.shift(), true); };
      await Promise.all([worker(), worker(), worker(), worker()]);
      if (res.warnings && res.warnings.length) notice(res.warnings.map((w) => t('warning', { name: w.name, msg: w.message })).join(' '), 'error');
      state.loaded = true;
      renderHeader();
      document.body.dataset.loaded = '1';
    } catch (e) { notice(errorText(e), 'error'); }
  }
  // refresh reads one plan again; an answer older than what is shown is dropped.
  async function refresh(name, force) {
    const n = (state.seq.get(name) || 0) + 1;
    state.seq.set(name, n);
    try {
      const p = await card(name);
      if (state.seq.get(name) !== n) return;
      const shown = state.plans.get(name);
      if (shown && shown.revision > p.revision) return;
      const changed = !shown || shown.revision !== p.revision;
      state.plans.set(name, p);
      if (!shown) state.total++;
      place(p, changed && !force);
      renderHeader();
    } catch (e) {
      if (state.seq.get(name) === n && e.code === 'not_found') removePlan(name);
    }
  }
  // moreSteps appends the next page of a card's steps.
  async function moreSteps(p) {
    try {
      const next = await call(stepsURL(p.name, p.next_from));
      const shown = state.plans.get(p.name);
      if (!shown || shown !== p || next.revision !== p.revision) { refresh(p.name, true); return; }
      p.steps = (p.steps || []).concat(next.steps);
      p.next_from = next.next_from;
      place(p, false);
    } catch (e) { notice(errorText(e), 'error'); }
  }

  function connect() {
    const live = $('live');
    const setLive = (s) => { live.dataset.state = s; live.textContent = t(s); };
    setLive('connecting');
    const es = new EventSource('api/events');
    es.addEventListener('ready', () => { setLive('live'); loadAll(); });
    es.addEventListener('resync', () => loadAll());
    es.addEventListener('change', (ev) => {
      let c;
      try { c = JSON.parse(ev.data); } catch (e) { return; }
      if (!c || typeof c.name !== 'string' || !c.name) return;
      if (c.action === 'delete') {
        if (state.plans.has(c.name)) state.total = Math.max(0, state.total - 1);
        removePlan(c.name); state.changes.delete(c.name); return;
      }
      state.changes.set(c.name, { revision: c.revision, actor: c.actor || '', action: c.action });
      refresh(c.name, false);
    });
    es.addEventListener('error', () => setLive('reconnecting'));
  }

  // --- review: approve or reject the revision shown ---
  const review = { name: '', revision: 0, title: '' };
  async function openReview(name) {
    let p;
    try { p = await call(planURL(name)); } catch (e) { notice(errorText(e), 'error'); return; }
    review.name = p.name; review.revision = p.revision; review.title = p.title || p.name; review.approved = !!p.approval;
    $('review-title').textContent = t('reviewTitle', { title: review.title });
    $('review-meta').textContent = t('reviewMeta', { rev: p.revision, status: statusText(p.status) }) +
      ' · ' + (p.approval ? t('approved', { rev: p.approval.revision, by: p.approval.by }) : t('unapproved'));
    $('review-content').textContent = p.content;
    const uses = $('review-uses');
    uses.replaceChildren();
    for (const s of p.steps || []) {
      const named = Array.isArray(s.uses) && s.uses.length > 0;
      let line = t('usesStep', { n: s.number, tools: named ? s.uses.join(', ') : t('usesNone') });
      if (Array.isArray(s.proof) && s.proof.length > 0) line += ' · ' + t('proofStep', { tools: s.proof.join(', ') });
      const li = el('li', named ? 'uses' : 'uses none', line);
      li.dataset.step = String(s.number);
      uses.append(li);
    }
    showReviewDiff(p);
    $('review-approve').textContent = t('approveRev', { rev: p.revision });
    $('review-feedback').value = '';
    $('review-error').hidden = true;
    $('review-stale').hidden = true;
    $('review').dataset.revision = String(p.revision);
    if (!$('review').open) $('review').showModal();
  }
  // showReviewDiff shows, for a plan approved before, what changed since the last approved
  // revision the history keeps.
  async function showReviewDiff(p) {
    const box = $('review-diff'), label = $('review-diff-label');
    box.hidden = true; label.hidden = true; box.textContent = '';
    const last = (p.history || []).find((r) => r.action === 'approve' && r.approved && r.approved < p.revision);
    if (!last || p.approval) return;
    try {
      const res = await call(planURL(p.name) + '/diff?from=' + last.approved + '&to=' + p.revision);
      if (review.name !== p.name || review.revision !== p.revision || !res.diff) return;
      label.textContent = t('reviewDiff', { rev: last.approved, by: last.author || '' });
      box.textContent = res.diff; box.dataset.from = String(last.approved);
      box.hidden = false; label.hidden = false;
    } catch (e) { /* the history no longer keeps it: the body alone is shown */ }
  }
  function reviewStale() {
    const d = $('review');
    if (!d.open) return;
    const p = state.plans.get(review.name);
    if (p && p.revision !== review.revision) {
      $('review-stale-text').textContent = t('staleReview', { cur: p.revision });
      $('review-stale').hidden = false;
    }
  }
  async function decide(kind) {
    const feedback = $('review-feedback').value;
    const box = $('review-error');
    if (kind === 'reject' && !feedback.trim()) { box.textContent = t('err_feedback_required'); box.hidden = false; return; }
    for (const b of $('review').querySelectorAll('.buttons button')) b.disabled = true;
    try {
      const res = await act(planURL(review.name) + '/' + kind, { revision: review.revision, feedback: feedback });
      $('review').close();
      if (kind === 'approve') notice(t('approvedOk', { rev: review.revision, name: review.name }));
      else notice(t(review.approved ? 'rejectedRevoked' : 'rejectedOk', { rev: review.revision, name: review.name }));
      if (res.plan) { state.plans.set(res.plan.name, res.plan); place(res.plan, false); }
    } catch (e) {
      box.textContent = errorText(e); box.hidden = false; box.dataset.code = e.code;
      if (e.code === 'revision_conflict') reviewStale();
    } finally {
      for (const b of $('review').querySelectorAll('.buttons button')) b.disabled = false;
    }
  }
  $('review-approve').addEventListener('click', () => decide('approve'));
  $('review-reject').addEventListener('click', () => decide('reject'));
  $('review-cancel').addEventListener('click', () => $('review').close());
  $('review-reload').addEventListener('click', () => openReview(review.name));

  // --- hand a step over, or release it ---
  const hand = { name: '', revision: 0, step: 0 };
  function openHand(p, s) {
    hand.name = p.name; hand.revision = p.revision; hand.step = s.number;
    $('hand-title').textContent = t('handTitle', { n: s.number });
    $('hand-step').textContent = t('handStep', { text: s.text, holder: s.state === 'in_progress' ? (s.holder ? '@' + s.holder : t('nobody')) : t('st_' + s.state) });
    $('hand-holder').value = '';
    $('hand-error').hidden = true;
    $('hand-release').hidden = !(s.state === 'in_progress' && s.holder);
    $('hand').dataset.step = String(s.number);
    $('hand').showModal();
    $('hand-holder').focus();
  }
  async function giveTo(holder) {
    const box = $('hand-error');
    if (holder !== '' && !/^[^\s()]{1,64}$/u.test(holder)) { box.textContent = t('err_bad_holder'); box.hidden = false; return; }
    try {
      const res = await act(planURL(hand.name) + '/steps/' + hand.step + '/holder', { revision: hand.revision, holder: holder });
      $('hand').close();
      if (!res.changed) notice(t('unchangedOk', { n: hand.step }));
      else if (holder) notice(t('handedOk', { n: hand.step, name: hand.name, holder: '@' + holder }));
      else notice(t('releasedOk', { n: hand.step, name: hand.name }));
      if (res.plan) { state.plans.set(res.plan.name, res.plan); place(res.plan, false); }
    } catch (e) { box.textContent = errorText(e); box.hidden = false; box.dataset.code = e.code; }
  }
  async function completeReview(p, s) {
    try {
      const res = await act(planURL(p.name) + '/steps/' + s.number + '/complete', { revision: p.revision });
      notice(t('reviewedOk', { n: s.number, name: p.name }));
      if (res.plan) { state.plans.set(res.plan.name, res.plan); place(res.plan, false); }
    } catch (e) { notice(errorText(e), 'error'); }
  }
  $('hand-give').addEventListener('click', () => giveTo($('hand-holder').value.trim()));
  $('hand-release').addEventListener('click', () => giveTo(''));
  $('hand-cancel').addEventListener('click', () => $('hand').close());

  // --- comment on a step (or the plan, step 0), raise a budget: one small form, #ask ---
  // ask.kind is 'comment' or 'budget'; ask.step 0 means the plan.
  const ask = { kind: '', name: '', step: 0 };
  function openAsk(kind, p, s) {
    ask.kind = kind; ask.name = p.name; ask.step = s ? s.number : 0;
    const title = p.title || p.name;
    if (kind === 'comment') {
      $('ask-title').textContent = s ? t('commentTitleStep', { n: s.number }) : t('commentTitlePlan', { title: title });
      $('ask-meta').textContent = s ? bareText(s) : p.name;
    } else {
      $('ask-title').textContent = s ? t('budgetTitleStep', { n: s.number }) : t('budgetTitlePlan', { title: title });
      const now = s ? (s.budget ? budgetText(s.budget) : '') : (p.budget || '');
      $('ask-meta').textContent = t('budgetNow', { budget: now || t('budgetNone') });
    }
    $('ask-label').textContent = t(kind === 'comment' ? 'commentText' : 'budgetValue');
    $('ask-send').textContent = t(kind === 'comment' ? 'send' : 'setBudget');
    const text = $('ask-text');
    text.value = ''; text.rows = kind === 'comment' ? 3 : 1;
    text.placeholder = kind === 'comment' ? '' : '20k tokens, 10m';
    $('ask-error').hidden = true;
    $('ask').dataset.kind = kind; $('ask').dataset.step = String(ask.step);
    $('ask').showModal();
    text.focus();
  }
  const openComment = (p, s) => openAsk('comment', p, s);
  const openBudget = (p, s) => openAsk('budget', p, s);
  async function sendAsk() {
    const value = $('ask-text').value.trim();
    const box = $('ask-error');
    const comment = ask.kind === 'comment';
    if (!value) { box.textContent = t(comment ? 'err_text_required' : 'err_budget_required'); box.hidden = false; return; }
    $('ask-send').disabled = true;
    try {
      await act(planURL(ask.name) + (comment ? '/comments' : '/budget'), comment ? { step: ask.step, text: value } : { step: ask.step, budget: value });
      $('ask').close();
      const what = ask.step ? t('stepN', { n: ask.step }) : t('thePlan');
      notice(comment ? t('commentedOk', { what: what, name: ask.name }) : t('budgetOk', { what: what, name: ask.name, budget: value }));
      refresh(ask.name, true);
    } catch (e) { box.textContent = errorText(e); box.hidden = false; box.dataset.code = e.code; }
    finally { $('ask-send').disabled = false; }
  }
  async function resolveComment(p, c) {
    try {
      await act(planURL(p.name) + '/comments/' + encodeURIComponent(c.id) + '/resolve', {});
      notice(t('resolvedOk'));
      refresh(p.name, true);
    } catch (e) { notice(errorText(e), 'error'); }
  }
  $('ask-send').addEventListener('click', sendAsk);
  $('ask-cancel').addEventListener('click', () => $('ask').close());

  // Keep the review's staleness notice current while it is open.
  setInterval(reviewStale, 500);

  (async function start() {
    try { state.me = await call('api/me'); } catch (e) { /* read-only until known */ }
    renderHeader();
    if (state.me.sign_in_to_read && !state.me.can_act) { notice(t('err_sign_in_required'), 'error'); return; }
    connect();
  })();
})();
