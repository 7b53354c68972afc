package plan_test

import (
	"context"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/einoplan/plan/driver"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/plantest"
)

var castagnoliTable = crc32.MakeTable(crc32.Castagnoli)

// format1File is a plan file as release 0.1.0 wrote it (no format line; replaces a CRC-32C).
func format1File(rev int64, status, replaces string) string {
	out := fmt.Sprintf("---\ntitle: \"Old\"\nstatus: %q\nauthor: \"ana\"\nrevision: %d\nupdated_at: \"2026-01-0%dT00:00:00Z\"\nchange: \"status\"\n", status, rev, rev)
	if replaces != "" {
		out += "replaces: \"" + replaces + "\"\n"
	}
	return out + "---\n# Old\n- [ ] One\n"
}

func crcName(raw string) string {
	return fmt.Sprintf("%08x", crc32.Checksum([]byte(raw), castagnoliTable))
}

func readFile(t *testing.T, b plan.Backend, p string) string {
	t.Helper()
	fc, err := b.Read(context.Background(), &driver.ReadRequest{FilePath: p})
	require.NoError(t, err)
	return fc.Content
}

func writeFile(t *testing.T, b plan.Backend, p, content string) {
	t.Helper()
	require.NoError(t, b.Write(context.Background(), &driver.WriteRequest{FilePath: p, Content: content}))
}

// An agent whose plan was stored by a newer release reads it, and its change is refused as
// a tool error that tells it to ask a person; the run goes on and nothing is written.
func TestAnAgentReadsAPlanOfANewerFormatAndIsToldItCannotChangeIt(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := "# Next\n- [ ] One\n"
	_, err = s.Put(ctx, plan.Update{Name: "next", Content: &body})
	require.NoError(t, err)
	newer := strings.Replace(readFile(t, backend, "/plans/next.md"), "format: 2\n", "format: 3\n", 1)
	writeFile(t, backend, "/plans/next.md", newer)

	mw, err := plan.New(ctx, &plan.Config{Backend: backend})
	require.NoError(t, err)
	model := plantest.NewScriptedModel(
		plantest.CallTool("update_plan_step", `{"name":"next","step":1,"status":"in_progress"}`),
		plantest.CallTool("read_plan", `{"name":"next"}`),
		plantest.Answer("asked a person"))
	results := toolResults(runAgent(t, model, mw))
	require.Len(t, results, 2)
	code, msg := errorMessage(t, results[0])
	assert.Equal(t, plan.CodeCorrupt, code)
	assert.Contains(t, msg, "newer version")
	assert.Contains(t, msg, "ask a person")
	assert.Contains(t, results[1], "- [ ] One")
	assert.Equal(t, newer, readFile(t, backend, "/plans/next.md"), "nothing was written")
}

// After Migrate, an agent's read_plan since a revision 0.1.0 kept gives the changes since it
// instead of the whole plan with a note that the revision cannot be verified.
func TestReadPlanSinceARevisionOf010WorksOnceMigrated(t *testing.T) {
	ctx := context.Background()
	backend := plan.NewMemoryBackend()
	r1 := format1File(1, "draft", "")
	r2 := strings.Replace(format1File(2, "active", crcName(r1)), "- [ ] One\n", "- [ ] One\n- [ ] Two\n", 1)
	writeFile(t, backend, "/plans/.history/old/1."+crcName(r1), r1)
	writeFile(t, backend, "/plans/old.md", r2)
	s, err := plan.NewStore(&plan.StoreConfig{Backend: backend})
	require.NoError(t, err)
	read := func() string {
		t.Helper()
		mw, err := plan.New(ctx, &plan.Config{Backend: backend})
		require.NoError(t, err)
		model := plantest.NewScriptedModel(
			plantest.CallTool("read_plan", `{"name":"old","since_revision":1}`),
			plantest.Answer("read"))
		results := toolResults(runAgent(t, model, mw))
		require.Len(t, results, 1)
		return results[0]
	}
	before := read()
	assert.Contains(t, before, "older format", before)

	_, err = s.Migrate(ctx, "old")
	require.NoError(t, err)
	after := read()
	assert.NotContains(t, after, "older format", after)
	assert.Contains(t, after, "+- [ ] Two", after)
}
