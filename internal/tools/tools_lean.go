package tools

// A lean worker (Config.LeanWorker) only takes and finishes steps: its model sees
// update_plan_step and read_plan, described in as few words as guide a model, and a short
// instruction; every other plan tool stays registered but hidden, and a call to one is
// tool_not_available. Every guard stays: holds, prerequisites,
// the approval requirement and the gate of Config.GatedTools, evidence, verification and
// budgets. These texts replace the full ones of the same keys.

// LeanTools are the tools a lean worker's model sees.
var LeanTools = map[string]bool{ToolUpdatePlanStep: true, ToolReadPlan: true}

// WithLean is texts with the lean worker's in place of the full ones.
func WithLean(texts, lean map[string]string) map[string]string {
	out := make(map[string]string, len(texts))
	for k, v := range texts {
		out[k] = v
	}
	for k, v := range lean {
		out[k] = v
	}
	return out
}

// hidesParam reports whether a lean worker's model is not shown parameter p of tool: it
// names no revisions and adds no notes, and sees evidence only where a completion needs it
// (Config.RequireEvidence) or a verifier reads it (Config.Verify). A call that passes one
// anyway is read as always.
func (env *ToolEnv) hidesParam(tool string, p param) bool {
	if !env.Lean || tool != ToolUpdatePlanStep {
		return false
	}
	return p == pNote || p == pRevision || p == pEvidence && !env.RequireEvidence && env.Verify == nil
}
