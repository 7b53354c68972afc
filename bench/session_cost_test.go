package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// The cost per step tables run every setup on the same steps, each completing all of them,
// the lean worker pays less per step than the full tool set and than a lean worker that must
// give evidence, a worker that finishes a step
// and takes the next in the message of its next work call makes two model calls more than
// one with no plan tools (one more where the host advances proven steps), and a provider's cache serves
// part of every session's input, never all of it.
func TestCostPerStepComparesEverySetup(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	tables, byWork, err := costPerStepTables(context.Background(), c, 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, tbl := range tables {
		if err := tbl.check(); err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + costRowsText(tbl))
	}
	rows := byWork[3]
	if full, lean := rows["plan"], rows["plan, lean worker"]; lean.in >= full.in || lean.perCallTax >= full.perCallTax {
		t.Errorf("lean %+v, full %+v", lean, full)
	}
	if lean, proved := rows["plan, lean worker"], rows[costLeanEvidence]; lean.in >= proved.in || lean.perCallTax >= proved.perCallTax {
		t.Errorf("a lean worker not asked for evidence is taught none: lean %+v, with evidence %+v", lean, proved)
	}
	for _, kind := range []string{"plan", "plan, lean worker", costLeanEvidence} {
		if ride, bare := rows[kind], rows["no plan tools"]; ride.calls != bare.calls+2 {
			t.Errorf("%s: %d model calls, no plan tools %d: a step transition rides along with a work call", kind, ride.calls, bare.calls)
		}
	}
	for _, kind := range []string{costAdvance, costLeanAdvance} {
		if proven, bare := rows[kind], rows["no plan tools"]; proven.calls != bare.calls+1 || proven.planCalls != 1 {
			t.Errorf("%s: %d model calls and %d plan calls, no plan tools %d: the host completes a proven step and takes the next", kind, proven.calls, proven.planCalls, bare.calls)
		}
	}
	if proven, lean := rows[costLeanAdvance], rows["plan, lean worker"]; proven.billedCached() >= lean.billedCached() {
		t.Errorf("a lean worker whose steps advance on their proof pays %.0f, one that moves them %.0f", proven.billedCached(), lean.billedCached())
	}
	if bare := rows["no plan tools"]; bare.planCalls != 0 || bare.toolCalls != 18 || bare.cached == 0 || bare.cached >= bare.in {
		t.Errorf("no plan tools %+v", bare)
	}
}

// A successful step move answers in at most 40 o200k tokens, on a 20-step plan late in its
// life (two-digit revisions and counts), the held step's budget included: the revision, the
// step held now, the progress, and nothing the digest already carries (no step text). So do
// a take without next and a plain completion.
func TestAStepMoveAnswersInFortyTokens(t *testing.T) {
	c, err := newCounter()
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		ctx := context.Background()
		store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend()})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("# Release\n")
		for i := 1; i <= 20; i++ {
			fmt.Fprintf(&b, "- [ ] Step number %d of the release, with a text of some length (budget 10k tokens)\n", i)
		}
		body := b.String()
		if _, err := store.Put(ctx, plan.Update{Name: "release", Content: &body}); err != nil {
			t.Fatal(err)
		}
		turns := []plantest.Turn{plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","status":"in_progress"}`)}
		for i := 1; i <= 12; i++ {
			turns = append(turns, plantest.CallTool(plan.ToolUpdatePlanStep, fmt.Sprintf(`{"name":"release","step":%d,"status":"completed","evidence":"ok","next":true}`, i)))
		}
		turns = append(turns, plantest.CallTool(plan.ToolUpdatePlanStep, `{"name":"release","step":13,"status":"completed"}`))
		m := plantest.NewScriptedModel(turns...)
		mw, err := plan.New(ctx, &plan.Config{Store: store, AgentName: "worker-1", Language: lang, LeanWorker: true})
		if err != nil {
			t.Fatal(err)
		}
		agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{Name: "worker", Description: "works", Instruction: "You work.",
			Model: m, Handlers: []adk.ChatModelAgentMiddleware{mw}, MaxIterations: 50})
		if err != nil {
			t.Fatal(err)
		}
		results := plantest.RunAgent(t, ctx, agent, "go")
		if len(results) != 14 {
			t.Fatalf("%d results: %v", len(results), results)
		}
		if last := results[12]; !strings.Contains(last, `"step":13`) || !strings.Contains(last, `"budget"`) {
			t.Fatalf("not a move that took step 13 with its budget in view: %s", last)
		}
		if done := results[13]; !strings.Contains(done, `"step":13`) || !strings.Contains(done, `"done":"13/20"`) {
			t.Fatalf("not the completion of step 13: %s", done)
		}
		for i, r := range results {
			n := c.o(r)
			if i == 0 || i >= 12 {
				t.Logf("language %v, move %d: %d o200k tokens: %s", lang, i+1, n, r)
			}
			if n > 40 || strings.Contains(r, "Step number") || strings.Contains(r, "worker-1") {
				t.Errorf("move %d answers in %d o200k tokens (at most 40), or repeats a step text or the caller's own hold: %s", i+1, n, r)
			}
		}
	}
}
