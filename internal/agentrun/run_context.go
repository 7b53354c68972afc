package agentrun

import (
	"context"

	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan/internal/tools"
)

// What a middleware reads of the run of a call's context: the agent it acts as, its role,
// its language and its tool set.

// agentIn is the agent that a call in the run of ctx acts as: the sub-agent a nested run was
// started as, else Config.AgentName.
func (m *Middleware[M, S]) agentIn(ctx context.Context) string {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.agent
	}
	return m.actor
}

// roleIn is this middleware's role in the run of ctx. An explicit Config.Role is the role
// everywhere; RoleAuto is decided per run (and stays RoleAuto outside a run).
func (m *Middleware[M, S]) roleIn(ctx context.Context) tools.Role {
	if m.cfg.Role != tools.RoleAuto {
		return m.cfg.Role
	}
	if st, ok := ctx.Value(m.stateKey).(*runState); ok {
		return st.role
	}
	return tools.RoleAuto
}

// language is the language of a run that starts now: Config.Language when it is Chinese,
// else the one adk.SetLanguage chose (see EinoLanguage).
func (m *Middleware[M, S]) language() adk.Language {
	if m.cfg.Language == adk.LanguageChinese {
		return adk.LanguageChinese
	}
	return EinoLanguage()
}

// set is the tool set of the run of ctx; outside a run, the one of the language now.
func (m *Middleware[M, S]) set(ctx context.Context) *toolSet {
	if st, ok := ctx.Value(m.stateKey).(*runState); ok && st.set != nil {
		return st.set
	}
	return m.langs[m.language()]
}
