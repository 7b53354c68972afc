package plan

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/tools"
)

// taxOf is what a middleware made with cfg adds to every model call of an agent working on
// one plan, in lang: tool definitions, instruction and digest.
func taxOf(t *testing.T, cfg Config, lang adk.Language) (tools, instruction int) {
	t.Helper()
	ctx := context.Background()
	store, err := NewStore(&StoreConfig{Backend: NewMemoryBackend()})
	require.NoError(t, err)
	body := "# Release 2.0\n- [x] Write the changelog\n- [ ] Run the checks\n- [ ] Tag and publish (after 2)\n"
	_, err = store.Put(ctx, Update{Name: "release", Content: &body})
	require.NoError(t, err)
	cfg.Store, cfg.Language = store, lang
	mw, err := New(ctx, &cfg)
	require.NoError(t, err)
	tools, instruction, err = planTax(ctx, mw)
	require.NoError(t, err)
	return tools, instruction
}

// A lean worker's plan tax is at most 1,500 bytes per model call, with every guard on
// (approval, gated tools, evidence, verification) and the digest of its plan, in English and
// Chinese, against more than twice that for the full tool set. The bytes are deterministic.
func TestALeanWorkersPlanTaxFitsInFifteenHundredBytes(t *testing.T) {
	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		guards := Config{AgentName: "worker-1", Role: RoleSubAgent, GatedTools: []string{"shell"}, RequireEvidence: true,
			Verify: func(context.Context, Completion) error { return nil }}
		lean := guards
		lean.LeanWorker = true
		leanTools, leanIns := taxOf(t, lean, lang)
		fullTools, fullIns := taxOf(t, guards, lang)
		t.Logf("language %v: lean %d (tools %d, instruction and digest %d); full %d (tools %d, instruction and digest %d)",
			lang, leanTools+leanIns, leanTools, leanIns, fullTools+fullIns, fullTools, fullIns)
		orchTools, orchIns := taxOf(t, Config{AgentName: "lead", Role: RoleOrchestrator, RequireApproval: true}, lang)
		t.Logf("language %v: orchestrator %d (tools %d, instruction and digest %d)", lang, orchTools+orchIns, orchTools, orchIns)
		assert.LessOrEqual(t, leanTools+leanIns, 1500)
		assert.Greater(t, fullTools+fullIns, 2*(leanTools+leanIns))
	}
}

// The plan tax is what the middleware adds to every model call of its agent: the plan tools'
// definitions, as a provider receives them (the OpenAI function JSON, compact), and the text
// it adds to the instruction (the instruction proper and the digest). Reminders add to a
// call only after others changed the plans, at most once every Config.ReminderEvery calls.

// functionBytes is the size of a tool's definition as a model call carries it.
func functionBytes(info *schema.ToolInfo) (int, error) {
	if info == nil {
		return 0, nil
	}
	fn := map[string]any{"name": info.Name, "description": info.Desc}
	if info.ParamsOneOf != nil {
		js, err := info.ParamsOneOf.ToJSONSchema()
		if err != nil {
			return 0, err
		}
		fn["parameters"] = js
	}
	def, err := sonic.ConfigStd.MarshalToString(map[string]any{"type": "function", "function": fn})
	return len(def), err
}

// planTax runs mw's BeforeAgent for an agent with no instruction of its own and no tools but a shell, and
// its rewrite of a model call's state, and returns the bytes it adds to every model call: the
// definitions of the tools the model sees and the instruction (with the digest).
func planTax(ctx context.Context, mw adk.ChatModelAgentMiddleware) (tools, instruction int, err error) {
	ctx, rc, err := mw.BeforeAgent(ctx, &adk.ChatModelAgentContext{})
	if err != nil {
		return 0, 0, err
	}
	// The agent's own shell tool, which GatedTools may name, is not the plan's tax.
	state := &adk.ChatModelAgentState{ToolInfos: []*schema.ToolInfo{{Name: "shell", Desc: "runs a command"}}}
	for _, t := range rc.Tools {
		info, err := t.Info(ctx)
		if err != nil {
			return 0, 0, err
		}
		state.ToolInfos = append(state.ToolInfos, info)
	}
	if _, state, err = mw.BeforeModelRewriteState(ctx, state, &adk.ModelContext{}); err != nil {
		return 0, 0, err
	}
	for _, info := range state.ToolInfos[1:] {
		n, err := functionBytes(info)
		if err != nil {
			return 0, 0, err
		}
		tools += n
	}
	return tools, len(rc.Instruction), nil
}

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
	reasons := append([]string{document.ReasonListLimit}, factReasons(t)...)
	for _, r := range reasons {
		_, en := textsEN["err."+string(r)]
		_, zh := textsZH["err."+string(r)]
		assert.True(t, en && zh, "reason %s has no err.%s text in both languages", r, r)
	}
	// The check sees a placeholder that only one language has.
	assert.NotEqual(t, placeholders("{name} at {current}"), placeholders("计划 {name}"))
}

// factReasons are the reasons internal/document states a fact text for: the keys of its
// factTexts, read from its source.
func factReasons(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir("internal/document")
	require.NoError(t, err)
	values := map[string]string{} // the package's string constants
	var keys []ast.Expr
	for _, entry := range entries {
		if !strings.HasSuffix(entry.Name(), ".go") || strings.HasSuffix(entry.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join("internal/document", entry.Name()), nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i >= len(n.Values) {
						break
					}
					if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						values[name.Name], _ = strconv.Unquote(lit.Value)
					}
					if lit, ok := n.Values[i].(*ast.CompositeLit); ok && name.Name == "factTexts" {
						for _, el := range lit.Elts {
							keys = append(keys, el.(*ast.KeyValueExpr).Key)
						}
					}
				}
			}
			return true
		})
	}
	var reasons []string
	for _, k := range keys {
		id, ok := k.(*ast.Ident)
		require.True(t, ok && values[id.Name] != "", "a key of factTexts that is no string constant: %v", k)
		reasons = append(reasons, values[id.Name])
	}
	require.Greater(t, len(reasons), 40)
	return reasons
}
