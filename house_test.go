package plan

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxExported is what the root package may export: the names hosts and agent builders use,
// each of which a test of the public API names. What only backend authors need belongs in
// package driver, machinery in internal/; a new name here replaces one, it does not add one.
const maxExported = 110

// The root package exports at most maxExported names, counted as go/ast sees them: exported
// consts, vars, types, funcs, and methods on exported types, including the methods a type
// the root aliases from another package of the repository brings along.
func TestExportedNamesStayWithinBudget(t *testing.T) {
	names := exportedNames(t, ".")
	if len(names) < 50 {
		t.Fatalf("counted only %d exported names: the count would prove nothing", len(names))
	}
	if len(names) > maxExported {
		sort.Strings(names)
		t.Errorf("the root package exports %d names, over %d: %s", len(names), maxExported, strings.Join(names, " "))
	}
	t.Logf("%d exported names", len(names))
}

// builtinBackend are the packages of MemoryBackend and LocalBackend: their methods are the
// Backend and the capabilities of package driver, counted there.
var builtinBackend = map[string]bool{"internal/memfs": true, "internal/localfs": true}

// exportedNames lists what the package in dir exports; an alias of a type declared in a
// package of this repository counts with that type's exported methods.
func exportedNames(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, f := range parseDir(t, dir) {
		imports := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				imports[filepath.Base(p)] = rel
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				} else if recv := receiverName(d); ast.IsExported(recv) {
					names = append(names, recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if !spec.Name.IsExported() {
							continue
						}
						names = append(names, spec.Name.Name)
						if sel, ok := spec.Type.(*ast.SelectorExpr); ok && spec.Assign.IsValid() {
							if pkg, ok := sel.X.(*ast.Ident); ok && imports[pkg.Name] != "" && !builtinBackend[imports[pkg.Name]] {
								for _, m := range methodsOf(t, imports[pkg.Name], sel.Sel.Name) {
									names = append(names, spec.Name.Name+"."+m)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	return names
}

// methodsOf returns the exported methods declared on type name in the package in dir.
func methodsOf(t *testing.T, dir, name string) []string {
	var out []string
	for _, f := range parseDir(t, dir) {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && fd.Name.IsExported() && receiverName(fd) == name {
				out = append(out, fd.Name.Name)
			}
		}
	}
	return out
}

// receiverName is the name of the type a method is declared on.
func receiverName(fd *ast.FuncDecl) string {
	recv := fd.Recv.List[0].Type
	if star, ok := recv.(*ast.StarExpr); ok {
		recv = star.X
	}
	switch r := recv.(type) {
	case *ast.IndexExpr:
		recv = r.X
	case *ast.IndexListExpr:
		recv = r.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// parseDir parses the non-test Go files of dir.
func parseDir(t *testing.T, dir string) []*ast.File {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []*ast.File
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// modulePath is the import path every package of this repository starts with.
const modulePath = "github.com/einoplan/plan"

// Every package of every module of the repository stands in CONTRIBUTING.md's layer table,
// and its imports, as the go command reads them, point only to its own layer or the layers
// below it.
func TestLayersPointDownOnly(t *testing.T) {
	layers := readLayerTable(t, "CONTRIBUTING.md")
	if len(layers) < 8 {
		t.Fatalf("the layer table has %d layers: the check would prove little", len(layers))
	}
	imports := goListImports(t)
	if len(imports) < 20 {
		t.Fatalf("go list found only %d packages", len(imports))
	}
	for _, problem := range layerProblems(layers, imports) {
		t.Error(problem)
	}
}

// The check itself: an import of a layer above, a package the table misses and a row naming
// no package are each reported.
func TestLayerProblemsAreFound(t *testing.T) {
	layers := map[string]int{".": 0, "./internal/tools": 1, "./internal/engine": 2, "./gone": 2}
	imports := map[string][]string{
		".":                 {"./internal/tools"},
		"./internal/engine": {"./internal/tools"},
		"./internal/tools":  {"./internal/engine", "./internal/tools"},
		"./new":             nil,
	}
	got := strings.Join(layerProblems(layers, imports), "\n")
	for _, want := range []string{"./internal/engine imports ./internal/tools", "./new is in no layer", "names no package ./gone"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "./internal/tools imports") || strings.Contains(got, ". imports") {
		t.Errorf("a downward import was reported:\n%s", got)
	}
}

// layerProblems returns what breaks the layering: layers maps each package ("./dir", "."
// for the root) to its row, 0 the top; imports maps each package to the repository's
// packages it imports.
func layerProblems(layers map[string]int, imports map[string][]string) []string {
	var out []string
	for pkg, deps := range imports {
		at, ok := layers[pkg]
		if !ok {
			out = append(out, pkg+" is in no layer of CONTRIBUTING.md's table")
			continue
		}
		for _, dep := range deps {
			if to, ok := layers[dep]; ok && to < at {
				out = append(out, pkg+" imports "+dep+", a layer above it")
			}
		}
	}
	for pkg := range layers {
		if _, ok := imports[pkg]; !ok {
			out = append(out, "CONTRIBUTING.md's layer table names no package "+pkg)
		}
	}
	sort.Strings(out)
	return out
}

// readLayerTable reads the table under "## The layers": one row a layer, top first, its
// packages in backquotes in the second column.
func readLayerTable(t *testing.T, file string) map[string]int {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgRe := regexp.MustCompile("`(\\.[^`]*)`")
	layers := map[string]int{}
	in, row := false, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## The layers"
		case in && strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "|---") && !strings.HasPrefix(line, "| layer"):
			cols := strings.Split(line, "|")
			if len(cols) < 3 {
				continue
			}
			for _, m := range pkgRe.FindAllStringSubmatch(cols[2], -1) {
				if _, dup := layers[m[1]]; dup {
					t.Errorf("%s stands twice in the layer table", m[1])
				}
				layers[m[1]] = row
			}
			row++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return layers
}

// goListImports lists every package of the modules go.work uses, with the repository's
// packages each imports (tests left out), as paths relative to the root.
func goListImports(t *testing.T) map[string][]string {
	t.Helper()
	work, err := os.ReadFile("go.work")
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	use := regexp.MustCompile(`(?m)^\s+(\.[^\s]*)\s*$`)
	for _, m := range use.FindAllStringSubmatch(string(work), -1) {
		patterns = append(patterns, m[1]+"/...")
	}
	cmd := exec.Command("go", append([]string{"list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}, patterns...)...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	rel := func(p string) (string, bool) {
		if p == modulePath {
			return ".", true
		}
		if r, ok := strings.CutPrefix(p, modulePath+"/"); ok {
			return "./" + r, true
		}
		return "", false
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := rel(fields[0])
		if !ok {
			continue
		}
		imports[pkg] = nil
		for _, dep := range fields[1:] {
			if d, ok := rel(dep); ok {
				imports[pkg] = append(imports[pkg], d)
			}
		}
	}
	return imports
}
