package plantest_test

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// go doc plantest points to backends/backendtest for the Backend conformance suite, which
// lives there, and does not claim to hold it.
func TestPackageDocNamesWhereTheConformanceSuiteIs(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "scripted.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	doc := f.Doc.Text()
	if !strings.Contains(doc, "backends/backendtest") {
		t.Errorf("package doc does not name backends/backendtest:\n%s", doc)
	}
	if strings.Contains(doc, "and a conformance suite") {
		t.Errorf("package doc claims plantest holds the conformance suite:\n%s", doc)
	}
}
