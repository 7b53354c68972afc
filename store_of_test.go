package plan_test

import (
	"testing"

	"github.com/einoplan/plan"
	"github.com/stretchr/testify/require"
)

// storeOf is a Store made from cfg, for a Config that needs more of StoreConfig than
// Backend and BaseDir.
func storeOf(t testing.TB, cfg plan.StoreConfig) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&cfg)
	require.NoError(t, err)
	return s
}
