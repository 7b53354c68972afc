package redisbackend

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/einoplan/plan/api"

	"github.com/redis/go-redis/v9"

	"github.com/einoplan/plan"
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
	watching, err := plan.NewStore(&plan.StoreConfig{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	writing, err = plan.NewStore(&plan.StoreConfig{Backend: mustNew(t, newClient(t, redisAddr), WithPrefix(b.prefix))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writing.Put(bg, plan.Update{Name: "ship", Content: ptr("- [ ] build\n- [ ] deploy\n")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(bg)
	t.Cleanup(cancel)
	if changes, err = watching.Watch(ctx); err != nil {
		t.Fatal(err)
	}
	dir = "/" + strings.Trim(api.DefaultBaseDir, "/")
	path = dir + "/ship.md"
	raw, err := b.client.Get(bg, b.contentKey(path)).Result()
	if err != nil {
		t.Fatal(err)
	}
	return writing, changes, dir, path, raw
}

// changesUntil reads changes, resyncs left out, until one of plan "ship" at revision last.
func changesUntil(t *testing.T, changes <-chan plan.Change, last int64) []string {
	t.Helper()
	var got []string
	for {
		select {
		case c := <-changes:
			if c.Action == plan.ActionResync {
				continue
			}
			got = append(got, fmt.Sprintf("%s %s %d", c.Action, c.Name, c.Revision))
			if c.Name == "ship" && c.Revision == last && c.Action != plan.ActionDelete {
				return got
			}
			if len(got) > 20 {
				t.Fatalf("changes %q", got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no revision %d within 10 s; changes so far %q", last, got)
		}
	}
}

func TestAForgedMessageRaisesNoRevisionAndTheRealChangesAllArrive(t *testing.T) {
	b, c := newBackend(t)
	writing, changes, dir, path, content := watchedPlan(t, b)
	fake := strings.Replace(content, "revision: 1\n", "revision: 1000000\n", 1)
	if fake == content {
		t.Fatalf("no revision line in %q", content)
	}
	forgeEvent(t, c, b, dir, fmt.Sprintf("w %d %s%s", len(path), path, fake))
	for i := range 5 {
		if _, err := writing.Put(bg, plan.Update{Name: "ship", Content: ptr(fmt.Sprintf("- [ ] build %d\n- [ ] deploy\n", i))}); err != nil {
			t.Fatal(err)
		}
	}
	got := changesUntil(t, changes, 6)
	want := []string{"write ship 2", "write ship 3", "write ship 4", "write ship 5", "write ship 6"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("changes %q, want %q", got, want)
	}
}

func TestAForgedDeleteMessageOfAnExistingPlanDeliversNoDelete(t *testing.T) {
	b, c := newBackend(t)
	writing, changes, dir, path, _ := watchedPlan(t, b)
	forgeEvent(t, c, b, dir, fmt.Sprintf("d %d %s", len(path), path))
	if _, err := writing.Put(bg, plan.Update{Name: "ship", Content: ptr("- [ ] build\n- [ ] deploy\n- [ ] announce\n")}); err != nil {
		t.Fatal(err)
	}
	if got := changesUntil(t, changes, 2); len(got) != 1 || got[0] != "write ship 2" {
		t.Fatalf("changes %q, want only the real write", got)
	}
}
