package document

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/einoplan/plan/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allStates = []StepState{StepPending, StepInProgress, StepCompleted, StepFailed, StepSkipped}

// Every step state parses from its own name only; anything else is invalid_argument listing
// the valid states.
func TestParseStepState(t *testing.T) {
	for _, st := range allStates {
		got, err := ParseStepState(string(st))
		require.NoError(t, err)
		assert.Equal(t, st, got)
	}
	for _, bad := range []string{"", "done", "Pending", "in-progress", " pending", "completed "} {
		_, err := ParseStepState(bad)
		require.Error(t, err, bad)
		assert.Equal(t, CodeInvalidArgument, CodeOf(err))
		assert.Contains(t, err.Error(), "pending, in_progress, completed, failed, skipped")
	}
}

// ParseSteps finds every checklist item of any list style, nesting and line ending, numbered
// in order, and nothing that only looks like one.
func TestParseSteps(t *testing.T) {
	// S is the fields every step has, so the table stays valid as Step grows.
	type S struct {
		Number      int
		State       StepState
		Text        string
		Depth, Line int
		Holder      string
		After       []int
		Uses        []string
	}
	tests := []struct {
		name string
		body string
		want []S
	}{
		{"empty", "", nil},
		{"no checklist", "# Plan\n\nSome text.\n- a bullet\n1. a numbered item\n", nil},
		{"list styles", "- [ ] dash\n* [x] star\n+ [~] plus\n1. [!] dot\n2) [-] paren\n- [X] upper\n", []S{
			{1, StepPending, "dash", 0, 0, "", nil, nil},
			{2, StepCompleted, "star", 0, 1, "", nil, nil},
			{3, StepInProgress, "plus", 0, 2, "", nil, nil},
			{4, StepFailed, "dot", 0, 3, "", nil, nil},
			{5, StepSkipped, "paren", 0, 4, "", nil, nil},
			{6, StepCompleted, "upper", 0, 5, "", nil, nil},
		}},
		{"long ordinal", "123456789. [ ] nine digits\n1234567890. [ ] ten digits\n", []S{
			{1, StepPending, "nine digits", 0, 0, "", nil, nil},
		}},
		{"several spaces after list marker", "-   [ ] wide\n1.\t[x] tab\n", []S{
			{1, StepPending, "wide", 0, 0, "", nil, nil},
			{2, StepCompleted, "tab", 0, 1, "", nil, nil},
		}},
		{"mixed with prose", "# Release\n\nGoal: ship.\n\n## Steps\n- [x] build\n- [ ] test\n\nNotes follow.\n", []S{
			{1, StepCompleted, "build", 0, 5, "", nil, nil},
			{2, StepPending, "test", 0, 6, "", nil, nil},
		}},
		{"nesting", "- [ ] a\n  - [ ] a1\n    - [x] a1x\n  - [ ] a2\n- [ ] b\n  - [ ] b1\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "a1", 1, 1, "", nil, nil},
			{3, StepCompleted, "a1x", 2, 2, "", nil, nil},
			{4, StepPending, "a2", 1, 3, "", nil, nil},
			{5, StepPending, "b", 0, 4, "", nil, nil},
			{6, StepPending, "b1", 1, 5, "", nil, nil},
		}},
		// Indented 4 columns past the item's content, a line continues the paragraph.
		{"too deep is paragraph text", "- [ ] b\n      - [ ] b deep\n", []S{
			{1, StepPending, "b", 0, 0, "", nil, nil},
		}},
		{"nesting with tabs", "- [ ] a\n\t- [ ] a1\n\t\t- [ ] a11\n    - [ ] a2\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "a1", 1, 1, "", nil, nil},
			{3, StepPending, "a11", 2, 2, "", nil, nil},
			{4, StepPending, "a2", 1, 3, "", nil, nil},
		}},
		{"indented first step is top level", "   - [ ] a\n   - [ ] b\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "b", 0, 1, "", nil, nil},
		}},
		{"plain bullet parent does not count", "- Phase 1\n  - [ ] a\n- Phase 2\n  - [ ] b\n    - [ ] b1\n", []S{
			{1, StepPending, "a", 0, 1, "", nil, nil},
			{2, StepPending, "b", 0, 3, "", nil, nil},
			{3, StepPending, "b1", 1, 4, "", nil, nil},
		}},
		{"heading ends nesting", "- [ ] a\n## Next\n  - [ ] b\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "b", 0, 2, "", nil, nil},
		}},
		{"continuation and blank lines keep nesting", "- [ ] a\n  more about a\n\n  - [ ] a1\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "a1", 1, 3, "", nil, nil},
		}},
		{"backtick fence", "- [ ] a\n```\n- [ ] not a step\n```\n- [ ] b\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "b", 0, 4, "", nil, nil},
		}},
		{"tilde fence with info", "~~~markdown\n- [x] example\n~~~\n- [ ] real\n", []S{
			{1, StepPending, "real", 0, 3, "", nil, nil},
		}},
		{"fence closes only on a long enough run of the same char", "````\n```\n~~~~\n- [ ] in\n````  \n- [ ] out\n", []S{
			{1, StepPending, "out", 0, 5, "", nil, nil},
		}},
		{"closing fence has no info string", "```\n``` go\n- [ ] in\n```\n- [ ] out\n", []S{
			{1, StepPending, "out", 0, 4, "", nil, nil},
		}},
		{"indented fence inside a list", "- [ ] a\n  ```sh\n  - [ ] in\n  ```\n  - [ ] a1\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
			{2, StepPending, "a1", 1, 4, "", nil, nil},
		}},
		{"unclosed fence runs to the end", "- [ ] a\n```\n- [ ] in\n", []S{
			{1, StepPending, "a", 0, 0, "", nil, nil},
		}},
		{"inline code is not a fence", "```inline``` code\n- [ ] a\n", []S{
			{1, StepPending, "a", 0, 1, "", nil, nil},
		}},
		{"CRLF", "# P\r\n- [ ] a\r\n  - [x] b\r\n- [ ]\r\n- [~] c", []S{
			{1, StepPending, "a", 0, 1, "", nil, nil},
			{2, StepCompleted, "b", 1, 2, "", nil, nil},
			{3, StepPending, "", 0, 3, "", nil, nil},
			{4, StepInProgress, "c", 0, 4, "", nil, nil},
		}},
		{"unicode", "- [ ] déployer 🚀 — 準備\n- [x] ☑ ok\n", []S{
			{1, StepPending, "déployer 🚀 — 準備", 0, 0, "", nil, nil},
			{2, StepCompleted, "☑ ok", 0, 1, "", nil, nil},
		}},
		{"markers later in the line", "- [ ] check [x] and [!] later\n- item [x] not a step\n", []S{
			{1, StepPending, "check [x] and [!] later", 0, 0, "", nil, nil},
		}},
		{"items without text", "- [ ]\n- [x] \n* [-]", []S{
			{1, StepPending, "", 0, 0, "", nil, nil},
			{2, StepCompleted, "", 0, 1, "", nil, nil},
			{3, StepSkipped, "", 0, 2, "", nil, nil},
		}},
		{"text keeps its spacing", "- [ ]  two  spaces  \n", []S{
			{1, StepPending, " two  spaces  ", 0, 0, "", nil, nil},
		}},
		{"not checklist items", "- [ ]text\n-[ ] a\n- [?] a\n- [] a\n- [ ]\ttab\n[ ] a\n1 [ ] a\n-- [ ] a\n- [xx] a\n", nil},
		{"no trailing newline", "- [ ] only", []S{{1, StepPending, "only", 0, 0, "", nil, nil}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []S
			for _, st := range ParseSteps(tt.body) {
				got = append(got, S{st.Number, st.State, st.Text, st.Depth, st.Line, st.Holder, st.After, st.Uses})
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestParseStepsBlockStructure holds the hostile documents on which a line-based reading
// went wrong; the step counts are CommonMark's (the commonmark module checks them against
// goldmark).
func TestParseStepsBlockStructure(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		texts []string
	}{
		{"a fence indented 4 spaces is indented code", "Intro\n\n    ```\n- [ ] a\n- [ ] b\n", []string{"a", "b"}},
		{"an unclosed fence ends with its list item", "- [ ] a\n  ```\n  - [ ] hidden\n- [ ] b\n- [ ] c\n", []string{"a", "b", "c"}},
		{"an indented code block", "Intro\n\n    - [ ] x\n- [ ] y\n", []string{"y"}},
		{"an HTML comment", "<!--\n- [ ] x\n-->\n- [ ] y\n", []string{"y"}},
		{"a comment inside an item", "- [ ] a\n  <!-- - [ ] x\n  - [ ] y -->\n", []string{"a"}},
		{"an HTML block ends at a blank line", "<div>\n- [ ] x\n\n- [ ] y\n", []string{"y"}},
		{"task items in a blockquote", "> - [ ] a\n> - [x] b\n>\n> > 1. [~] c\n", []string{"a", "b", "c"}},
		{"a blockquote in an item", "- [ ] a\n  > - [ ] b\n", []string{"a", "b"}},
		{"a fence in a blockquote", "> ```\n> - [ ] x\n- [ ] y\n", []string{"y"}},
		{"fences at indents 0 to 3", "```\n- [ ] x\n```\n ~~~\n- [ ] x\n~~~\n   ```\n- [ ] x\n   ```\n- [ ] y\n", []string{"y"}},
		{"lazy continuation", "- [ ] a\ncontinued\n- [ ] b\n", []string{"a", "b"}},
		{"a marker on a lazy line is text", "> - [ ] a\n[ ] not an item\n", []string{"a"}},
		{"a setext underline makes a heading", "- [ ] a\n  ---\n- [ ] b\n", []string{"b"}},
		{"the marker must open the item's first paragraph", "- # [ ] heading\n- > [ ] quote\n-\n  [ ] next line\n", []string{"next line"}},
		{"an ordered item not numbered 1 does not interrupt a paragraph", "Text\n2. [ ] no\n\n2. [ ] yes\n", []string{"yes"}},
		{"five spaces after the list marker start indented code", "-     [ ] code\n- [ ] item\n", []string{"item"}},
		{"tabs are tab stops of 4", "-\t[ ] a\n\t- [ ] b\n", []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var texts []string
			for _, s := range ParseSteps(tt.body) {
				texts = append(texts, s.Text)
			}
			assert.Equal(t, tt.texts, texts)
		})
	}
}

// A plan's default title is the text of its first Markdown heading of any level, never a line
// inside code or an HTML comment.
func TestTitleFromContent(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"ATX", "# Release 2.0 #\n- [ ] a\n", "Release 2.0"},
		{"first heading of any level", "Intro\n\n## Goal\n# Later\n", "Goal"},
		{"a heading inside a fence is code", "```sh\n# install the deps first\n```\n# Deploy\n", "Deploy"},
		{"a heading inside indented code", "Intro\n\n    # not this\n\nSecond\n===\n", "Second"},
		{"a heading inside an HTML comment", "<!--\n# not this\n-->\n# This\n", "This"},
		{"setext lines are joined", "Ship\nversion 2\n---\n", "Ship version 2"},
		{"link reference definitions are not heading text", "[a]: /url\nTitle\n===\n", "Title"},
		{"a quoted heading", "> # Quoted\n", "Quoted"},
		{"no heading", "#hashtag\n- [ ] a\n", ""},
		{"CRLF", "# T\r\n", "T"},
		{"long titles are cut", "# " + strings.Repeat("é", MaxHeaderField) + "\n", strings.Repeat("é", MaxHeaderField/2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, TitleFromContent(tt.body))
		})
	}
}

// Steps and progress encode to compact JSON: zero counts are left out, total and percent
// always present.
func TestStepJSON(t *testing.T) {
	b, err := json.Marshal(Step{Number: 2, State: StepInProgress, Text: "t", Depth: 1, Line: 9})
	require.NoError(t, err)
	assert.JSONEq(t, `{"number":2,"status":"in_progress","text":"t"}`, string(b))
	b, err = json.Marshal(api.Progress{Total: 4, Pending: 1, InProgress: 1, Completed: 1, Skipped: 1, Percent: 50})
	require.NoError(t, err)
	// Zero counts are omitted to keep tool results short; total and percent are always present.
	assert.JSONEq(t, `{"total":4,"pending":1,"in_progress":1,"completed":1,"skipped":1,"percent":50}`, string(b))
}

// renderSteps writes each step as a dash checklist item indented by its depth, an unknown
// state as pending.
func TestRenderSteps(t *testing.T) {
	steps := []Step{
		{State: StepPending, Text: "a"},
		{State: StepInProgress, Text: "a1", Depth: 1},
		{State: StepCompleted, Text: "", Depth: 2},
		{State: StepFailed, Text: "b"},
		{State: StepSkipped, Text: "c"},
		{State: "bogus", Text: "d", Depth: -3},
	}
	assert.Equal(t, "- [ ] a\n  - [~] a1\n    - [x]\n- [!] b\n- [-] c\n- [ ] d\n", RenderSteps(steps))
	assert.Equal(t, "", RenderSteps(nil))
}

// Rendered steps parse back to the same steps.
func TestRenderStepsRoundTrip(t *testing.T) {
	bodies := []string{
		"",
		"- [ ] a\n  - [x] b\n    * [~] c\n1. [!] d\n   2) [-] e\n",
		"# T\n\n- Phase\n\t- [ ] a\n\t\t- [X] b\n```\n- [ ] no\n```\n- [ ]  spaced \n- [ ]\n",
		"- [ ] crlf\r\n  - [ ] \r\r\n- [x] x\r\r",
		"- [ ] a\n            - [ ] jump\n  - [ ] back\n",
		"- [ ] ünïcödé ✓ [x]\n",
	}
	for _, body := range bodies {
		steps := ParseSteps(body)
		got := ParseSteps(RenderSteps(steps))
		want := make([]Step, len(steps))
		for i, s := range steps {
			s.Line = i
			want[i] = s
		}
		if len(want) == 0 {
			want = nil
		}
		assert.Equal(t, want, got, "body %q", body)
	}
}

// benchPlan is a 60-step plan with headings, prose, nesting and a code fence.
func benchPlan() string {
	var b strings.Builder
	b.WriteString("# Release plan\n\nShip version 2 without downtime.\n\n```sh\nmake release\n```\n")
	n := 0
	for phase := 1; n < 60; phase++ {
		fmt.Fprintf(&b, "\n## Phase %d\n\n", phase)
		for i := 0; i < 6 && n < 60; i++ {
			n++
			marker := " "
			if n < 20 {
				marker = "x"
			}
			indent := ""
			if i%3 != 0 {
				indent = "  "
			}
			fmt.Fprintf(&b, "%s- [%s] Step %d: update the service configuration and verify the rollout\n", indent, marker, n)
		}
	}
	return b.String()
}

func BenchmarkParseSteps(b *testing.B) { benchParse(b, ParseSteps) }

// benchParse times parse of benchPlan, a plan of 60 steps.
func benchParse(b *testing.B, parse func(string) []Step) {
	body := benchPlan()
	if got := len(parse(body)); got != 60 {
		b.Fatalf("plan has %d steps", got)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		parse(body)
	}
}
