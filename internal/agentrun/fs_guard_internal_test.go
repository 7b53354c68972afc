package agentrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/localfs"
	"github.com/einoplan/plan/internal/memfs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guardOnDisk is a Store on a LocalBackend at <project>/.plans with one plan, and the guard
// a middleware with no driver.Workspace puts on Eino's file tools (host paths).
func guardOnDisk(t *testing.T) (g *fileGuard, project, root string) {
	t.Helper()
	project = t.TempDir()
	root = filepath.Join(project, ".plans")
	backend, err := localfs.New(root)
	require.NoError(t, err)
	t.Cleanup(func() { backend.Close() })
	s, err := engine.NewStore(&engine.StoreConfig{Backend: backend})
	require.NoError(t, err)
	body := "# Deploy\n- [ ] Ship\n"
	_, err = s.Put(t.Context(), engine.Update{Name: "deploy", Content: &body})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o600))
	return newFileGuard(s, nil), project, root
}

// reasonOf is the reason of a refusal, "" when the call runs.
func reasonOf(v fileVerdict) string {
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
	backend := memfs.New()
	s, err := engine.NewStore(&engine.StoreConfig{Backend: backend, BaseDir: "/team/plans"})
	require.NoError(t, err)
	g := newFileGuard(s, backend)
	for _, p := range []string{"/team/plans/a.md", "team/plans", "/team/.plans.approval-key", "/x/../team/plans/a.md"} {
		assert.Equal(t, document.ReasonPlansOffLimits, reasonOf(g.Judge("read_file", fileArgs("file_path", p))), p)
	}
	assert.Equal(t, "", reasonOf(g.Judge("read_file", fileArgs("file_path", "/team/notes.md"))))
	assert.Equal(t, document.ReasonSearchCoversPlans, reasonOf(g.Judge("grep", `{"pattern":"x"}`)), "grep of the whole storage")
	assert.Equal(t, document.ReasonSearchCoversPlans, reasonOf(g.Judge("grep", `{"pattern":"x","path":"/team"}`)))
	assert.Equal(t, "", reasonOf(g.Judge("grep", `{"pattern":"x","path":"/src"}`)))

	unrelated := newFileGuard(s, nil)
	assert.Equal(t, "", reasonOf(unrelated.Judge("read_file", fileArgs("file_path", "/team/plans/a.md"))))
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
		assert.Equal(t, want, fixedPrefix(pattern), pattern)
	}
}
