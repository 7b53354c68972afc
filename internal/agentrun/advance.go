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
// the history at its next call, never in the instruction. A message that lists a plan tool
// call moves its steps itself, so none advances on its calls; in a message of several calls
// a proof tool's call takes effect in the order listed, as a plan call does.

// advance completes, for each step of before that tool proves, the step and takes the next.
func (m *Middleware[M, S]) advance(ctx context.Context, tool string, before []heldStep) {
	st, _ := ctx.Value(m.stateKey).(*runState)
	if !m.cfg.AdvanceOnProof || st == nil || st.order.planCalled() {
		return
	}
	set := m.set(ctx)
	i := slices.IndexFunc(set.tools, func(t *tools.PlanTool) bool { return t.Spec.Name == tools.ToolUpdatePlanStep })
	if i < 0 {
		return
	}
	for _, h := range before {
		if !h.proves {
			continue
		}
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
		st.reminders.tell(m.advanceLine(ctx, set.texts, h, tool, out))
	}
}

// advanceLine is what the model is told of the move out made for step h on tool's pass:
// the step held now with its text and the progress, or why h stays the caller's.
func (m *Middleware[M, S]) advanceLine(ctx context.Context, texts map[string]string, h heldStep, tool, out string) string {
	var r struct {
		Step   int              `json:"step"`
		Done   string           `json:"done"`
		Next   string           `json:"next"`
		Review string           `json:"review"`
		Budget string           `json:"budget"`
		Error  *tools.ErrorBody `json:"error"`
	}
	_ = tools.ResultAPI.UnmarshalFromString(out, &r)
	fill := func(key string, more ...string) string {
		pairs := append([]string{"{name}", tools.InlineName(h.plan), "{step}", strconv.Itoa(h.number), "{value}", tool, "{done}", r.Done}, more...)
		return strings.NewReplacer(pairs...).Replace(texts[key])
	}
	var line string
	switch {
	case r.Error != nil:
		return fill("reminder.advance_refused", "{reason}", r.Error.Message)
	case r.Next != "":
		line = fill("reminder.advanced_none")
	default:
		text := ""
		if p, err := m.Store.Get(ctx, h.plan); err == nil {
			if steps := document.StepsOf(p.Content); r.Step >= 1 && r.Step <= len(steps) {
				text, _ = document.SplitHolder(steps[r.Step-1].Text)
			}
		}
		line = fill("reminder.advanced", "{next}", strconv.Itoa(r.Step), "{text}", tools.QuoteInline(text, 80))
	}
	for _, more := range []string{r.Review, r.Budget} {
		if more != "" {
			line += " " + more + "."
		}
	}
	return line
}

// heldProofTools are the "(proof …)" tools of the steps the calling agent holds.
func (m *Middleware[M, S]) heldProofTools(ctx context.Context) map[string]bool {
	holder := document.HolderName(m.agentIn(ctx))
	if holder == "" {
		return nil
	}
	plans, _, err := m.Store.Summaries(ctx)
	if err != nil {
		return nil
	}
	proofs := map[string]bool{}
	for _, s := range m.liveHolds(ctx, plans, holder) {
		for _, t := range s.Proof {
			proofs[t] = true
		}
	}
	return proofs
}

// orderedAsPlan is what a message's calls are ordered by: plan tools, and, where proven
// steps advance, the proof tools of the steps the caller holds when the message lists no
// plan tool call.
func (m *Middleware[M, S]) orderedAsPlan(ctx context.Context, calls []schema.ToolCall) (isPlan func(string) bool, planCalled bool) {
	planCalled = slices.ContainsFunc(calls, func(c schema.ToolCall) bool { return m.isPlanTool(c.Function.Name) })
	if !m.cfg.AdvanceOnProof || planCalled || len(calls) < 2 {
		return m.isPlanTool, planCalled
	}
	proofs := m.heldProofTools(ctx)
	return func(name string) bool { return m.isPlanTool(name) || proofs[name] }, false
}
