package keyedmutex

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One key's lock excludes its other lockers; a different key never waits for it.
func TestLockExcludesOneKeyOnly(t *testing.T) {
	var m Map
	ctx := context.Background()
	unlock, err := m.Lock(ctx, "a")
	require.NoError(t, err)

	other, err := m.Lock(ctx, "b")
	require.NoError(t, err, "a distinct key does not wait")
	other()

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = m.Lock(short, "a")
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the same key waits until its holder releases it")
	assert.Equal(t, 1, m.Len(), "the abandoned waiter leaves only the holder's entry")

	unlock()
	again, err := m.Lock(ctx, "a")
	require.NoError(t, err)
	again()
	assert.Zero(t, m.Len(), "idle keys leave nothing behind")
}

// Many goroutines on few keys never hold one key at once, and leave the map empty.
func TestLockIsMutualExclusionUnderContention(t *testing.T) {
	var m Map
	inside := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 64 {
		key := string(rune('a' + i%4))
		wg.Go(func() {
			for range 50 {
				unlock, err := m.Lock(context.Background(), key)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				inside[key]++
				n := inside[key]
				mu.Unlock()
				assert.Equal(t, 1, n, "two holders of %q at once", key)
				mu.Lock()
				inside[key]--
				mu.Unlock()
				unlock()
			}
		})
	}
	wg.Wait()
	assert.Zero(t, m.Len())
}
