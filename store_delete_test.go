package plan_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// OnChange runs outside the Store's locks after a delete too: it may write the same plan.
func TestOnChangeAfterDeleteRunsOutsideTheLocks(t *testing.T) {
	ctx := context.Background()
	var s *plan.Store
	var written error
	s, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), OnChange: func(ctx context.Context, c plan.Change) {
		if c.Action != plan.ActionDelete {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		body := "# Again\n- [ ] a\n"
		_, written = s.Put(wctx, plan.Update{Name: c.Name, Content: &body})
	}})
	require.NoError(t, err)
	body := teamBody
	_, err = s.Put(ctx, plan.Update{Name: "team", Content: &body})
	require.NoError(t, err)
	_, err = s.Delete(ctx, "team", nil)
	require.NoError(t, err)
	assert.NoError(t, written, "the delete's OnChange re-created the plan")
}
