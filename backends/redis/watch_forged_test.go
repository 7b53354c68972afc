package redisbackend

import (
	"fmt"
	"strings"
	"testing"

	"github.com/einoplan/plan/api"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/backends/backendtest"
)

// forgeEvent publishes payload on the channel of dir as any client can.
func forgeEvent(t *testing.T, c *redis.Client, b *Backend, dir, payload string) {
	t.Helper()
	var err error
	if b.sharded {
		err = c.SPublish(bg, b.channel(dir), payload).Err()
	} else {
		err = c.Publish(bg, b.channel(dir), payload).Err()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// watchedPlan is a Store on b that watches plan "ship", written by a Store on another
// client, and the folder, path and content of the plan's file.
func watchedPlan(t *testing.T, b *Backend) (writing *plan.Store, changes <-chan plan.Change, dir, path, content string) {
	t.Helper()
	writing, changes = backendtest.WatchedPlan(t, b, mustNew(t, newClient(t, redisAddr), WithPrefix(b.prefix)))
	dir = "/" + strings.Trim(api.DefaultBaseDir, "/")
	path = dir + "/ship.md"
	raw, err := b.client.Get(bg, b.contentKey(path)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return writing, changes, dir, path, raw
}

func TestAForgedMessageRaisesNoRevisionAndTheRealChangesAllArrive(t *testing.T) {
	b, c := newBackend(t)
	writing, changes, dir, path, content := watchedPlan(t, b)
	fake := backendtest.ForgedRevision(t, content)
	forgeEvent(t, c, b, dir, fmt.Sprintf("w %d %s%s", len(path), path, fake))
	backendtest.WantRealWritesOnly(t, writing, changes)
}

func TestAForgedDeleteMessageOfAnExistingPlanDeliversNoDelete(t *testing.T) {
	b, c := newBackend(t)
	writing, changes, dir, path, _ := watchedPlan(t, b)
	forgeEvent(t, c, b, dir, fmt.Sprintf("d %d %s", len(path), path))
	backendtest.WantNoForgedDelete(t, writing, changes)
}
