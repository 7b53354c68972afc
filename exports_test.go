package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
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
