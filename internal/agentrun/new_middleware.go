package agentrun

import (
	"maps"
	"strings"

	"github.com/cloudwego/eino/adk"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/tools"
)

// Making a middleware: its gate, file guard, tool names, and the tools and texts of each
// language.

// NewMiddleware returns the middleware of s on store.
func NewMiddleware[M adk.MessageType, S any](s Settings[S], store *engine.Store, texts map[adk.Language]Texts) (*Middleware[M, S], error) {
	m := &Middleware[M, S]{TypedBaseChatModelAgentMiddleware: &adk.TypedBaseChatModelAgentMiddleware[M]{},
		cfg: s, texts: texts, Store: store, running: &agentNames{}}
	var err error
	if m.gated, err = newGate(s.GatedTools, s.UngatedTools); err != nil {
		return nil, err
	}
	m.files = newFileGuard(m.Store, s.Workspace)
	if m.gated != nil {
		m.cfg.RequireApproval = true
	}
	if err := tools.CheckPlanSet(s.PlanSet); err != nil {
		return nil, err
	}
	m.actor = agentActor(s.AgentName)
	if m.cfg.Digest.MaxPlans <= 0 {
		m.cfg.Digest.MaxPlans = 12
	}
	if m.cfg.Digest.MaxBytes <= 0 {
		m.cfg.Digest.MaxBytes = 1500
	}
	if m.names, err = tools.PlanToolNames(s.ToolNames, s.ToolPrefix); err != nil {
		return nil, err
	}
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		if m.langs[lang], err = m.toolSet(lang); err != nil {
			return nil, err
		}
	}
	m.templateName = m.names[tools.ToolPlanTemplate]
	m.approvalName = m.names[tools.ToolRequestPlanApproval]
	m.stateKey = &runState{}
	return m, nil
}

// toolSet builds the texts and tools of one language.
func (m *Middleware[M, S]) toolSet(lang adk.Language) (*toolSet, error) {
	base := m.texts[lang].Full
	if m.cfg.LeanWorker {
		base = tools.WithLean(base, m.texts[lang].Lean)
	}
	texts, err := tools.RenameTools(base, m.names)
	if err != nil {
		return nil, err
	}
	template := m.cfg.Template
	if strings.TrimSpace(template) == "" {
		template = texts["template"]
	}
	if m.gated != nil {
		// Plan mode: the plan must name what each step may use, so the guide and the
		// not_approved advice teach "(uses …)".
		template = strings.TrimRight(template, "\n") + "\n\n" + texts["template.uses"] + "\n"
		texts = maps.Clone(texts)
		texts["err.not_approved"] = texts["err.not_approved.gated"]
	}
	if m.advances() {
		// A proven step completes itself: the digest and the take teach that instead.
		texts = maps.Clone(texts)
		texts["digest.proof"], texts["step.proof"] = texts["digest.proof_advance"], texts["step.proof_advance"]
		texts["err.unproven"] = texts["err.unproven_advance"]
	}
	env := &tools.ToolEnv{Store: m.Store, Workspace: m.cfg.Workspace, Texts: texts, Template: template,
		Agent: m.agentIn, Role: m.roleIn, Sink: m.changeSink(), Listens: m.listening, RequireApproval: m.cfg.RequireApproval}
	env.RequireEvidence, env.Verify, env.VerifyTimeout = m.cfg.RequireEvidence, m.cfg.Verify, m.cfg.VerifyTimeout
	env.Lean = m.cfg.LeanWorker
	env.Costs, env.Report = m.costsIn, m.reportCost
	if m.cfg.Workspace != nil {
		env.GuardWorkspace(m.cfg.Workspace)
	}
	set := &toolSet{texts: texts, env: env}
	for _, spec := range tools.ToolSpecs() {
		if tools.FileTools[spec.Name] && m.cfg.Workspace == nil || spec.Name == tools.ToolRequestPlanApproval && !m.cfg.RequireApproval {
			continue
		}
		set.tools = append(set.tools, tools.NewPlanTool(spec, env, m.names[spec.Name]))
	}
	return set, nil
}
