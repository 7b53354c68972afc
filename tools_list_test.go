package plan_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

// A list_plans page is never over 16 KiB, warnings included.
func TestListPageWithWarningsStaysWithin16KiB(t *testing.T) {
	ctx := context.Background()
	mem := plan.NewMemoryBackend()
	s := storeOn(t, mem, "")
	for i := range 100 {
		_, err := s.Put(ctx, plan.Update{Name: fmt.Sprintf("p%03d", i), Title: strings.Repeat("t", 100),
			Status: strings.Repeat("s", 40), Author: strings.Repeat("a", 40),
			Content: ptr("- [ ] " + strings.Repeat("x", 100) + "\n")})
		require.NoError(t, err)
	}
	for i := range 20 {
		name := fmt.Sprintf("%s%02d", strings.Repeat("z", 62), i)
		require.NoError(t, mem.Write(ctx, &driver.WriteRequest{FilePath: "/plans/" + name + ".md", Content: "not a plan"}))
	}
	mw, err := plan.New(ctx, &plan.Config{Backend: mem})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(plantest.CallTool("list_plans", `{"limit":200}`), plantest.Answer("ok"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 1)
	assert.Contains(t, results[0], `"warnings"`)
	assert.LessOrEqual(t, len(results[0]), 16<<10, "a page is never over 16 KiB")
}

// manyPlans is how many plans the paging tests store.
const manyPlans = 10000

func manyName(i int) string { return fmt.Sprintf("p%05d", i) }

// manyStatus gives a third of the plans status "done" and the rest near misses, so the
// status filter is seen to be exact.
func manyStatus(i int) string {
	return [...]string{"done", "done-ish", "Done"}[i%3]
}

// newManyPlans stores manyPlans plans with ~1,000-byte titles and long step texts directly in
// a MemoryBackend.
func newManyPlans(t testing.TB) *plan.MemoryBackend {
	t.Helper()
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	stepText := strings.Repeat("migrate the table and check every row ", 8)
	at := time.Date(2026, 11, 21, 22, 0, 0, 0, time.UTC)
	for i := 0; i < manyPlans; i++ {
		title := fmt.Sprintf("Plan %d: %s", i, strings.Repeat("long title words ", 60))
		body := fmt.Sprintf("# %s\n- [x] %s 1\n- [ ] %s 2\n- [ ] %s 3\n", title, stepText, stepText, stepText)
		p := &plan.Plan{Title: title, Status: manyStatus(i), Author: "loader", Revision: 1,
			UpdatedAt: at.Add(time.Duration(i) * time.Second), Content: body}
		require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/" + manyName(i) + ".md", Content: document.EncodePlan(p)}))
	}
	return backend
}

type listOut struct {
	Plans []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"plans"`
	Total      *int   `json:"total"`
	NextCursor string `json:"next_cursor"`
}

// TestListPlansPagesTenThousandPlans: list_plans pages through 10,000 plans within its
// bounds, in name order, each plan once; the status filter is exact; limits are checked;
// plan_template names at most 50; Store.ListPage pages the same way for hosts.
func TestListPlansPagesTenThousandPlans(t *testing.T) {
	ctx := context.Background()
	backend := newManyPlans(t)
	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	ctx, _, tools := beforeAgentTools(t, ctx, mw)

	// The default page.
	out := invoke(t, ctx, tools, plan.ToolListPlans, `{}`)
	first := decode[listOut](t, out)
	assert.LessOrEqual(t, len(first.Plans), 50)
	assert.NotEmpty(t, first.Plans)
	assert.LessOrEqual(t, len(out), 16<<10)
	require.NotNil(t, first.Total)
	assert.Equal(t, manyPlans, *first.Total)
	assert.NotEmpty(t, first.NextCursor)

	// Following next_cursor visits every plan once, in name order.
	visit := func(args func(cursor string) string) {
		var names []string
		cursor, pages := "", 0
		for {
			out := invoke(t, ctx, tools, plan.ToolListPlans, args(cursor))
			page := decode[listOut](t, out)
			require.LessOrEqual(t, len(out), 16<<10, "page %d", pages)
			require.NotNil(t, page.Total, "page %d", pages)
			require.Equal(t, manyPlans, *page.Total, "page %d", pages)
			require.NotEmpty(t, page.Plans, "page %d", pages)
			for _, p := range page.Plans {
				names = append(names, p.Name)
			}
			pages++
			require.Less(t, pages, 2*manyPlans, "paging never ends")
			if page.NextCursor == "" {
				break
			}
			require.Equal(t, page.Plans[len(page.Plans)-1].Name, page.NextCursor)
			cursor = page.NextCursor
		}
		want := make([]string, manyPlans)
		for i := range want {
			want[i] = manyName(i)
		}
		require.Equal(t, want, names)
	}
	visit(func(c string) string {
		if c == "" {
			return `{}`
		}
		return `{"cursor":` + quote(c) + `}`
	})

	// The status filter keeps exactly the plans whose status is "done".
	filtered := invoke(t, ctx, tools, plan.ToolListPlans, `{"status":"done","limit":200}`)
	page := decode[listOut](t, filtered)
	require.NotNil(t, page.Total)
	assert.Equal(t, (manyPlans+2)/3, *page.Total)
	for _, p := range page.Plans {
		assert.Equal(t, "done", p.Status)
	}
	require.NotEmpty(t, page.NextCursor)
	second := decode[listOut](t, invoke(t, ctx, tools, plan.ToolListPlans,
		`{"status":"done","limit":200,"cursor":`+quote(page.NextCursor)+`}`))
	require.NotEmpty(t, second.Plans)
	assert.Greater(t, second.Plans[0].Name, page.NextCursor)
	for _, p := range append(page.Plans, second.Plans...) {
		assert.Equal(t, "done", p.Status)
	}

	// Limits: 1..200 honoured (a page is also cut at 16 KiB), 0 and 201 refused.
	for _, limit := range []int{1, 2, 7, 20, 50, 120, 200} {
		out := invoke(t, ctx, tools, plan.ToolListPlans, fmt.Sprintf(`{"limit":%d,"cursor":"p00100"}`, limit))
		page := decode[listOut](t, out)
		assert.LessOrEqual(t, len(page.Plans), limit)
		assert.LessOrEqual(t, len(out), 16<<10)
		if limit <= 20 {
			assert.Len(t, page.Plans, limit, "a small page is never cut")
		}
		require.NotEmpty(t, page.Plans)
		assert.Equal(t, "p00101", page.Plans[0].Name)
	}
	for _, limit := range []string{"0", "201", "-1"} {
		r := decode[errorOut](t, invoke(t, ctx, tools, plan.ToolListPlans, `{"limit":`+limit+`}`))
		if assert.NotNil(t, r.Error, limit) {
			assert.Equal(t, plan.CodeInvalidArgument, r.Error.Code)
		}
	}

	// plan_template names at most 50 plans and says how many more there are.
	tmpl, err := tools[plan.ToolPlanTemplate].InvokableRun(ctx, `{"goal":"ship"}`)
	require.NoError(t, err)
	require.NotContains(t, tmpl, `"error"`)
	for i := 0; i < 50; i++ {
		assert.Contains(t, tmpl, manyName(i))
	}
	assert.NotContains(t, tmpl, manyName(50))
	assert.NotContains(t, tmpl, manyName(manyPlans-1))
	assert.Contains(t, tmpl, fmt.Sprintf("and %d more", manyPlans-50))
	assert.Less(t, len(tmpl), 4<<10)

	// Store.ListPage gives hosts the same paging.
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	var names []string
	opts := plan.ListOptions{Limit: 150}
	for {
		l, err := store.ListPage(ctx, opts)
		require.NoError(t, err)
		assert.Equal(t, manyPlans, l.Total)
		assert.LessOrEqual(t, len(l.Plans), 150)
		for _, p := range l.Plans {
			names = append(names, p.Name)
		}
		if l.NextCursor == "" {
			break
		}
		require.Len(t, l.Plans, 150, "only the last page is short")
		opts.Cursor = l.NextCursor
	}
	require.Len(t, names, manyPlans)
	for i, n := range names {
		require.Equal(t, manyName(i), n)
	}
	// The status filter, over every page at once, keeps exactly the plans whose status is
	// "done".
	all, err := store.ListPage(ctx, plan.ListOptions{Status: "done"})
	require.NoError(t, err)
	var done []string
	for _, p := range all.Plans {
		assert.Equal(t, "done", p.Status)
		done = append(done, p.Name)
	}
	var wantDone []string
	for i := 0; i < manyPlans; i++ {
		if manyStatus(i) == "done" {
			wantDone = append(wantDone, manyName(i))
		}
	}
	assert.Equal(t, wantDone, done)
	assert.Equal(t, len(wantDone), all.Total)
	assert.Empty(t, all.NextCursor)
	l, err := store.ListPage(ctx, plan.ListOptions{Status: "Done", Limit: 200, Cursor: "p09000"})
	require.NoError(t, err)
	assert.Equal(t, manyPlans/3, l.Total)
	for _, p := range l.Plans {
		assert.Equal(t, "Done", p.Status)
		assert.Greater(t, p.Name, "p09000")
	}
}
