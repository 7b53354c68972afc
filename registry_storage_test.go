package plan_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// hooked holds a map, so a struct value holding it is not comparable.
type hooked struct {
	plan.Backend
	hooks map[string]func()
}

type valueWrap struct{ hooked }

func storeOn(t testing.TB, b plan.Backend, dir string) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: b, BaseDir: dir})
	require.NoError(t, err)
	return s
}

// A Backend value that is not comparable is accepted without a panic by NewStore and New;
// sharing it is then explicit, one Store passed to every middleware.
func TestUnhashableBackendValueDoesNotPanic(t *testing.T) {
	b := valueWrap{hooked{Backend: plan.NewMemoryBackend(), hooks: map[string]func(){"x": func() {}}}}
	require.NotPanics(t, func() {
		s := storeOn(t, b, "")
		_, err := s.Put(context.Background(), plan.Update{Name: "a", Content: ptrTo("- [ ] x\n")})
		require.NoError(t, err)
		_, err = plan.New(context.Background(), &plan.Config{Backend: b})
		require.NoError(t, err)
	})
	// Sharing is then explicit: one Store for every middleware.
	s := storeOn(t, b, "")
	_, err := plan.New(context.Background(), &plan.Config{Store: s})
	require.NoError(t, err)
	_, err = plan.New(context.Background(), &plan.Config{Store: s, Backend: b})
	require.ErrorContains(t, err, "leave Backend")
}
