package plan_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/plantest"
)

// New wires the plan tools into an agent: add the middleware to Handlers. Here a scripted
// model stands in for a real one; it writes a plan and completes its first step, and every
// change comes back as an event of the run.
func ExampleNew() {
	ctx := context.Background()
	mw, err := plan.New(ctx, &plan.Config{Backend: plan.NewMemoryBackend(), AgentName: "release-bot"})
	if err != nil {
		panic(err)
	}
	model := plantest.NewScriptedModel(
		plantest.CallTool("write_plan", `{"name":"release","content":"# Release 2.0\n- [ ] Write the changelog\n- [ ] Tag v2.0.0\n","last_known_revision":0}`),
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"completed","last_known_revision":1}`),
		plantest.Answer("The changelog is written; tagging is next."),
	)
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "release-bot",
		Description: "Ships releases",
		Instruction: "You ship releases.",
		Model:       model,
		Handlers:    []adk.ChatModelAgentMiddleware{mw},
	})
	if err != nil {
		panic(err)
	}
	iter := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).Query(ctx, "Ship release 2.0")
	for {
		ev, ok := iter.Next()
		if !ok {
			break
		}
		if ev.Err != nil {
			panic(ev.Err)
		}
		if ev.Output == nil {
			continue
		}
		if c, ok := ev.Output.CustomizedOutput.(plan.Change); ok {
			fmt.Printf("%s %s: revision %d, %d/%d steps done\n", c.Name, c.Action, c.Revision, c.Progress.Completed, c.Progress.Total)
		} else if mo := ev.Output.MessageOutput; mo != nil && mo.Message != nil &&
			mo.Message.Role == schema.Assistant && len(mo.Message.ToolCalls) == 0 {
			fmt.Println("agent:", mo.Message.Content)
		}
	}
	// Output:
	// release write: revision 1, 0/2 steps done
	// release step: revision 2, 1/2 steps done
	// agent: The changelog is written; tagging is next.
}

// A Store gives host programs the plans agents work on, with the same revisions and locks.
// A write that names the revision it read is refused when someone else wrote first.
func ExampleStore() {
	ctx := context.Background()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: plan.NewMemoryBackend(), DefaultAuthor: "ops"})
	if err != nil {
		panic(err)
	}
	body := "# Migrate the database\n- [x] Back up\n- [ ] Run the migration\n- [ ] Verify\n"
	created, err := store.Put(ctx, plan.Update{Name: "migrate", Content: &body, IfRevision: ptr[int64](0)})
	if err != nil {
		panic(err)
	}
	fmt.Printf("created %s: %q by %s, revision %d, status %s\n", created.Name, created.Title, created.Author, created.Revision, created.Status)

	// Someone else moves the plan on...
	if _, err := store.SetStatus(ctx, "migrate", "in-progress", nil); err != nil {
		panic(err)
	}
	// ...so a write guarded by the revision read earlier is refused, and nothing changes.
	_, err = store.SetStatus(ctx, "migrate", "abandoned", &created.Revision)
	var pe *plan.Error
	if errors.As(err, &pe) {
		fmt.Printf("refused: %s, current revision %d\n", pe.Code, pe.CurrentRevision)
	}

	p, err := store.Get(ctx, "migrate")
	if err != nil {
		panic(err)
	}
	fmt.Printf("get %s: revision %d, status %s\n", p.Name, p.Revision, p.Status)

	listing, err := store.ListPage(ctx, plan.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, s := range listing.Plans {
		fmt.Printf("list %s: %d%% done, next step %d: %s\n", s.Name, s.Progress.Percent, s.CurrentStep.Number, s.CurrentStep.Text)
	}
	// Output:
	// created migrate: "Migrate the database" by ops, revision 1, status draft
	// refused: revision_conflict, current revision 2
	// get migrate: revision 2, status in-progress
	// list migrate: 33% done, next step 2: Run the migration
}

// A MemoryBackend keeps plans in the process: for tests, one-process apps and caches.
// Plans are stored as Markdown files with a small header under the Store's BaseDir.
func ExampleNewMemoryBackend() {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		panic(err)
	}
	body := "- [ ] One\n"
	if _, err := store.Put(ctx, plan.Update{Name: "todo", Title: "Today", Content: &body}); err != nil {
		panic(err)
	}
	infos, err := backend.LsInfo(ctx, &driver.LsInfoRequest{Path: "/plans"})
	if err != nil {
		panic(err)
	}
	for _, info := range infos {
		fmt.Println(info.Path)
	}
	file, err := backend.Read(ctx, &driver.ReadRequest{FilePath: "/plans/todo.md"})
	if err != nil {
		panic(err)
	}
	p, err := document.DecodePlan("todo", file.Content)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q revision %d: %s", p.Title, p.Revision, p.Content)
	// Output:
	// /plans/todo.md
	// "Today" revision 1: - [ ] One
}

// A LocalBackend keeps plans as Markdown files in a folder: with the default BaseDir, plan
// NAME is ROOT/plans/NAME.md, readable by people and editable with planctl. Writes are
// atomic, and on Unix-like systems guarded writes take a lock on the folder that other
// processes honour.
func ExampleNewLocalBackend() {
	ctx := context.Background()
	root, err := os.MkdirTemp("", "plans-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	backend, err := plan.NewLocalBackend(root)
	if err != nil {
		panic(err)
	}
	defer backend.Close()
	store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	if err != nil {
		panic(err)
	}
	body := "# Launch\n- [x] Build\n- [ ] Deploy\n"
	if _, err := store.Put(ctx, plan.Update{Name: "launch", Author: "ops", Content: &body}); err != nil {
		panic(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "plans", "launch.md"))
	if err != nil {
		panic(err)
	}
	for line := range strings.Lines(string(raw)) {
		// The time of the write, and the checksum that covers it.
		if !strings.HasPrefix(line, "updated_at: ") && !strings.HasPrefix(line, "checksum: ") {
			fmt.Print(line)
		}
	}
	// Output:
	// ---
	// format: 2
	// title: "Launch"
	// status: "draft"
	// author: "ops"
	// revision: 1
	// change: "create"
	// changed_by: "ops"
	// ---
	// # Launch
	// - [x] Build
	// - [ ] Deploy
}

func ptr[T any](v T) *T { return &v }

// storeOf is a Store made from cfg, for a Config that needs more of StoreConfig than
// Backend and BaseDir.
func storeOf(t testing.TB, cfg plan.StoreConfig) *plan.Store {
	t.Helper()
	s, err := plan.NewStore(&cfg)
	require.NoError(t, err)
	return s
}
