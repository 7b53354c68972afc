//go:build unix

package main

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	redisbackend "github.com/einoplan/plan/backends/redis"
)

// The tasks plantask keeps in Redis become a plan under the same prefix, as on a folder.
func TestImportPlantaskReadsTasksKeptInRedis(t *testing.T) {
	args := redisArgs(t)
	ctx := context.Background()
	opts, err := redis.ParseURL(args[1])
	require.NoError(t, err)
	client := redis.NewClient(opts)
	t.Cleanup(func() { client.Close() })
	backend, err := redisbackend.New(ctx, client, redisbackend.WithPrefix(args[3]))
	require.NoError(t, err)
	writePlantaskTasks(t, backend)

	r := planctlOK(t, append(args, "import-plantask", "db", "/tasks")...)
	assert.Contains(t, r.stdout, "db: created from the 5 plantask tasks in redis://")
	assert.Contains(t, r.stdout, "(prefix "+args[3]+") /tasks, revision 3")

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "db")
	require.NoError(t, err)
	wantImported(t, p)
}
