package plan_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsCodeBlocksCompile type-checks every ```go block of README.md and docs/*.md with
// go vet, so the documentation cannot drift from the API.
//
// A block that starts with a package clause is checked as the file it is. Any other block is
// a fragment: its top-level import, type and func declarations stay at file level, and the
// rest becomes the body of a function that returns an error (so `if err != nil { return err
// }` and a final `return srv.ListenAndServe()` work). The harness adds what a reader fills in
// without thinking:
//   - imports for the well-known package names in docsPackages that the block uses but does
//     not import;
//   - parameters for the well-known free names in docsFreeNames (ctx, chatModel, store, ...)
//     that the block uses but does not declare;
//   - `_ = x` for every variable the body declares at its top level, so a fragment that
//     shows how to get a value need not use it.
//
// //line directives map every position back to the Markdown file, so a failure names the
// line of the block. Blocks that use another module of this repository (backends/redis,
// backends/postgres, board) are checked inside that module. Text that is not Go belongs in
// ```text or ```sh blocks.
func TestDocsCodeBlocksCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to check the documentation: %v", err)
	}
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)

	byModule := map[string][]docBlock{}
	total := 0
	for _, f := range files {
		blocks, err := goBlocks(f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "README.md" && len(blocks) == 0 {
			t.Fatal("README.md has no ```go block: the extractor is broken")
		}
		for _, b := range blocks {
			src, module, err := b.source()
			if err != nil {
				t.Errorf("%s:%d: %v", b.file, b.line, err)
				continue
			}
			b.src, b.module = src, module
			byModule[module] = append(byModule[module], b)
			total++
		}
	}
	t.Logf("%d go blocks in %d files", total, len(files))

	modules := make([]string, 0, len(byModule))
	for m := range byModule {
		modules = append(modules, m)
	}
	slices.Sort(modules)
	for _, module := range modules {
		vetBlocks(t, goTool, module, byModule[module])
	}
}

// vetBlocks writes each block as a package of its own under module/testdata (which ./...
// never matches), runs go vet on all of them at once and removes them again.
func vetBlocks(t *testing.T, goTool, module string, blocks []docBlock) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(module, "go.mod")); err != nil {
		for _, b := range blocks {
			t.Errorf("%s:%d: the block needs module %s, which is missing: %v", b.file, b.line, module, err)
		}
		return
	}
	testdata := filepath.Join(module, "testdata")
	if _, err := os.Stat(testdata); err != nil {
		if err := os.Mkdir(testdata, 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(testdata) // only if it is empty again
	}
	tmp, err := os.MkdirTemp(testdata, "doccheck-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	rel, err := filepath.Rel(module, tmp)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"vet"}
	for i, b := range blocks {
		dir := filepath.Join(tmp, fmt.Sprintf("b%03d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "block.go"), []byte(b.src), 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, "./"+filepath.ToSlash(filepath.Join(rel, filepath.Base(dir))))
	}
	cmd := exec.Command(goTool, args...)
	cmd.Dir = module
	// Each module resolves this repository through its own replace directives, whatever
	// workspace surrounds it.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("code blocks of the documentation do not compile (module %s):\n%s", module, out)
	}
}

type docBlock struct {
	file string // the Markdown file, slash-separated, relative to the repository root
	line int    // the 1-based line of the block's first code line
	code string
	// Filled by source.
	src, module string
}

var fenceOpen = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")

// goBlocks returns the fenced blocks of a Markdown file whose info string is "go".
func goBlocks(path string) ([]docBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		blocks        []docBlock
		lines         []string
		inFence, isGo bool
		fence, indent string
		openLine      string
		start, n      int
		name          = filepath.ToSlash(path)
		sc            = bufio.NewScanner(f)
	)
	for sc.Scan() {
		n++
		line := sc.Text()
		if !inFence {
			m := fenceOpen.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			inFence, indent, fence, openLine = true, m[1], m[2], line
			isGo, start, lines = m[3] == "go", n+1, nil
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
			if isGo {
				blocks = append(blocks, docBlock{file: name, line: start, code: strings.Join(lines, "\n") + "\n"})
			}
			inFence = false
			continue
		}
		lines = append(lines, strings.TrimPrefix(line, indent))
	}
	if inFence {
		return nil, fmt.Errorf("%s: the fence opened by %q is never closed", name, openLine)
	}
	return blocks, sc.Err()
}

// docsPackages are the package names a fragment may use without importing them.
var docsPackages = map[string]string{
	"context":        "context",
	"errors":         "errors",
	"fmt":            "fmt",
	"fs":             "io/fs",
	"http":           "net/http",
	"io":             "io",
	"json":           "encoding/json",
	"log":            "log",
	"signal":         "os/signal",
	"sync":           "sync",
	"os":             "os",
	"strings":        "strings",
	"testing":        "testing",
	"time":           "time",
	"adk":            "github.com/cloudwego/eino/adk",
	"compose":        "github.com/cloudwego/eino/compose",
	"deep":           "github.com/cloudwego/eino/adk/prebuilt/deep",
	"filesystem":     "github.com/cloudwego/eino/adk/filesystem",
	"model":          "github.com/cloudwego/eino/components/model",
	"patchtoolcalls": "github.com/cloudwego/eino/adk/middlewares/patchtoolcalls",
	"plantask":       "github.com/cloudwego/eino/adk/middlewares/plantask",
	"schema":         "github.com/cloudwego/eino/schema",
	"tool":           "github.com/cloudwego/eino/components/tool",
	"plan":           "github.com/einoplan/plan",
	"driver":         "github.com/einoplan/plan/driver",
	"backendtest":    "github.com/einoplan/plan/backends/backendtest",
	"plantest":       "github.com/einoplan/plan/plantest",
	"redisbackend":   "github.com/einoplan/plan/backends/redis",
	"redis":          "github.com/redis/go-redis/v9",
	"postgres":       "github.com/einoplan/plan/backends/postgres",
	"pgxpool":        "github.com/jackc/pgx/v5/pgxpool",
	"board":          "github.com/einoplan/plan/board",
}

// docsFreeNames are the values a fragment may use without declaring them, with their types.
var docsFreeNames = map[string]string{
	"ctx":         "context.Context",
	"chatModel":   "model.ToolCallingChatModel",
	"store":       "*plan.Store",
	"backend":     "plan.Backend",
	"agent":       "adk.Agent",
	"checkpoints": "adk.CheckPointStore",
	"ic":          "*adk.InterruptCtx",
	"t":           "*testing.T",
	"dir":         "string",
	"client":      "redis.UniversalClient",
	"pool":        "*pgxpool.Pool",
}

// docsModules maps import path prefixes to the module a block using them is checked in.
var docsModules = []struct{ prefix, module string }{
	{"github.com/einoplan/plan/backends/redis", "backends/redis"},
	{"github.com/redis/go-redis", "backends/redis"},
	{"github.com/einoplan/plan/backends/postgres", "backends/postgres"},
	{"github.com/jackc/", "backends/postgres"},
	{"github.com/einoplan/plan/board", "board"},
}

// source turns a block into a Go file and names the module to check it in.
func (b docBlock) source() (src, module string, err error) {
	abs, err := filepath.Abs(filepath.FromSlash(b.file))
	if err != nil {
		return "", "", err
	}
	directive := func(line int) string { return fmt.Sprintf("//line %s:%d\n", abs, line) }
	var decls, body strings.Builder
	isFile := strings.HasPrefix(strings.TrimSpace(stripComments(b.code)), "package ")
	if isFile {
		decls.WriteString(directive(b.line))
		decls.WriteString(b.code)
	} else {
		splitFragment(b.code, b.line, directive, &decls, &body)
	}

	// First pass: find what the block uses and declares.
	head := "package doccheck\n" + decls.String() + "\nfunc _() error {\n"
	draft := head + body.String() + "\nreturn nil\n}\n"
	if isFile {
		draft = decls.String()
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "block.go", draft, parser.SkipObjectResolution)
	if err != nil {
		return "", "", err
	}
	imported := map[string]bool{}
	var paths []string
	for _, imp := range f.Imports {
		p := strings.Trim(imp.Path.Value, "\"")
		paths = append(paths, p)
		name := p[strings.LastIndex(p, "/")+1:]
		if strings.HasPrefix(name, "v") && strings.Count(p, "/") > 2 { // .../go-redis/v9
			rest := p[:strings.LastIndex(p, "/")]
			name = rest[strings.LastIndex(rest, "/")+1:]
		}
		if imp.Name != nil {
			name = imp.Name.Name
		}
		imported[name] = true
	}
	if isFile {
		return draft, moduleFor(paths), nil
	}

	declared := map[string]bool{}
	var bodyDecls []string
	finalReturn, finalLine := -1, 0 // where the fragment's own final return starts, if it has one
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					declared[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, n := range s.Names {
						declared[n.Name] = true
					}
				}
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name != "_" {
				declared[d.Name.Name] = true
			}
			if d.Name.Name == "_" && d.Recv == nil {
				// A fragment that ends with a return (`return srv.ListenAndServe()`) gets
				// the uses of its variables before that return, and no return of ours.
				if k := len(d.Body.List); k >= 2 {
					if ret, ok := d.Body.List[k-2].(*ast.ReturnStmt); ok {
						off := fset.PositionFor(ret.Pos(), false).Offset - len(head)
						finalReturn = strings.LastIndex(body.String()[:off], "\n") + 1
						finalLine = fset.Position(ret.Pos()).Line
					}
				}
				for _, st := range d.Body.List {
					for _, n := range definedBy(st) {
						declared[n] = true
						if n != "_" && !slices.Contains(bodyDecls, n) {
							bodyDecls = append(bodyDecls, n)
						}
					}
				}
			}
		}
	}
	used := usedNames(f)

	var params []string
	for _, n := range sortedKeys(docsFreeNames) {
		if used[n] && !declared[n] {
			params = append(params, n+" "+docsFreeNames[n])
			for _, pkg := range packagesIn(docsFreeNames[n]) {
				used[pkg] = true
			}
		}
	}
	var imports []string
	for _, n := range sortedKeys(docsPackages) {
		if used[n] && !imported[n] && !declared[n] {
			imports = append(imports, fmt.Sprintf("import %s %q\n", n, docsPackages[n]))
			paths = append(paths, docsPackages[n])
		}
	}
	var out strings.Builder
	out.WriteString("package doccheck\n\n")
	for _, imp := range imports {
		out.WriteString(imp)
	}
	out.WriteString(decls.String())
	fmt.Fprintf(&out, "\nfunc _(%s) error {\n", strings.Join(params, ", "))
	code, final := body.String(), ""
	if finalReturn >= 0 {
		code, final = code[:finalReturn], directive(finalLine)+code[finalReturn:]
	}
	out.WriteString(code)
	out.WriteString("\n")
	for _, n := range bodyDecls {
		fmt.Fprintf(&out, "_ = %s\n", n)
	}
	if final != "" {
		out.WriteString(final + "}\n")
	} else {
		out.WriteString("return nil\n}\n")
	}
	return out.String(), moduleFor(paths), nil
}

// splitFragment sends the top-level import, type and func declarations of a fragment to
// decls and every other line to body, each run of lines behind a //line directive.
func splitFragment(code string, first int, directive func(int) string, decls, body *strings.Builder) {
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	var (
		cur     *strings.Builder
		inDecl  bool
		closing string
	)
	for i, line := range lines {
		target := body
		if inDecl {
			target = decls
		} else if d, end := declStart(line); d {
			target, inDecl, closing = decls, end != "", end
		}
		if target != cur {
			target.WriteString("\n" + directive(first+i))
			cur = target
		}
		target.WriteString(line + "\n")
		if inDecl && target == decls && closing != "" && line == closing && i > 0 {
			inDecl = false
		}
	}
}

// declStart reports whether line opens a top-level declaration, and the line that closes it
// ("" for a declaration on one line).
func declStart(line string) (bool, string) {
	for _, kw := range []string{"import", "type", "func"} {
		if !strings.HasPrefix(line, kw+" ") && !strings.HasPrefix(line, kw+"(") {
			continue
		}
		switch t := strings.TrimSpace(stripComments(line)); {
		case strings.HasSuffix(t, "("):
			return true, ")"
		case strings.HasSuffix(t, "{"):
			return true, "}"
		default:
			return true, ""
		}
	}
	return false, ""
}

// definedBy returns the names a top-level statement of a function body declares.
func definedBy(st ast.Stmt) []string {
	var names []string
	switch st := st.(type) {
	case *ast.AssignStmt:
		if st.Tok == token.DEFINE {
			for _, e := range st.Lhs {
				if id, ok := e.(*ast.Ident); ok {
					names = append(names, id.Name)
				}
			}
		}
	case *ast.DeclStmt:
		if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
			for _, s := range g.Specs {
				for _, n := range s.(*ast.ValueSpec).Names {
					names = append(names, n.Name)
				}
			}
		}
	}
	return names
}

// usedNames returns every identifier the file refers to: the operands of selectors (package
// names among them) and plain identifiers, but not field or method names after a dot or the
// keys of composite literals.
func usedNames(f *ast.File) map[string]bool {
	used := map[string]bool{}
	skip := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			skip[n.Sel] = true
		case *ast.KeyValueExpr:
			if id, ok := n.Key.(*ast.Ident); ok {
				skip[id] = true
			}
		case *ast.ImportSpec:
			return false
		case *ast.Ident:
			if !skip[n] {
				used[n.Name] = true
			}
		}
		return true
	})
	return used
}

func moduleFor(paths []string) string {
	for _, p := range paths {
		for _, m := range docsModules {
			if strings.HasPrefix(p, m.prefix) {
				return m.module
			}
		}
	}
	return "."
}

var typePackage = regexp.MustCompile(`([a-z]+)\.`)

func packagesIn(typ string) []string {
	var out []string
	for _, m := range typePackage.FindAllStringSubmatch(typ, -1) {
		out = append(out, m[1])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var lineComment = regexp.MustCompile(`(?m)//.*$`)

func stripComments(s string) string { return lineComment.ReplaceAllString(s, "") }
