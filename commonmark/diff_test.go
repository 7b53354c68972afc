package commonmark

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/einoplan/plan/internal/markdown"

	"github.com/einoplan/plan"
)

// disagreement describes how plan and the oracle read body differently, or is "".
func disagreement(body string) string {
	want, wantTitle, wantHas, missing := oracleRead(body)
	got := plan.ParseSteps(body)
	if len(missing) > 0 {
		return fmt.Sprintf("goldmark made no checkbox of steps %v", missing)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("steps:\n got %+v\nwant %+v", got, want)
	}
	title, has := markdown.FirstHeading(body)
	if title != wantTitle || has != wantHas {
		return fmt.Sprintf("first heading: got %q (%v), want %q (%v)", title, has, wantTitle, wantHas)
	}
	return ""
}

// TestRegressions holds documents on which a line-based reading of steps went wrong, and
// documents the differential runs found hard.
func TestRegressions(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		wantSteps int
		wantTitle string
	}{
		{"fence indented 4 spaces is code, not a fence", "# T\n    ```\n- [ ] a\n- [ ] b\n", 2, "T"},
		{"unclosed fence ends with its list item", "- [ ] a\n  ```\n  - [ ] hidden\n- [ ] b\n- [ ] c\n", 3, ""},
		{"indented code is not a step", "Text\n\n    - [ ] x\n", 0, ""},
		{"a step inside an HTML comment", "<!--\n- [ ] x\n-->\n- [ ] y\n", 1, ""},
		{"task items inside a blockquote", "> - [ ] a\n> - [x] b\n", 2, ""},
		{"heading inside a fence is not the title", "```sh\n# install the deps first\n```\n# Real\n", 0, "Real"},
		{"setext heading", "Release plan\n===\n- [ ] a\n", 1, "Release plan"},
		{"paragraph underlined inside an item is a heading", "- [ ] a\n  ---\n- [ ] b\n", 1, "[ ] a"},
		{"HTML block hides items until a blank line", "<div>\n- [ ] x\n\n- [ ] y\n", 1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := disagreement(tt.body); d != "" {
				t.Fatalf("%q: %s", tt.body, d)
			}
			if n := len(plan.ParseSteps(tt.body)); n != tt.wantSteps {
				t.Fatalf("%q: %d steps, want %d", tt.body, n, tt.wantSteps)
			}
			if title, _ := markdown.FirstHeading(tt.body); title != tt.wantTitle {
				t.Fatalf("%q: title %q, want %q", tt.body, title, tt.wantTitle)
			}
		})
	}
}

// TestGeneratedCorpus compares plan with the oracle on a deterministic corpus and reports
// the agreement rate, which must be 100%.
func TestGeneratedCorpus(t *testing.T) {
	const n = 10000
	corpus := generateCorpus(1, n)
	agree, steps, titles := 0, 0, 0
	states := map[plan.StepState]int{}
	nested, crlf := 0, 0
	for i, body := range corpus {
		d := disagreement(body)
		if d == "" {
			agree++
			for _, s := range plan.ParseSteps(body) {
				steps++
				states[s.State]++
				if s.Depth > 0 {
					nested++
				}
			}
			if _, ok := markdown.FirstHeading(body); ok {
				titles++
			}
			if strings.Contains(body, "\r\n") {
				crlf++
			}
			continue
		}
		if agree+10 > i { // report the first few
			t.Errorf("document %d %q: %s", i, body, d)
		}
	}
	t.Logf("agreement with goldmark: %d/%d documents (%.2f%%); %d steps, %d documents with a heading",
		agree, n, 100*float64(agree)/n, steps, titles)
	fmt.Printf("commonmark differential: %d/%d generated documents agree (%.2f%%)\n", agree, n, 100*float64(agree)/n)
	if agree != n {
		t.Fatalf("%d of %d documents disagree", n-agree, n)
	}
	// The corpus must keep exercising what it is meant to.
	t.Logf("steps by state %v, %d nested, %d CRLF documents", states, nested, crlf)
	if len(states) != 5 || nested < n/10 || crlf < n/10 || titles < n/10 {
		t.Fatalf("corpus too narrow: states %v, %d nested steps, %d CRLF documents, %d with a heading", states, nested, crlf, titles)
	}
}

// hardDocs are documents on the edges of the block structure, the same as the root
// module's steps and title tests use.
var hardDocs = []string{
	"Intro\n\n    ```\n- [ ] a\n- [ ] b\n",
	"- [ ] a\n  ```\n  - [ ] hidden\n- [ ] b\n- [ ] c\n",
	"Intro\n\n    - [ ] x\n- [ ] y\n",
	"- [ ] a\n  <!-- - [ ] x\n  - [ ] y -->\n",
	"> - [ ] a\n> - [x] b\n>\n> > 1. [~] c\n",
	"- [ ] a\n  > - [ ] b\n",
	"> ```\n> - [ ] x\n- [ ] y\n",
	"```\n- [ ] x\n```\n ~~~\n- [ ] x\n~~~\n   ```\n- [ ] x\n   ```\n- [ ] y\n",
	"- [ ] a\ncontinued\n- [ ] b\n",
	"> - [ ] a\n[ ] not an item\n",
	"- # [ ] heading\n- > [ ] quote\n-\n  [ ] next line\n",
	"Text\n2. [ ] no\n\n2. [ ] yes\n",
	"-     [ ] code\n- [ ] item\n",
	"-\t[ ] a\n\t- [ ] b\n",
	"- [ ] a\n\t- [ ] a1\n\t\t- [ ] a11\n    - [ ] a2\n  \t- [ ] tab after spaces\n",
	"Intro\n\n## Goal\n# Later\n",
	"Intro\n\n    # not this\n\nSecond\n===\n",
	"<!--\n# not this\n-->\n# This\n",
	"Ship\nversion 2\n---\n",
	"[a]: /url\nTitle\n===\n",
	"[a]: /url\n===\n2. [ ] x\n",
	"[a]:\n/url\n'title\nstill' x\nT\n---\n",
	"> # Quoted\n",
	"#hashtag\n- [ ] a\n",
	"- [ ] a\r\n  - [x] b\r\n- [ ]\r\n-\r\n- [~] c\r",
	"<div>\n- [ ] x\n\n<span>\n- [ ] y\n\n- [ ] z\n<?php ?>\n- [-] w\n",
}

func TestHardDocs(t *testing.T) {
	for _, body := range hardDocs {
		if d := disagreement(body); d != "" {
			t.Errorf("%q: %s", body, d)
		}
	}
}

func FuzzDifferential(f *testing.F) {
	for _, body := range hardDocs {
		f.Add(body)
	}
	for _, body := range generateCorpus(2, 40) {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		if d := disagreement(body); d != "" {
			t.Fatalf("%q: %s", body, d)
		}
	})
}
