package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both languages say the same things: the same keys, each with the same placeholders, and
// a Chinese text wherever the English one is prose.
func TestMessageTablesHaveTheSameKeysAndPlaceholders(t *testing.T) {
	for key, en := range messagesEN {
		zh, ok := messagesZH[key]
		if !assert.True(t, ok, "messagesZH lacks %s", key) {
			continue
		}
		assert.ElementsMatch(t, placeholderNames(en), placeholderNames(zh), key)
		if prose.MatchString(codeSpan.ReplaceAllString(en, "")) {
			assert.Regexp(t, han, zh, "messagesZH[%q] is not Chinese", key)
		}
	}
	for key := range messagesZH {
		assert.Contains(t, messagesEN, key, "messagesEN lacks %s", key)
	}
	// The checks see a placeholder only one language has, and a text left in English.
	assert.NotElementsMatch(t, placeholderNames("{name} at {rev}"), placeholderNames("计划 {name}"))
	assert.True(t, prose.MatchString("no plans in {where}"))
}

// prose matches two English words in a row; codeSpan, a command line in backquotes; han, a
// Chinese character.
var (
	prose    = regexp.MustCompile(`[A-Za-z]{2,}[ ,;:]+[A-Za-z]{2,}`)
	codeSpan = regexp.MustCompile("`[^`]*`")
	han      = regexp.MustCompile(`\p{Han}`)
)

// Every message planctl prints is looked up by a key the tables have, given one value per
// placeholder where the call names its values, and every key is used.
func TestEveryMessageIsLookedUpWithItsValues(t *testing.T) {
	used := map[string]bool{}
	var literals []string
	for _, f := range sourceFiles(t) {
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING {
					literals = append(literals, s)
				}
			case *ast.CallExpr:
				var fn string
				switch f := n.Fun.(type) {
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				case *ast.Ident:
					fn = f.Name // check's say
				}
				if !slices.Contains([]string{"t", "say", "sayErr"}, fn) || len(n.Args) == 0 {
					return true
				}
				key, ok := stringLit(n.Args[0])
				if !ok {
					return true // a key made of a prefix and a value: word, plural
				}
				used[key] = true
				en, ok := messagesEN[key]
				if assert.True(t, ok, "%s: no message %q", f.fset.Position(n.Pos()), key) && !slices.ContainsFunc(n.Args, isSpread) {
					assert.Len(t, n.Args[1:], len(placeholderNames(en)), "%s: %q takes %v", f.fset.Position(n.Pos()), key, placeholderNames(en))
				}
			case *ast.CompositeLit:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "message" && len(n.Elts) == 2 {
					key, _ := stringLit(n.Elts[0])
					used[key] = true
					vals, _ := n.Elts[1].(*ast.CompositeLit)
					if assert.Contains(t, messagesEN, key) && assert.NotNil(t, vals) {
						assert.Len(t, vals.Elts, len(placeholderNames(messagesEN[key])), key)
					}
				}
			}
			return true
		})
	}
	for key := range messagesEN {
		if used[key] {
			continue
		}
		byPrefix := slices.ContainsFunc(literals, func(l string) bool {
			return l == key || strings.HasSuffix(l, ".") && strings.HasPrefix(key, l) || key == l+".one" || key == l+".other"
		})
		assert.True(t, byPrefix, "message %q is never printed", key)
	}
}

func isSpread(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "args" || ok && id.Name == "vals"
}

// No text for people is written outside the tables: no string literal with words is
// printed, formatted or made an error message, and no prose stands anywhere in the code
// but in the plan body import-plantask writes (a plan's text, which agents read as written).
func TestNoTextForPeopleOutsideTheMessageTables(t *testing.T) {
	printing := map[string]bool{"Fprintf": true, "Fprint": true, "Fprintln": true, "Printf": true, "Print": true, "Println": true,
		"Sprintf": true, "Sprint": true, "Errorf": true, "New": true, "WriteString": true}
	words := regexp.MustCompile(`[A-Za-z]{2,}`)
	verbs := regexp.MustCompile(`%[-+# 0-9.\[\]]*[a-zA-Z%]`)
	// Literals with words that are no text for people: URL schemes, the errors of package
	// flag that flagError reads to say them in the person's language, sentinel errors, and
	// the plan body import-plantask writes.
	allowed := []string{"redis://", "postgres://%s:%d/%s",
		flagUndefined, flagNoValue, flagBadValue, " for flag ", "-rev", "no key",
		"# Tasks from plantask\n\nImported from %s. Each step names the id its task had there: [task N].\n",
		"plantask status: ", "owner: ", "active form: ", "metadata: ", "(no subject)", "- [%s] %s [task %s]", " (after "}
	for _, f := range sourceFiles(t) {
		check := func(e ast.Expr, why string) {
			s, ok := stringLit(e)
			if ok && words.MatchString(verbs.ReplaceAllString(s, "")) && !slices.Contains(allowed, s) {
				t.Errorf("%s: %q %s outside the message tables", f.fset.Position(e.Pos()), s, why)
			}
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && printing[sel.Sel.Name] {
					for _, a := range n.Args {
						check(a, "is printed")
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "msg" {
					check(n.Value, "is an error message")
				}
			case *ast.BasicLit:
				s, _ := strconv.Unquote(n.Value)
				if n.Kind == token.STRING && prose.MatchString(s) && !slices.Contains(allowed, s) && !strings.HasPrefix(s, "# Written by planctl") && !strings.HasPrefix(s, "# changed through") {
					t.Errorf("%s: %q is prose outside the message tables", f.fset.Position(n.Pos()), s)
				}
			}
			return true
		})
	}
}

type sourceFile struct {
	fset *token.FileSet
	file *ast.File
}

// sourceFiles parses the package's Go files but its tests and its message tables.
func sourceFiles(t *testing.T) []sourceFile {
	t.Helper()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var out []sourceFile
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "messages_") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		out = append(out, sourceFile{fset, f})
	}
	require.NotEmpty(t, out)
	return out
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
