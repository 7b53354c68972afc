package agentrun

import (
	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan/internal/tools"
)

// HostTools is what a host that serves the plan tools outside an Eino run (the MCP server
// of cmd/planctl) offers in lang: the orchestrator's plan instruction, without a digest,
// which would be stale by the next call, and the very tools an agent of this middleware
// gets, which act as Config.AgentName.
func (m *Middleware[M, S]) HostTools(lang adk.Language) (instruction string, planTools []*tools.PlanTool) {
	if lang != adk.LanguageChinese {
		lang = adk.LanguageEnglish
	}
	set := m.langs[lang]
	return m.instruction(set.texts, tools.RoleOrchestrator), set.tools
}
