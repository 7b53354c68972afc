package tools

import (
	"context"
	"fmt"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/memfs"
)

// TestListJSONMatchesList: list_plans' cached encoding says exactly what List returns.
func TestListJSONMatchesList(t *testing.T) {
	ctx := context.Background()
	backend := memfs.New()
	s, err := engine.NewStore(&engine.StoreConfig{Backend: backend})
	require.NoError(t, err)
	texts := map[string]string{"err.undecodable": "plan {name} does not decode"} // the model's words are not what is checked
	check := func() {
		t.Helper()
		l, err := s.ListPage(ctx, engine.ListOptions{})
		require.NoError(t, err)
		for i := range l.Warnings {
			l.Warnings[i].Message = (&ToolEnv{Texts: texts}).ErrorMessage(l.Warnings[i].Err)
		}
		want, err := sonic.MarshalString(l)
		require.NoError(t, err)
		got, err := runListPlans(ctx, &ToolEnv{Store: s, Texts: texts}, args{})
		require.NoError(t, err)
		require.JSONEq(t, want, got.(string))
	}
	check()
	for i := 0; i < 5; i++ {
		body := fmt.Sprintf("# P%d \"q\" <&>\n- [x] a\n- [~] b\n- [ ] c\n", i)
		_, err := s.Put(ctx, engine.Update{Name: fmt.Sprintf("p%d", i), Content: &body})
		require.NoError(t, err)
	}
	check()
	check()
	require.NoError(t, backend.Write(ctx, &driver.WriteRequest{FilePath: "/plans/bad.md", Content: "nope"}))
	check()
}
