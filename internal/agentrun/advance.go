package agentrun

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
)

// The host keeps the books of proven steps (Config.AdvanceOnProof): a passing call of a
// "(proof …)" tool of a step the caller holds completes that step and takes the next ready
// one for the caller, in one write, by the run's own update_plan_step (so every check of a
// completion applies: approval, evidence, Verify, review, budgets, and the cost is written
// as for any move), before the call's result returns. The model is told in one line after
// the history at its next call, never in the instruction. Only a call of a model message
// the run read advances, and only steps held when the message came, each once (the model
// listed its calls knowing them), and none of a message that lists a plan tool call of any
// plan middleware of the run, which moves its steps itself; in a message of several calls a proof tool's call takes effect in the
// order listed, as a plan call does. Runs of *schema.AgenticMessage, whose calls are not
// ordered, do not advance.

// advances reports whether this middleware advances proven steps.
func (m *Middleware[M, S]) advances() bool {
	var zero M
	_, ordered := any(zero).(*schema.Message)
	return m.cfg.AdvanceOnProof && ordered
}

// advance completes each step of proven, which the passing call of tool proves and the
// caller held before and after it, and takes the next.
func (m *Middleware[M, S]) advance(ctx context.Context, tool string, proven []heldStep) {
	st, _ := ctx.Value(m.stateKey).(*runState)
	if !m.advances() || st == nil {
		return
	}
	proven = slices.DeleteFunc(proven, func(h heldStep) bool { return !h.proves || !st.order.claimAdvance(h) })
	if len(proven) == 0 {
		return
	}
	set := m.set(ctx)
	i := slices.IndexFunc(set.tools, func(t *tools.PlanTool) bool { return t.Spec.Name == tools.ToolUpdatePlanStep })
	if i < 0 {
		return
	}
	for _, h := range proven {
		args := map[string]any{"name": h.plan, "step": h.number, "status": string(document.StepCompleted), "next": true}
		if m.cfg.RequireEvidence {
			args["evidence"] = strings.ReplaceAll(set.texts["advance.evidence"], "{value}", tool)
		}
		js, err := tools.ResultAPI.MarshalToString(args)
		if err != nil {
			continue
		}
		out, err := set.tools[i].InvokableRun(ctx, js)
		if err != nil {
			continue // update_plan_step interrupts nothing; a Go error is no move
		}
		if line, now := m.advanceLine(ctx, set.texts, h, tool, out); line != "" {
			st.reminders.tell(line, h.plan, now)
		}
	}
}

// advanceLine is what the model is told of the move out made for step h on tool's pass:
// the step held now with its text and the progress, or why h stays the caller's; "" when
// the move was refused because h is no longer the caller's (taken over meanwhile). now is
// the step the move handed the caller, with the line that says so at later calls.
func (m *Middleware[M, S]) advanceLine(ctx context.Context, texts map[string]string, h heldStep, tool, out string) (line string, now handed) {
	var r struct {
		Revision int64            `json:"revision"`
		Step     int              `json:"step"`
		Done     string           `json:"done"`
		Next     string           `json:"next"`
		Review   string           `json:"review"`
		Budget   string           `json:"budget"`
		Error    *tools.ErrorBody `json:"error"`
	}
	_ = tools.ResultAPI.UnmarshalFromString(out, &r)
	fill := func(key string, more ...string) string {
		pairs := append([]string{"{name}", tools.InlineName(h.plan), "{step}", strconv.Itoa(h.number), "{value}", tool, "{done}", r.Done}, more...)
		return strings.NewReplacer(pairs...).Replace(texts[key])
	}
	if r.Error != nil {
		if !slices.ContainsFunc(m.heldNaming(ctx, tool), func(s heldStep) bool { return s.plan == h.plan && s.number == h.number }) {
			return "", now
		}
		return fill("reminder.advance_refused", "{reason}", r.Error.Message), now
	}
	done := "reminder.advanced"
	if r.Review != "" {
		done = "reminder.advanced_review" // the step awaits someone else's review
	}
	if r.Next != "" {
		return fill(done + "_none"), now
	}
	text := ""
	if p, err := m.Store.Get(ctx, h.plan); err == nil {
		// The step's text as of the move, or as long as the caller still holds it.
		if steps := document.StepsOf(p.Content); r.Step >= 1 && r.Step <= len(steps) && (p.Revision == r.Revision || steps[r.Step-1].Holder == h.holder) {
			text, _ = document.SplitHolder(steps[r.Step-1].Text)
		}
	}
	quoted := tools.QuoteInline(text, 80)
	line = fill(done, "{next}", strconv.Itoa(r.Step), "{text}", quoted)
	if r.Budget != "" {
		line += fill("reminder.advanced_budget", "{next}", strconv.Itoa(r.Step), "{budget}", r.Budget)
	}
	now = handed{step: heldStep{h.plan, r.Step, h.holder, true}, line: fill("reminder.holding", "{next}", strconv.Itoa(r.Step), "{text}", quoted)}
	return line, now
}

// holdingLines are the lines of the steps the host handed the run that it still holds, in
// progress; the others are forgotten. r.mu is held.
func (m *Middleware[M, S]) holdingLines(ctx context.Context, r *runReminders) string {
	var lines []string
	r.holding = slices.DeleteFunc(r.holding, func(h handed) bool {
		p, err := m.Store.Get(ctx, h.step.plan)
		if err != nil {
			return false // unreadable for now: neither told nor forgotten
		}
		steps := document.StepsOf(p.Content)
		n := h.step.number
		if n > len(steps) || steps[n-1].Holder != h.step.holder || steps[n-1].State != document.StepInProgress {
			return true
		}
		lines = append(lines, h.line)
		return false
	})
	return strings.Join(lines, "\n")
}

// heldProofs are the steps the calling agent holds that name a "(proof …)" tool, and those
// tools.
func (m *Middleware[M, S]) heldProofs(ctx context.Context) ([]heldStep, map[string]bool) {
	var held []heldStep
	proofs := map[string]bool{}
	for cur, s := range m.callerHolds(ctx) {
		if len(s.Proof) > 0 {
			held = append(held, heldStep{cur.Name, s.Number, s.Holder, true})
		}
		for _, t := range s.Proof {
			proofs[t] = true
		}
	}
	return held, proofs
}

// orderedAsPlan is what a message's calls are ordered by, whether it lists a call of a plan
// tool of any plan middleware of the run, and, where proven steps advance, the steps the
// caller holds that its calls may advance. Where proven steps advance and the message lists
// no plan tool call, the proof tools of the steps the caller holds are ordered as plan
// tools.
func (m *Middleware[M, S]) orderedAsPlan(ctx context.Context, st *runState, calls []schema.ToolCall) (isPlan func(string) bool, planCalled bool, held []heldStep) {
	planCalled = slices.ContainsFunc(calls, func(c schema.ToolCall) bool {
		return m.isPlanTool(c.Function.Name) || st.peers.planTool(c.Function.Name)
	})
	if !m.advances() || planCalled || len(calls) == 0 {
		return m.isPlanTool, planCalled, nil
	}
	held, proofs := m.heldProofs(ctx)
	if len(calls) < 2 {
		return m.isPlanTool, false, held
	}
	return func(name string) bool { return m.isPlanTool(name) || proofs[name] }, false, held
}
