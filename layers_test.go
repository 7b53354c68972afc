package plan

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// The layers of CONTRIBUTING.md, checked on the source: dependencies point down only.
//   - The Store and the document (store*.go, history.go, actor.go, watch.go, approval*.go, registry.go,
//     steps*.go, plan*.go, codec.go, names.go, errors.go) never name a tool parameter, a text
//     table or the tools' environment: they speak Store vocabulary (facts).
//   - The tools and the middleware reach the Store through its exported API, plus the few
//     unexported seams listed in toolSeams, which hosts have no use for.
func TestLayersPointDownOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	params := map[string]bool{}
	parsed := map[string]*ast.File{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed[name] = f
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							if cl, ok := vs.Values[i].(*ast.CompositeLit); ok {
								if id, ok := cl.Type.(*ast.Ident); ok && id.Name == "param" {
									params[n.Name] = true
								}
							}
						}
					}
				}
			}
		}
	}
	if len(params) < 10 {
		t.Fatalf("found only %d tool parameters: the check would prove nothing", len(params))
	}
	toolWords := map[string]bool{"textsEN": true, "textsZH": true, "toolEnv": true, "param": true}
	for name, f := range parsed {
		switch {
		case storeLayer(name):
			ast.Inspect(f, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && (params[id.Name] || toolWords[id.Name]) {
					t.Errorf("%s: the Store layer names the tool layer's %s", fset.Position(id.Pos()), id.Name)
				}
				return true
			})
		case toolLayer(name):
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				inner, ok := sel.X.(*ast.SelectorExpr)
				if !ok || inner.Sel.Name != "store" {
					return true
				}
				if m := sel.Sel.Name; !unicode.IsUpper(rune(m[0])) && !toolSeams[m] {
					t.Errorf("%s: the tool layer reaches into the Store's unexported %s", fset.Position(sel.Pos()), m)
				}
				return true
			})
		}
	}
}

// toolSeams are the unexported Store methods and fields the tools use: what a tool needs
// and a host does not (the plans folder the file tools keep out of, the cap for the size of
// a tool call's arguments, the approval
// interrupt's request and edited-body approval, read_plan's since_revision, the
// Workspace guard's storage identity, whether a lease still holds for the tool gate).
var toolSeams = map[string]bool{
	"contentCap": true, "dir": true, "approvalRequest": true, "approveContent": true, "changesSince": true, "backend": true, "holdLive": true,
	"summaries": true, "markWaiting": true, "now": true,
}

func storeLayer(name string) bool {
	for _, prefix := range []string{"store", "history", "actor", "watch", "approval", "registry", "steps", "plan", "codec", "names", "errors"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

func toolLayer(name string) bool {
	for _, prefix := range []string{"tool", "args", "params", "middleware", "digest", "agent_names", "gate", "reminders", "eino_seam"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// The check reads this folder's files; a missing one would make it vacuous.
func TestLayersCheckSeesTheSource(t *testing.T) {
	for _, name := range []string{"store.go", "tools.go", "params.go", "middleware.go"} {
		if _, err := os.Stat(name); err != nil {
			t.Fatal(err)
		}
	}
}
