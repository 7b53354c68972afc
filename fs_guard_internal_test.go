package plan

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/agentrun"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guardOnDisk is a Store on a LocalBackend at <project>/.plans with one plan, and the guard
// a middleware with no driver.Workspace puts on Eino's file tools (host paths).
func guardOnDisk(t *testing.T) (g *agentrun.FileGuard, project, root string) {
	t.Helper()
	project = t.TempDir()
	root = filepath.Join(project, ".plans")
	backend, err := NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	s, err := NewStore(&StoreConfig{Backend: backend})
	require.NoError(t, err)
	_, err = s.Put(t.Context(), Update{Name: "deploy", Content: ptrTo("# Deploy\n- [ ] Ship\n")})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o600))
	return agentrun.NewFileGuard(s.e, nil), project, root
}

// reasonOf is the reason of a refusal, "" when the call runs.
func reasonOf(v agentrun.FileVerdict) string {
	if v.Err == nil {
		return ""
	}
	return v.Err.Reason
}

func fileArgs(key, value string) string {
	return `{"` + key + `":` + quoteJSON(value) + `}`
}

func quoteJSON(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestFileToolPathsIntoThePlansFolderAreRefused: read_file, write_file and edit_file of a plan
// file, of the key beside the folder and of the key where earlier versions kept it are
// refused, whatever spelling of the argument Eino would accept; paths elsewhere run.
func TestFileToolPathsIntoThePlansFolderAreRefused(t *testing.T) {
	g, project, root := guardOnDisk(t)
	planFile := filepath.Join(root, "plans", "deploy.md")
	for _, tool := range []string{"read_file", "write_file", "edit_file"} {
		for _, p := range []string{
			planFile,
			filepath.Join(root, "plans"),
			filepath.Join(root, ".plans.approval-key"),
			filepath.Join(root, "plans", ".approval-key"),
			filepath.Join(root, "plans", ".history", "deploy", "1.abc"),
			filepath.Join(root, "plans", "new.md"),
			root + "//plans/./deploy.md",
			filepath.Join(project, "src", "..", ".plans", "plans", "deploy.md"),
		} {
			assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge(tool, fileArgs("file_path", p))), "%s %s", tool, p)
		}
		// Eino decodes keys without regard to case and reads escapes: so does the guard.
		assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge(tool, fileArgs("FILE_PATH", planFile))), tool)
		assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge(tool, `{"file\u005fpath":`+quoteJSON(planFile)+`}`)), tool)
		assert.Equal(t, "", reasonOf(g.Judge(tool, fileArgs("file_path", filepath.Join(project, "main.go")))), tool)
		assert.Equal(t, "", reasonOf(g.Judge(tool, fileArgs("file_path", filepath.Join(root, "notes.md")))), tool)
	}
	assert.Equal(t, "", reasonOf(g.Judge("execute", fileArgs("file_path", planFile))), "other tools are not file tools")
}

// TestALinkIntoThePlansFolderIsFollowed: a path through a link that leads into the plans
// folder is refused, and so is a ".." after a link, read as the kernel reads it.
func TestALinkIntoThePlansFolderIsFollowed(t *testing.T) {
	g, project, root := guardOnDisk(t)
	require.NoError(t, os.Symlink(filepath.Join(root, "plans"), filepath.Join(project, "docs")))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "plans", "sub"), 0o700))
	require.NoError(t, os.Symlink(filepath.Join(root, "plans", "sub"), filepath.Join(project, "deep")))
	for _, p := range []string{
		filepath.Join(project, "docs", "deploy.md"),
		filepath.Join(project, "docs", "fresh.md"), // a file not there yet
		filepath.Join(project, "docs"),
		filepath.Join(project, "deep") + "/../deploy.md", // the kernel: <plans>/deploy.md
	} {
		assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("write_file", fileArgs("file_path", p))), p)
	}
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("ls", fileArgs("path", filepath.Join(project, "docs")))))
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("grep", fileArgs("path", filepath.Join(project, "docs")))))
}

// TestSearchesKeepOutOfThePlansFolder: ls lists the plans folder's parent (names only) but
// not the folder; grep of a folder that holds the plans folder or the key is refused (its
// results carry contents); glob of one runs with the entries inside left out.
func TestSearchesKeepOutOfThePlansFolder(t *testing.T) {
	g, project, root := guardOnDisk(t)
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("ls", fileArgs("path", filepath.Join(root, "plans")))))
	assert.Equal(t, "", reasonOf(g.Judge("ls", fileArgs("path", root))))
	assert.Equal(t, "", reasonOf(g.Judge("ls", fileArgs("path", project))))

	for _, p := range []string{project, root, "/"} {
		assert.Equal(t, document.ReasonSearchCoversPlans, reasonOf(g.Judge("grep", `{"pattern":"x","path":`+quoteJSON(p)+`}`)), p)
	}
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("grep", `{"pattern":"x","path":`+quoteJSON(filepath.Join(root, "plans"))+`}`)))
	src := filepath.Join(project, "src")
	require.NoError(t, os.Mkdir(src, 0o700))
	assert.Equal(t, "", reasonOf(g.Judge("grep", `{"pattern":"x","path":`+quoteJSON(src)+`}`)))

	// glob in the plans folder, by its path or by the fixed part of its pattern: refused.
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("glob", `{"pattern":"*.md","path":`+quoteJSON(filepath.Join(root, "plans"))+`}`)))
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("glob", `{"pattern":".plans/plans/*.md","path":`+quoteJSON(project)+`}`)))
	assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("glob", `{"pattern":`+quoteJSON(filepath.Join(root, "plans")+"/*")+`}`)))

	// glob above it: what lies inside is left out of the listing.
	v := g.Judge("glob", `{"pattern":"**/*","path":`+quoteJSON(project)+`}`)
	require.Nil(t, v.Err)
	require.NotNil(t, v.Keep)
	listing := strings.Join([]string{".plans", ".plans/.plans.approval-key", ".plans/plans", ".plans/plans/deploy.md", "main.go"}, "\n")
	assert.Equal(t, ".plans\nmain.go", v.Keep(listing))
	assert.Equal(t, "No files found", v.Keep(".plans/plans/deploy.md"))
	assert.Equal(t, "main.go", v.Keep(filepath.Join(root, "plans", "deploy.md")+"\nmain.go"), "absolute entries too")
	v = g.Judge("glob", `{"pattern":"*.go","path":`+quoteJSON(src)+`}`)
	assert.True(t, v.Err == nil && v.Keep == nil, "a folder without plans is listed as it is")
}

// TestGuardReadsWorkspacePathsAsTheStoragesOwn: with a driver.Workspace that is the Store's own
// storage, the file tools' paths are read as its paths; with neither a driver.Workspace nor a
// LocalBackend, Eino's host file tools cannot reach the plans, and nothing is refused.
func TestGuardReadsWorkspacePathsAsTheStoragesOwn(t *testing.T) {
	backend := NewMemoryBackend()
	s, err := NewStore(&StoreConfig{Backend: backend, BaseDir: "/team/plans"})
	require.NoError(t, err)
	g := agentrun.NewFileGuard(s.e, backend)
	for _, p := range []string{"/team/plans/a.md", "team/plans", "/team/.plans.approval-key", "/x/../team/plans/a.md"} {
		assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("read_file", fileArgs("file_path", p))), p)
	}
	assert.Equal(t, "", reasonOf(g.Judge("read_file", fileArgs("file_path", "/team/notes.md"))))
	assert.Equal(t, document.ReasonSearchCoversPlans, reasonOf(g.Judge("grep", `{"pattern":"x"}`)), "grep of the whole storage")
	assert.Equal(t, document.ReasonSearchCoversPlans, reasonOf(g.Judge("grep", `{"pattern":"x","path":"/team"}`)))
	assert.Equal(t, "", reasonOf(g.Judge("grep", `{"pattern":"x","path":"/src"}`)))

	unrelated := agentrun.NewFileGuard(s.e, nil)
	assert.Equal(t, "", reasonOf(unrelated.Judge("read_file", fileArgs("file_path", "/team/plans/a.md"))))
}

// TestTheKeyPathIsBesideThePlansFolder: the key file is never inside the plans folder it
// seals, except where the folder is the whole storage.
func TestTheKeyPathIsBesideThePlansFolder(t *testing.T) {
	assert.Equal(t, "/.plans.approval-key", engine.ApprovalKeyPath("/plans"))
	assert.Equal(t, "/team/.plans.approval-key", engine.ApprovalKeyPath("/team/plans"))
	assert.Equal(t, "/.approval-key", engine.ApprovalKeyPath("/"))
}

func TestFixedPrefixOfAGlob(t *testing.T) {
	for pattern, want := range map[string]string{
		"**/*.go":       "",
		"src/**/*.go":   "src",
		"/a/b/*":        "/a/b",
		"/*":            "/",
		"a/b/c.md":      "a/b/c.md",
		"a/{b,c}/d":     "a",
		".plans/pl?ns/": ".plans",
	} {
		assert.Equal(t, want, agentrun.FixedPrefix(pattern), pattern)
	}
}

// TestTheGuardWrapsEveryKindOfToolCall: a refused call never reaches the tool, whether it
// is invokable, streamable or enhanced; a glob that needs entries left out runs and is
// rewritten where its result is one string, and is refused where it is not.
func TestTheGuardWrapsEveryKindOfToolCall(t *testing.T) {
	ctx := context.Background()
	_, project, root := guardOnDisk(t)
	backend, err := NewLocalBackend(root)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	mw, err := New(ctx, &Config{Backend: backend, Language: adk.LanguageChinese})
	require.NoError(t, err)
	m := mw.(*agentrun.Middleware[*schema.Message, *Store])
	keyArgs := fileArgs("file_path", filepath.Join(root, ".plans.approval-key"))
	ran := 0

	inv, err := m.WrapInvokableToolCall(ctx, func(context.Context, string, ...tool.Option) (string, error) {
		ran++
		return ".plans/plans/deploy.md\nmain.go", nil
	}, &adk.ToolContext{Name: "read_file"})
	require.NoError(t, err)
	out, err := inv(ctx, keyArgs)
	require.NoError(t, err)
	assert.Contains(t, out, `"invalid_argument"`)
	assert.Contains(t, out, "文件工具不能读取", "the refusal is in the model's language")

	glob, err := m.WrapInvokableToolCall(ctx, func(context.Context, string, ...tool.Option) (string, error) {
		ran++
		return ".plans/plans/deploy.md\nmain.go", nil
	}, &adk.ToolContext{Name: "glob"})
	require.NoError(t, err)
	out, err = glob(ctx, `{"pattern":"**","path":`+quoteJSON(project)+`}`)
	require.NoError(t, err)
	assert.Equal(t, "main.go", out)
	assert.Equal(t, 1, ran, "only the glob ran")

	stream, err := m.WrapStreamableToolCall(ctx, func(context.Context, string, ...tool.Option) (*schema.StreamReader[string], error) {
		ran++
		return schema.StreamReaderFromArray([]string{"x"}), nil
	}, &adk.ToolContext{Name: "glob"})
	require.NoError(t, err)
	sr, err := stream(ctx, `{"pattern":"**","path":`+quoteJSON(project)+`}`)
	require.NoError(t, err)
	chunk, err := sr.Recv()
	require.NoError(t, err)
	assert.Contains(t, chunk, `"invalid_argument"`)

	enhanced, err := m.WrapEnhancedInvokableToolCall(ctx, func(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.ToolResult, error) {
		ran++
		return &schema.ToolResult{}, nil
	}, &adk.ToolContext{Name: "read_file"})
	require.NoError(t, err)
	res, err := enhanced(ctx, &schema.ToolArgument{Text: keyArgs})
	require.NoError(t, err)
	require.Len(t, res.Parts, 1)
	assert.Contains(t, res.Parts[0].Text, `"invalid_argument"`)

	enhancedStream, err := m.WrapEnhancedStreamableToolCall(ctx, func(context.Context, *schema.ToolArgument, ...tool.Option) (*schema.StreamReader[*schema.ToolResult], error) {
		ran++
		return schema.StreamReaderFromArray([]*schema.ToolResult{{}}), nil
	}, &adk.ToolContext{Name: "write_file"})
	require.NoError(t, err)
	rs, err := enhancedStream(ctx, &schema.ToolArgument{Text: fileArgs("file_path", filepath.Join(root, "plans", "deploy.md"))})
	require.NoError(t, err)
	r, err := rs.Recv()
	require.NoError(t, err)
	require.Len(t, r.Parts, 1)
	assert.Contains(t, r.Parts[0].Text, `"invalid_argument"`)
	assert.Equal(t, 1, ran, "no refused call ran")
}

// TestConfigStoreRefusesWhatItWouldIgnore: the middleware works on the Store it is given,
// with that Store's key, and refuses Backend or BaseDir beside it rather than ignore them.
func TestConfigStoreRefusesWhatItWouldIgnore(t *testing.T) {
	ctx := context.Background()
	key := []byte(strings.Repeat("h", 32))
	mw, err := New(ctx, &Config{Store: storeOf(t, StoreConfig{Backend: NewMemoryBackend(), ApprovalKey: key})})
	require.NoError(t, err)
	assert.Equal(t, key, mw.(*agentrun.Middleware[*schema.Message, *Store]).Store.GivenKey)
	s := storeOf(t, StoreConfig{Backend: NewMemoryBackend()})
	for _, cfg := range []*Config{{Store: s, Backend: NewMemoryBackend()}, {Store: s, BaseDir: "/other"}} {
		_, err = New(ctx, cfg)
		assert.ErrorContains(t, err, "Config.Store is set")
	}
}

// storeOf is a Store made from cfg.
func storeOf(t testing.TB, cfg StoreConfig) *Store {
	t.Helper()
	s, err := NewStore(&cfg)
	require.NoError(t, err)
	return s
}
