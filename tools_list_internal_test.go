package plan

import (
	"context"
	"fmt"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/tools"
	"github.com/stretchr/testify/require"
)

// TestListJSONMatchesList: list_plans' cached encoding says exactly what List returns.
func TestListJSONMatchesList(t *testing.T) {
	ctx := context.Background()
	backend := NewMemoryBackend()
	s, err := NewStore(&StoreConfig{Backend: backend})
	require.NoError(t, err)
	check := func() {
		t.Helper()
		l, err := s.ListPage(ctx, ListOptions{})
		require.NoError(t, err)
		for i := range l.Warnings {
			l.Warnings[i].Message = (&tools.ToolEnv{Texts: textsEN}).ErrorMessage(l.Warnings[i].Err)
		}
		want, err := sonic.MarshalString(l)
		require.NoError(t, err)
		got, err := tools.RunListPlans(ctx, &tools.ToolEnv{Store: s.e, Texts: textsEN}, tools.Args{})
		require.NoError(t, err)
		require.JSONEq(t, want, got.(string))
	}
	check()
	for i := 0; i < 5; i++ {
		body := fmt.Sprintf("# P%d \"q\" <&>\n- [x] a\n- [~] b\n- [ ] c\n", i)
		_, err := s.Put(ctx, Update{Name: fmt.Sprintf("p%d", i), Content: &body})
		require.NoError(t, err)
	}
	check()
	check()
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/bad.md", Content: "nope"}))
	check()
}
