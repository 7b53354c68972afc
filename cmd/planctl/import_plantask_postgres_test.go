//go:build unix

package main

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/postgres"
)

// The tasks plantask keeps in PostgreSQL become a plan in the same schema, as on a folder.
func TestImportPlantaskReadsTasksKeptInPostgres(t *testing.T) {
	url := postgresServer(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	backend, err := postgres.New(ctx, pool, postgres.WithSchema(os.Getenv("PLAN_POSTGRES_SCHEMA")))
	require.NoError(t, err)
	writePlantaskTasks(t, backend)

	r := planctlOK(t, "-postgres", url, "import-plantask", "db", "/tasks")
	assert.Contains(t, r.stdout, "db: created from the 5 plantask tasks in postgres://")
	assert.Contains(t, r.stdout, "(schema "+os.Getenv("PLAN_POSTGRES_SCHEMA")+") /tasks, revision 3")

	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	p, err := store.Get(ctx, "db")
	require.NoError(t, err)
	wantImported(t, p)

	wantExit(t, exitFailed, "no plantask tasks (N.json files) in postgres://", "-postgres", url, "import-plantask", "other", "/nothing-here")
}
