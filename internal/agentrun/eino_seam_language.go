package agentrun

import (
	"context"
	"sync"
	"unicode"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/adk/middlewares/patchtoolcalls"
	"github.com/cloudwego/eino/schema"
)

// This file is the one place that reads the language adk.SetLanguage chose (Config.Language
// left empty follows it, as Eino's own middlewares do). Eino v0.9.21 has no public getter,
// hence the probe below. Eino's next line exports adk.SelectPrompt, which picks one of an
// English and a Chinese text by that language: serving it, EinoLanguage becomes one call,
// adk.SelectPrompt with "en" and "zh" as the two texts, and languageProbe and this file's
// patchtoolcalls import go away; callers (Config.language, PatchedToolResultGenerator) do
// not change.

// EinoLanguage is the language adk.SetLanguage chose. Eino keeps it in a variable with no
// public getter, so it is read through a public Eino component whose texts follow it: the
// patchtoolcalls middleware, which answers a tool call that has no result with a default
// text in Eino's language. The probe is a pure function call (no model, no I/O); a text with
// Han characters is Chinese. TestEinoLanguageProbe pins it, so an Eino release that
// changes that text fails loudly.
func EinoLanguage() adk.Language {
	probe := languageProbe()
	if probe.mw == nil {
		return adk.LanguageEnglish
	}
	_, out, err := probe.mw.BeforeModelRewriteState(context.Background(), probe.state, &adk.ModelContext{})
	if err != nil || out == nil || len(out.Messages) < 2 || out.Messages[1] == nil {
		return adk.LanguageEnglish
	}
	for _, r := range out.Messages[1].Content {
		if unicode.Is(unicode.Han, r) {
			return adk.LanguageChinese
		}
	}
	return adk.LanguageEnglish
}

// languageProbe is the middleware and the state EinoLanguage runs, made once: the
// middleware picks its text when it runs, not when it is made, and copies the state
// rather than change it.
var languageProbe = sync.OnceValue(func() (p struct {
	mw    adk.ChatModelAgentMiddleware
	state *adk.ChatModelAgentState
}) {
	mw, err := patchtoolcalls.New(context.Background(), nil)
	if err != nil {
		return p
	}
	p.mw = mw
	p.state = &adk.ChatModelAgentState{Messages: []*schema.Message{
		schema.AssistantMessage("", []schema.ToolCall{{ID: "probe", Function: schema.FunctionCall{Name: "probe", Arguments: "{}"}}}),
	}}
	return p
})
