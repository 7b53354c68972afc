package commonmark

import (
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/einoplan/plan"
)

// md is the oracle: goldmark with the GFM task list extension.
var md = goldmark.New(goldmark.WithExtensions(extension.TaskList))

// markers are the characters a step's brackets may hold.
const markers = " xX~!-"

// oracleRead returns the steps and first heading goldmark finds in body. A step is a list
// item whose first child is a paragraph whose text starts with "[c]", c one of markers,
// followed by a space or the end of the line.
func oracleRead(body string) (steps []plan.Step, title string, hasTitle bool, checkboxMissing []int) {
	src := []byte(body)
	doc := md.Parser().Parse(text.NewReader(src))
	isStep := map[ast.Node]bool{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if h, ok := n.(*ast.Heading); ok && !hasTitle {
			hasTitle = true
			parts := make([]string, 0, h.Lines().Len())
			for i := 0; i < h.Lines().Len(); i++ {
				seg := h.Lines().At(i)
				parts = append(parts, strings.Trim(string(src[seg.Start:seg.Stop]), " \t\r\n"))
			}
			title = strings.Join(parts, " ")
		}
		item, ok := n.(*ast.ListItem)
		if !ok {
			return ast.WalkContinue, nil
		}
		first := item.FirstChild()
		if first == nil || (first.Kind() != ast.KindParagraph && first.Kind() != ast.KindTextBlock) || first.Lines().Len() == 0 {
			return ast.WalkContinue, nil
		}
		at := first.Lines().At(0).Start
		for at < len(src) && strings.IndexByte(" \t\r\n", src[at]) >= 0 {
			at++
		}
		if len(src)-at < 3 || src[at] != '[' || src[at+2] != ']' || strings.IndexByte(markers, src[at+1]) < 0 {
			return ast.WalkContinue, nil
		}
		after := at + 3
		if !(after == len(src) || src[after] == ' ' || src[after] == '\n' ||
			src[after] == '\r' && (after+1 == len(src) || src[after+1] == '\n')) {
			return ast.WalkContinue, nil
		}
		isStep[item] = true
		depth := 0
		for p := item.Parent(); p != nil; p = p.Parent() {
			if isStep[p] {
				depth++
			}
		}
		end := len(src)
		if i := strings.IndexByte(body[at:], '\n'); i >= 0 {
			end = at + i
		}
		if end > at && src[end-1] == '\r' {
			end--
		}
		txt := ""
		if at+4 <= end {
			txt = body[at+4 : end]
		}
		var state plan.StepState
		switch src[at+1] {
		case ' ':
			state = plan.StepPending
		case '~':
			state = plan.StepInProgress
		case 'x', 'X':
			state = plan.StepCompleted
		case '!':
			state = plan.StepFailed
		case '-':
			state = plan.StepSkipped
		}
		steps = append(steps, plan.Step{
			Number: len(steps) + 1, State: state, Text: txt, Depth: depth,
			Line: strings.Count(body[:at], "\n"),
		})
		// The extension itself marks the GFM markers as checkboxes.
		if strings.IndexByte(" xX", src[at+1]) >= 0 {
			if _, ok := first.FirstChild().(*extast.TaskCheckBox); !ok {
				checkboxMissing = append(checkboxMissing, len(steps))
			}
		}
		return ast.WalkContinue, nil
	})
	return steps, title, hasTitle, checkboxMissing
}
