package document

import (
	"slices"
	"strings"
	"sync"

	"github.com/einoplan/plan/internal/markdown"
)

// readHolder sets Holder from Text: only a step in progress is held.
func readHolder(s *Step) {
	s.Holder = ""
	if s.State == StepInProgress {
		_, s.Holder = SplitHolder(s.Text)
	}
}

// ParseStepState accepts exactly the five state names and rejects anything else with
// CodeInvalidArgument, listing the valid names.
func ParseStepState(s string) (StepState, error) {
	st := StepState(s)
	if MarkerOf(st) == 0 {
		return "", Fail(Error{Code: CodeInvalidArgument, Reason: reasonStepStateUnknown, Field: "status", Value: s})
	}
	return st, nil
}

// MarkerOf returns the marker character written for st, or 0 for an unknown state.
func MarkerOf(st StepState) byte {
	switch st {
	case StepPending:
		return ' '
	case StepInProgress:
		return '~'
	case StepCompleted:
		return 'x'
	case StepFailed:
		return '!'
	case StepSkipped:
		return '-'
	}
	return 0
}

// StateOf returns the state a marker character stands for, or "" for any other byte.
func StateOf(c byte) StepState {
	switch c {
	case ' ':
		return StepPending
	case '~':
		return StepInProgress
	case 'x', 'X':
		return StepCompleted
	case '!':
		return StepFailed
	case '-':
		return StepSkipped
	}
	return ""
}

// ParseSteps returns the checklist items of body in document order, or nil when there are
// none. Body is read as CommonMark: a step is a list item ("-", "*", "+", "1." or "1)", in
// blockquotes and nested lists too) whose first block is a paragraph starting with a marker
// "[c]", c being one of the marker characters, followed by a space or the end of the line.
// Nothing inside a code block (fenced, even unclosed, or indented) or an HTML block or
// comment is a step, nor is a paragraph that a setext underline turns into a heading. It
// never fails, and its time grows linearly with len(body).
func ParseSteps(body string) []Step {
	return slices.Clone(StepsOf(body))
}

// parseSteps is ParseSteps without the memo.
func parseSteps(body string) []Step {
	n := strings.Count(body, "]") // an upper bound, exact enough for ordinary plans
	if n == 0 {
		return nil
	}
	if n > 128 {
		n = scanSteps(body, func(ScannedStep) bool { return true })
		if n == 0 {
			return nil
		}
	}
	var steps []Step
	scanSteps(body, func(it ScannedStep) bool {
		if steps == nil {
			steps = make([]Step, 0, n)
		}
		readHolder(&it.Step)
		readSuffixes(&it.Step)
		readProof(&it.Step)
		steps = append(steps, it.Step)
		return true
	})
	return steps
}

// RenderSteps writes steps as a checklist: one "- [c] text" line per step, indented two
// spaces per Depth level. For steps as ParseSteps returns them, ParseSteps of the result
// reproduces Number, State, Text and Depth, with Line equal to the index. Number and Line
// are not read; an unknown State is written as pending; Text must not contain "\n".
func RenderSteps(steps []Step) string {
	var b strings.Builder
	size := 0
	for _, s := range steps {
		size += 2*max(s.Depth, 0) + len("- [ ] ") + len(s.Text) + len("\r\n")
	}
	b.Grow(size)
	for _, s := range steps {
		for range max(s.Depth, 0) {
			b.WriteString("  ")
		}
		c := MarkerOf(s.State)
		if c == 0 {
			c = ' '
		}
		b.WriteString("- [")
		b.WriteByte(c)
		b.WriteByte(']')
		if s.Text != "" {
			b.WriteByte(' ')
			b.WriteString(s.Text)
		}
		// A text that itself ends in "\r" keeps it only if a "\r\n" ending follows.
		if strings.HasSuffix(s.Text, "\r") {
			b.WriteByte('\r')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ScannedStep is a step with the byte offsets setStepState edits: marker is the offset of
// the marker character, end the offset where the line's content ends (before "\r\n" or "\n").
type ScannedStep struct {
	Step   Step
	Marker int
	End    int
}

// stepMarkers are the characters stateOf knows.
const stepMarkers = " ~xX!-"

// scanSteps calls yield with each step of body in document order until yield returns
// false, and returns the number of steps it passed to yield. Steps are found by reading the
// body's CommonMark block structure (internal/markdown).
func scanSteps(body string, yield func(ScannedStep) bool) (count int) {
	return markdown.Items(body, stepMarkers, func(it markdown.Item) bool {
		return yield(ScannedStep{
			Step:   Step{Number: it.Number, State: StateOf(it.Marker), Text: it.Text, Depth: it.Depth, Line: it.Line},
			Marker: it.MarkerOffset,
			End:    it.End,
		})
	})
}

// TitleFromContent returns the body's first heading cut to maxHeaderField bytes, or "".
func TitleFromContent(content string) string {
	t, _ := markdown.FirstHeading(content)
	if len(t) > MaxHeaderField {
		t = TruncateUTF8(t, MaxHeaderField)
	}
	return t
}

// stepsMemoBytes bounds the bodies whose steps are remembered; past it the memo starts over.
const stepsMemoBytes = 4 << 20

// stepsMemo remembers the steps of the bodies parsed last: a plan is parsed again and again
// while unchanged (every read, the two sides of every write), and a lookup costs a hash of
// the body instead of a parse.
var stepsMemo struct {
	mu     sync.Mutex
	bodies map[string][]Step
	bytes  int
}

// StepsOf is ParseSteps(body) shared with other callers: never change what it returns.
func StepsOf(body string) []Step {
	stepsMemo.mu.Lock()
	steps, ok := stepsMemo.bodies[body]
	stepsMemo.mu.Unlock()
	if ok {
		return steps
	}
	steps = parseSteps(body)
	stepsMemo.mu.Lock()
	if stepsMemo.bodies == nil || stepsMemo.bytes+len(body) > stepsMemoBytes {
		stepsMemo.bodies, stepsMemo.bytes = make(map[string][]Step), 0
	}
	if len(body) <= stepsMemoBytes/16 {
		stepsMemo.bodies[body] = steps
		stepsMemo.bytes += len(body)
	}
	stepsMemo.mu.Unlock()
	return steps
}

// reviewMove is what a completion does to a step asking for review.
type reviewMove int

const (
	reviewNone reviewMove = iota
	ReviewInto            // its doer completes it: it stays in_progress, awaiting review
	ReviewDone            // another agent or a person completes the review
)

// readProof fills the fields of s that its line's evidence, cost and review mark give.
func readProof(s *Step) {
	s.Evidence = evidenceOf(s.Text)
	if strings.Contains(s.Text, costSep) {
		s.Cost = costOf(s.Text)
	}
	r := reviewOf(*s)
	s.AwaitingReview, s.DoneBy = r.awaiting, r.doneBy
	readObserved(s)
	s.OverBudget = stepOverBudget(*s)
}
