package plan

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The English and Chinese text tables have the same keys, each empty in both or neither, and
// every tool and parameter has an entry.
func TestTextTablesHaveTheSameKeys(t *testing.T) {
	for k := range textsEN {
		_, ok := textsZH[k]
		assert.True(t, ok, "tools_zh.go lacks %q", k)
	}
	for k := range textsZH {
		_, ok := textsEN[k]
		assert.True(t, ok, "tools_en.go lacks %q", k)
	}
	for k, v := range textsEN {
		assert.Equal(t, v == "", textsZH[k] == "", "%q is empty in one language only", k)
	}
	// Every tool and parameter has an entry, so nothing falls back to another language.
	for _, spec := range tools.ToolSpecs() {
		_, ok := textsEN[spec.Name]
		assert.True(t, ok, spec.Name)
		for _, p := range spec.Params {
			_, ok := textsEN[spec.Name+"."+p.Name]
			assert.True(t, ok, spec.Name+"."+p.Name)
		}
	}
}

func hasHan(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// In Chinese mode the instruction, the tool descriptions and plan_template's guide are in
// Chinese.
func TestChineseTexts(t *testing.T) {
	ctx := context.Background()
	mw, err := New(ctx, &Config{Backend: NewMemoryBackend(), Workspace: NewMemoryBackend(), Language: adk.LanguageChinese})
	require.NoError(t, err)
	ctx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	require.NoError(t, err)
	assert.True(t, hasHan(rc.Instruction), rc.Instruction)
	assert.Contains(t, rc.Instruction, "plan_template", "the orchestrator is told about the template")
	var tmpl tool.InvokableTool
	for _, bt := range rc.Tools {
		info, err := bt.Info(ctx)
		require.NoError(t, err)
		assert.True(t, hasHan(info.Desc), "%s: %s", info.Name, info.Desc)
		if info.Name == ToolPlanTemplate {
			tmpl = bt.(tool.InvokableTool)
		}
	}
	require.NotNil(t, tmpl)
	out, err := tmpl.InvokableRun(ctx, `{"goal":"发布 2.0"}`)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "# 如何编写计划"), out)
	assert.Contains(t, out, "发布 2.0")
	assert.Contains(t, out, "（无）")

	_, err = New(ctx, &Config{Backend: NewMemoryBackend(), Language: adk.Language(9)})
	assert.Error(t, err)
}

// placeholderRE matches a placeholder that Error.render or the template fill in.
var placeholderRE = regexp.MustCompile(`\{[a-z_]+\}`)

func placeholders(text string) []string {
	found := placeholderRE.FindAllString(text, -1)
	slices.Sort(found)
	return found
}

// TestErrorTextsHaveTheSamePlaceholders: every "err.*" text states the same facts in both
// languages, and every reason an Error can carry has a text in both, so no message falls
// back to English.
func TestErrorTextsHaveTheSamePlaceholders(t *testing.T) {
	n := 0
	for key, en := range textsEN {
		if !strings.HasPrefix(key, "err.") {
			continue
		}
		n++
		zh, ok := textsZH[key]
		if assert.True(t, ok, key) {
			assert.Equal(t, placeholders(en), placeholders(zh), key)
		}
	}
	assert.Greater(t, n, 40)
	reasons := []string{document.ReasonListLimit}
	for r := range document.FactTexts {
		reasons = append(reasons, r)
	}
	for _, r := range reasons {
		_, en := textsEN["err."+string(r)]
		_, zh := textsZH["err."+string(r)]
		assert.True(t, en && zh, "reason %s has no err.%s text in both languages", r, r)
	}
	// The check sees a placeholder that only one language has.
	assert.NotEqual(t, placeholders("{name} at {current}"), placeholders("计划 {name}"))
}
