package document

import (
	"reflect"
	"strings"
	"testing"
)

func FuzzParseSteps(f *testing.F) {
	f.Add("- [ ] a\n  - [x] b\n```\n- [ ] c\n```\n1. [~] d\r\n")
	f.Fuzz(func(t *testing.T, body string) {
		steps := ParseSteps(body)
		for i, s := range steps {
			if s.Number != i+1 {
				t.Fatalf("step %d numbered %d", i, s.Number)
			}
			if MarkerOf(s.State) == 0 {
				t.Fatalf("step %d has unknown state %q", s.Number, s.State)
			}
			if s.Depth < 0 || (i == 0 && s.Depth != 0) || (i > 0 && s.Depth > steps[i-1].Depth+1) {
				t.Fatalf("step %d has depth %d after %v", s.Number, s.Depth, steps[max(i-1, 0)])
			}
			if i > 0 && s.Line <= steps[i-1].Line {
				t.Fatalf("step %d on line %d, not after line %d", s.Number, s.Line, steps[i-1].Line)
			}
		}
		again := ParseSteps(RenderSteps(steps))
		if len(again) != len(steps) {
			t.Fatalf("re-parse found %d steps, want %d", len(again), len(steps))
		}
		for i, s := range steps {
			s.Line = i
			if !reflect.DeepEqual(again[i], s) {
				t.Fatalf("step %d re-parsed as %+v, want %+v", i+1, again[i], s)
			}
		}
		p := ComputeProgress(steps)
		if p.Total != len(steps) || p.Percent < 0 || p.Percent > 100 {
			t.Fatalf("progress %+v for %d steps", p, len(steps))
		}
	})
}

func FuzzSetStepState(f *testing.F) {
	f.Add("- [ ] a\r\n- [~] b\n", 2, uint8(2), "done")
	f.Fuzz(func(t *testing.T, body string, number int, state uint8, note string) {
		to := allStates[int(state)%len(allStates)]
		newBody, updated, err := setStepState(body, number, to, note)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("error without code: %v", err)
			}
			if newBody != "" {
				t.Fatalf("body returned with error %v", err)
			}
			return
		}
		before := ParseSteps(body)
		after := ParseSteps(newBody)
		if len(after) != len(before) {
			t.Fatalf("%d steps became %d", len(before), len(after))
		}
		if !reflect.DeepEqual(updated, after[number-1]) || updated.State != to {
			t.Fatalf("updated %+v, re-parsed %+v, want state %s", updated, after[number-1], to)
		}
		for i := range before {
			if i != number-1 && !reflect.DeepEqual(before[i], after[i]) {
				t.Fatalf("step %d changed: %+v -> %+v", i+1, before[i], after[i])
			}
		}
		oldLines := strings.Split(body, "\n")
		newLines := strings.Split(newBody, "\n")
		if len(oldLines) != len(newLines) {
			t.Fatalf("%d lines became %d", len(oldLines), len(newLines))
		}
		for i := range oldLines {
			if i != updated.Line && oldLines[i] != newLines[i] {
				t.Fatalf("line %d changed: %q -> %q", i, oldLines[i], newLines[i])
			}
		}
		old, cur := oldLines[updated.Line], newLines[updated.Line]
		// The line is the old one with one marker byte changed and the note before the ending.
		old, ending := strings.CutSuffix(old, "\r")
		added := ""
		if n := strings.TrimSpace(note); n != "" {
			added = StepNoteSep + n
		}
		want := old + added
		if ending {
			want += "\r"
		}
		if len(cur) != len(want) {
			t.Fatalf("line %d: %q -> %q", updated.Line, old, cur)
		}
		diff := 0
		for i := range len(cur) {
			if cur[i] != want[i] {
				diff++
			}
		}
		if diff != 1 {
			t.Fatalf("line %d: %q -> %q differs in %d bytes besides the note", updated.Line, old, cur, diff)
		}
	})
}
