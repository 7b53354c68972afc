package plan_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// TestInvalidUTF8IsRefusedOnWrite: invalid UTF-8 in the body, in the body's first heading
// (the default title), in a note, a title, a status or an author is refused with
// invalid_argument naming the field, and nothing is written.
func TestInvalidUTF8IsRefusedOnWrite(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)
	body := "# Release\n- [ ] tag\n- [ ] ship\n"
	invoke(t, ctx, tools, plan.ToolWritePlan, `{"name":"release","content":`+quote(body)+`}`)

	for _, c := range []struct{ tool, args, field string }{
		{plan.ToolWritePlan, "{\"name\":\"fresh\",\"content\":\"body \xff\\n\"}", "content"},
		{plan.ToolWritePlan, "{\"name\":\"fresh\",\"content\":\"# T\xc3\\n- [ ] a\\n\"}", "content"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"title\":\"Re\xfflease\"}", "title"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"status\":\"\xe2\x82\"}", "status"},
		{plan.ToolWritePlan, "{\"name\":\"release\",\"content\":\"# T\\n\",\"author\":\"\xc0\x80\"}", "author"},
		{plan.ToolSetPlanStatus, "{\"name\":\"release\",\"status\":\"do\xffne\"}", "status"},
		{plan.ToolUpdatePlanStep, "{\"name\":\"release\",\"step\":1,\"status\":\"completed\",\"note\":\"PR \xff\"}", "note"},
	} {
		out := invoke(t, ctx, tools, c.tool, c.args)
		r := decode[errorOut](t, out)
		if assert.NotNil(t, r.Error, "%s %q: %s", c.tool, c.args, out) {
			assert.Equal(t, plan.CodeInvalidArgument, r.Error.Code, out)
			assert.True(t, strings.HasPrefix(r.Error.Message, c.field+" "), "the message names %s: %s", c.field, out)
		}
	}
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = store.Get(ctx, "fresh")
	assert.Equal(t, plan.CodeNotFound, plan.CodeOf(err))
	p, err := store.Get(ctx, "release")
	require.NoError(t, err)
	assert.EqualValues(t, 1, p.Revision)
	assert.Equal(t, body, p.Content)
	assert.Equal(t, "Release", p.Title)
	assert.Equal(t, "draft", p.Status)
}

// TestHandEditedInvalidUTF8IsRepaired: a plan file a person saved with invalid UTF-8 reads
// with U+FFFD and "repaired":true; every result about it is valid UTF-8 JSON; the next
// write stores the repair, and what it answers is what a later read returns.
func TestHandEditedInvalidUTF8IsRepaired(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			backend, _ := bc.new(t)
			testHandEditedInvalidUTF8(t, backend)
		})
	}
}

func testHandEditedInvalidUTF8(t *testing.T, backend plan.Backend) {
	ctx := context.Background()
	raw := "---\ntitle: \"Rel\xffease\"\nstatus: \"in\xc3 progress\"\nauthor: \"b\xe2\x82ob\"\nrevision: 2\n" +
		"updated_at: \"2026-11-21T22:00:00Z\"\n---\n# Rel\xffease\n- [x] tag \xff\n- [ ] sh\xc3ip\n- [ ] announce\n"
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/release.md", Content: raw}))
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	type readOut struct {
		Title       string `json:"title"`
		Status      string `json:"status"`
		Author      string `json:"author"`
		Revision    int64  `json:"revision"`
		Repaired    bool   `json:"repaired"`
		Content     string `json:"content"`
		CurrentStep *struct {
			Number int    `json:"number"`
			Text   string `json:"text"`
		} `json:"current_step"`
	}
	read := decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"release"}`))
	assert.True(t, read.Repaired)
	assert.Equal(t, "Rel\uFFFDease", read.Title)
	assert.Equal(t, "in\uFFFD progress", read.Status)
	assert.Equal(t, "b\uFFFDob", read.Author)
	assert.Equal(t, "# Rel\uFFFDease\n- [x] tag \uFFFD\n- [ ] sh\uFFFDip\n- [ ] announce\n", read.Content)
	require.NotNil(t, read.CurrentStep)
	assert.Equal(t, "sh\uFFFDip", read.CurrentStep.Text)

	list := decode[struct {
		Plans []struct {
			Name     string `json:"name"`
			Title    string `json:"title"`
			Repaired bool   `json:"repaired"`
		} `json:"plans"`
	}](t, invoke(t, ctx, tools, plan.ToolListPlans, `{}`))
	require.Len(t, list.Plans, 1)
	assert.Equal(t, "Rel\uFFFDease", list.Plans[0].Title)
	assert.True(t, list.Plans[0].Repaired)

	status := decode[readOut](t, invoke(t, ctx, tools, plan.ToolGetPlanStatus, `{"name":"release"}`))
	assert.Equal(t, "in\uFFFD progress", status.Status)
	next := decode[struct {
		NextStep *struct {
			Text string `json:"text"`
		} `json:"next_step"`
	}](t, invoke(t, ctx, tools, plan.ToolGetPlanStatus, `{"name":"release"}`))
	require.NotNil(t, next.NextStep)
	assert.Equal(t, "sh\uFFFDip", next.NextStep.Text)

	step := decode[struct {
		Revision int64 `json:"revision"`
		NextStep *struct {
			Number int    `json:"number"`
			Text   string `json:"text"`
		} `json:"next_step"`
	}](t, invoke(t, ctx, tools, plan.ToolUpdatePlanStep, `{"name":"release","step":2,"status":"in_progress"}`))
	assert.EqualValues(t, 3, step.Revision)
	require.NotNil(t, step.NextStep)
	assert.Equal(t, "announce", step.NextStep.Text, "next_step is the first pending step, not the one just taken")

	// The write stored the repair: the file is valid UTF-8 and no longer flagged.
	fc, err := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/release.md", Offset: 1, Limit: 1000})
	require.NoError(t, err)
	assert.True(t, utf8.ValidString(fc.Content), fc.Content)
	read = decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"release"}`))
	assert.False(t, read.Repaired)
	assert.Equal(t, "Rel\uFFFDease", read.Title)
	assert.Equal(t, "# Rel\uFFFDease\n- [x] tag \uFFFD\n- [~] sh\uFFFDip\n- [ ] announce\n", read.Content)

	// What a write answers is what a later read returns, for a default title cut from a long
	// multi-byte heading too.
	heading := strings.Repeat("é", 700) // 1,400 bytes: cut to at most 1,024 at a rune boundary
	for _, args := range []string{
		`{"name":"release","content":"# New\n- [ ] a\n"}`,
		`{"name":"long","content":` + quote("# "+heading+"\n- [ ] a\n") + `}`,
	} {
		w := decode[readOut](t, invoke(t, ctx, tools, plan.ToolWritePlan, args))
		name := decode[struct {
			Name string `json:"name"`
		}](t, args).Name
		r := decode[readOut](t, invoke(t, ctx, tools, plan.ToolReadPlan, `{"name":"`+name+`"}`))
		assert.Equal(t, r.Title, w.Title, name)
		assert.Equal(t, r.Revision, w.Revision, name)
		assert.True(t, utf8.ValidString(w.Title))
		assert.LessOrEqual(t, len(w.Title), 1024)
	}
}
