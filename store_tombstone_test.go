package plan_test

import (
	"context"
	"testing"

	"github.com/bytedance/sonic"
	"github.com/cloudwego/eino/components/tool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
)

// currentRevision returns the current_revision of an error result, 0 when absent.
func currentRevision(t *testing.T, result string) int64 {
	t.Helper()
	var r struct {
		Error struct {
			CurrentRevision int64 `json:"current_revision"`
		} `json:"error"`
	}
	require.NoError(t, sonic.UnmarshalString(result, &r), result)
	return r.Error.CurrentRevision
}

// TestStaleWriterAfterDeleteAndRecreate: agent A reads revision 1 of a plan; agent B, with
// its own middleware on the same backend, deletes it and creates a new plan of that name.
// Every guarded change A then makes with revision 1 is a revision_conflict naming the new
// revision, never an overwrite of B's plan.
func TestStaleWriterAfterDeleteAndRecreate(t *testing.T) {
	for _, bc := range backendCases() {
		t.Run(bc.name, func(t *testing.T) {
			ctx := context.Background()
			backend, ws := bc.new(t)
			agent := func() map[string]tool.InvokableTool {
				mw, err := plan.New(ctx, &plan.Config{Backend: backend, Workspace: ws})
				require.NoError(t, err)
				_, _, tools := beforeAgentTools(t, ctx, mw)
				return tools
			}
			a, b := agent(), agent()
			call := func(tools map[string]tool.InvokableTool, name, args string) string {
				t.Helper()
				out, err := tools[name].InvokableRun(ctx, args)
				require.NoError(t, err)
				return out
			}
			ok := func(tools map[string]tool.InvokableTool, name, args string) {
				t.Helper()
				out := call(tools, name, args)
				require.Empty(t, errorCode(t, out), "%s %s: %s", name, args, out)
			}

			ok(a, "write_plan", `{"name":"shared","content":"# Old\n- [ ] a\n","last_known_revision":0}`)
			read := call(a, "read_plan", `{"name":"shared"}`)
			require.Contains(t, read, `"revision":1`)
			ok(a, "export_plan_to_file", `{"name":"shared","path":"/work/shared.md"}`)

			ok(b, "delete_plan", `{"name":"shared","last_known_revision":1}`)
			// Deleted and not yet re-created: the stale revision names a plan that is gone.
			out := call(a, "write_plan", `{"name":"shared","content":"stale","last_known_revision":1}`)
			require.Equal(t, "not_found", errorCode(t, out), out)

			ok(b, "write_plan", `{"name":"shared","content":"# New\n- [ ] b\n","last_known_revision":0}`)
			for _, c := range []struct{ tool, args string }{
				{"write_plan", `{"name":"shared","content":"stale","last_known_revision":1}`},
				{"set_plan_status", `{"name":"shared","status":"stale","last_known_revision":1}`},
				{"update_plan_step", `{"name":"shared","step":1,"status":"completed","last_known_revision":1}`},
				{"update_plan_from_file", `{"name":"shared","path":"/work/shared.md","last_known_revision":1}`},
				{"delete_plan", `{"name":"shared","last_known_revision":1}`},
			} {
				out := call(a, c.tool, c.args)
				assert.Equal(t, "revision_conflict", errorCode(t, out), "%s %s: %s", c.tool, c.args, out)
				assert.EqualValues(t, 2, currentRevision(t, out), out)
			}

			// A second delete and re-create, this time unguarded: still no revision repeats.
			ok(b, "delete_plan", `{"name":"shared"}`)
			ok(b, "write_plan", `{"name":"shared","content":"# Newer\n"}`)
			for _, stale := range []string{"1", "2"} {
				out := call(a, "write_plan", `{"name":"shared","content":"stale","last_known_revision":`+stale+`}`)
				assert.Equal(t, "revision_conflict", errorCode(t, out), out)
				assert.EqualValues(t, 3, currentRevision(t, out), out)
			}

			store, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
			require.NoError(t, err)
			p, err := store.Get(ctx, "shared")
			require.NoError(t, err)
			assert.EqualValues(t, 3, p.Revision)
			assert.Equal(t, "# Newer\n", p.Content)
			assert.Equal(t, "draft", p.Status)
		})
	}
}
