package agentrun

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// Reminders: when a plan the run works on (one its tool calls wrote, read or moved steps
// of) was changed by someone else since the run's previous model call, the next model call
// gets one short line about it (revision, who, which steps moved, the next ready step),
// never the plan itself, and nothing when nothing changed. The lines are one message
// appended after the input for that call only: the instruction and the history stay as
// they were, so the prompt cache keeps everything before it. At most one reminder goes out
// every Config.ReminderEvery model calls; a change held back is told with the next one.
// Which plans a run works on is read from the tool calls in its history, so runs whose
// messages are *schema.AgenticMessage get no reminders. Each model call reads each such
// plan once (and its history when it changed).

// defaultReminderEvery is Config.ReminderEvery's default. A worker spends about three model
// calls on a step (take it, do it, finish it), so this tells it of others' moves about once
// per step of its own: soon enough to take a step that just became ready or to see its plan
// rewritten, rarely enough that a busy plan (many workers moving steps) does not cost a note
// at every call.
const defaultReminderEvery = 3

// maxReminderSteps bounds the steps one reminder line names.
const maxReminderSteps = 5

// remind returns input, with a reminder appended when plans the run works on were changed
// by others since the run's previous model call and the last reminder is ReminderEvery
// calls ago or more. A plan that cannot be read is left out.
func (m *Middleware[M, S]) remind(ctx context.Context, input []M) []M {
	every := m.cfg.ReminderEvery
	if every == 0 {
		every = defaultReminderEvery
	}
	st, _ := ctx.Value(m.stateKey).(*runState)
	if st == nil {
		return input
	}
	r := &st.reminders
	r.mu.Lock()
	defer r.mu.Unlock()
	told := strings.Join(r.advanced, "\n") // until a model call answers (delivered): a retry sends them again
	if told == "" {
		told = m.holdingLines(ctx, r) // advance.go
	}
	if every < 0 {
		return withNote(input, told)
	}
	r.calls++
	if r.scanned > len(input) {
		r.scanned = 0 // the history was rewritten: read it again
	}
	var fresh []string
	for _, msg := range input[r.scanned:] {
		for _, name := range m.plansCalled(msg) {
			if _, ok := r.seen[name]; !ok && !slices.Contains(fresh, name) {
				fresh = append(fresh, name)
			}
		}
	}
	r.scanned = len(input)
	if r.seen == nil && len(fresh) > 0 {
		r.seen = map[string]int64{}
	}
	for _, name := range fresh {
		r.seen[name] = 0 // looked at below, without a reminder
	}
	due := r.last == 0 || r.calls-r.last >= every
	names := make([]string, 0, len(r.seen))
	for name := range r.seen {
		names = append(names, name)
	}
	slices.Sort(names)
	var lines []string
	for _, name := range names {
		since := r.seen[name]
		if since != 0 && !due {
			continue // looked at when the next reminder is due: no read on every model call
		}
		p, err := m.Store.Get(ctx, name)
		if err != nil || p.Revision <= since {
			continue
		}
		if since == 0 {
			r.seen[name] = p.Revision
			continue
		}
		who := m.changedByOthers(ctx, p, since, st.agent)
		if who == nil {
			r.seen[name] = p.Revision // only the run's own changes
			continue
		}
		lines = append(lines, m.reminderLine(ctx, st.set.texts, p, since, who))
		r.seen[name] = p.Revision
	}
	var text string
	if len(lines) > 0 {
		r.last = r.calls
		text = st.set.texts["reminder.header"] + strings.Join(lines, "\n")
	}
	if warn := budgetReminder(st); warn != "" {
		text = strings.TrimPrefix(text+"\n"+warn, "\n")
	}
	return withNote(input, strings.TrimPrefix(told+"\n"+text, "\n"))
}

// withNote is input with text after it in a user message; input itself when text is "".
func withNote[M adk.MessageType](input []M, text string) []M {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return input
	}
	note, ok := userMessage[M](text)
	if !ok {
		return input
	}
	return append(slices.Clip(input), note)
}

// budgetReminder is, once per step the run holds, the line telling it that 80% of the
// step's budget (or its plan's) is spent and what is left; "" otherwise. It travels with
// the reminders, after the history, never in the instruction.
func budgetReminder(st *runState) string {
	r := &st.costs
	r.Mu.Lock()
	defer r.Mu.Unlock()
	now := time.Now()
	for _, h := range r.Held {
		if l, ok := h.Warn(now); ok {
			texts := st.set.texts
			return strings.NewReplacer("{step}", tools.Itoa(h.Step), "{name}", h.Plan, "{left}", tools.BudgetText(texts, l),
				"{spent}", strconv.Itoa(int(min(l.Spent, 9.99)*100))).Replace(texts["reminder.budget"])
		}
	}
	return ""
}

// plansCalled names the plans an assistant message's calls of this agent's plan tools name.
func (m *Middleware[M, S]) plansCalled(msg M) []string {
	am, ok := any(msg).(*schema.Message)
	if !ok || am == nil || am.Role != schema.Assistant {
		return nil
	}
	var out []string
	for _, call := range am.ToolCalls {
		if !m.isPlanTool(call.Function.Name) {
			continue
		}
		var a struct {
			Name string `json:"name"`
		}
		if tools.ResultAPI.UnmarshalFromString(call.Function.Arguments, &a) == nil && document.ValidateName(a.Name) == nil {
			out = append(out, a.Name)
		}
	}
	return out
}

func (m *Middleware[M, S]) isPlanTool(name string) bool {
	for _, shown := range m.names {
		if shown == name {
			return true
		}
	}
	return false
}

// changedByOthers names who, other than agent, made p's revisions after since, in order;
// nil when agent made them all. When history does not say, "?" stands for whoever did.
func (m *Middleware[M, S]) changedByOthers(ctx context.Context, p *document.Plan, since int64, agent string) []string {
	revs, err := m.Store.History(ctx, p.Name)
	if err != nil {
		return []string{"?"}
	}
	var who []string
	told := int64(0)
	for _, r := range revs {
		if r.Revision <= since {
			continue
		}
		told++
		by := r.Author
		if by == agent {
			continue
		}
		if by == "" {
			by = "?"
		}
		if !slices.Contains(who, by) {
			who = append(who, by)
		}
	}
	if told < p.Revision-since && !slices.Contains(who, "?") {
		who = append(who, "?") // revisions history no longer keeps
	}
	return who
}

// reminderLine is one plan's line: its revision, who changed it, the steps whose state
// changed since (or that the steps were rewritten), and the next ready step. Every name and
// text in it is quoted (quoteInline, inlineName), so the line stays one line.
func (m *Middleware[M, S]) reminderLine(ctx context.Context, texts map[string]string, p *document.Plan, since int64, who []string) string {
	var b strings.Builder
	// Actor names are quoted (quoteInline): a name is text someone chose, and must never
	// start a line of the user-role message or pass for its words. "?" (unknown) stays bare.
	fmt.Fprintf(&b, "- %s r%d→r%d %s ", p.Name, since, p.Revision, texts["reminder.by"])
	for i, by := range who {
		if i > 0 {
			b.WriteString(", ")
		}
		if by == "?" {
			b.WriteString(by)
			continue
		}
		b.WriteString(tools.QuoteInline(by, tools.MaxActorQuote))
	}
	now := document.StepsOf(p.Content)
	if old, err := m.Store.GetRevision(ctx, p.Name, since); err == nil {
		was := document.StepsOf(old.Content)
		if !engine.SameStepList(was, now) {
			b.WriteString("; " + texts["reminder.rewritten"])
		} else {
			var moved []string
			for i, s := range now {
				if s.State != was[i].State || s.Holder != was[i].Holder {
					item := fmt.Sprintf("#%d %s", s.Number, s.State)
					if s.Holder != "" {
						item += " (@" + tools.InlineName(s.Holder) + ")"
					}
					moved = append(moved, item)
				}
			}
			if len(moved) > maxReminderSteps {
				moved = append(moved[:maxReminderSteps], fmt.Sprintf("+%d", len(moved)-maxReminderSteps))
			}
			if len(moved) > 0 {
				b.WriteString("; " + strings.Join(moved, ", "))
			}
		}
	}
	progress := document.ComputeProgress(now)
	fmt.Fprintf(&b, "; %s=%d/%d", texts["digest.done"], progress.Completed+progress.Skipped, progress.Total)
	if next, ok := document.NextFreeStep(now); ok {
		fmt.Fprintf(&b, "; %s=#%d %s", texts["digest.next"], next.Number, tools.QuoteInline(next.Text, 80))
	}
	return b.String()
}

// userMessage is a user message of the run's message type holding text.
func userMessage[M adk.MessageType](text string) (M, bool) {
	var zero M
	switch any(zero).(type) {
	case *schema.Message:
		return any(schema.UserMessage(text)).(M), true
	case *schema.AgenticMessage:
		msg := &schema.AgenticMessage{Role: schema.AgenticRoleTypeUser, ContentBlocks: []*schema.ContentBlock{{
			Type: schema.ContentBlockTypeUserInputText, UserInputText: &schema.UserInputText{Text: text}}}}
		return any(msg).(M), true
	}
	return zero, false
}
