package document

import (
	"regexp"
	"slices"
	"strings"

	"github.com/einoplan/plan/api"
)

// A step whose text ends with "(proof run_tests)" completes, by an agent, only on a fresh
// passing call of a tool it names that the host saw: the middleware records the calls an
// agent makes, while it holds a step, of the tools the step names in "(uses …)" or
// "(proof …)" (Observation), and the Store writes the call that proves the step on its
// line, " — observed: run_tests passed 12:03:04Z", before its cost and evidence. Only a
// step move writes that mark: a body written whole (a rewrite, an import) may keep it,
// never add or change it, as holder tags.

// Observation is one tool call the host saw, declared in package api.
type Observation = api.Observation

// observedSep starts the mark of what the host observed on a step's line.
const observedSep = StepNoteSep + "observed: "

// observedEntry is one observation as the mark writes it: the tool, its outcome, its time of
// day in UTC.
var observedEntry = regexp.MustCompile(`^[^\s,()]{1,128} (?:passed|failed) [0-9]{2}:[0-9]{2}:[0-9]{2}Z$`)

// ObservedMark is how the Store writes o after observedSep: "run_tests passed 12:03:04Z".
func ObservedMark(o Observation) string {
	outcome := "failed"
	if o.OK {
		outcome = "passed"
	}
	return o.Tool + " " + outcome + " " + o.At.UTC().Format("15:04:05") + "Z"
}

// Proven is the call of observed (oldest first, all under the step's current hold) that
// proves s done: the last call of one of its "(proof …)" tools, made after its last call of
// its other "(uses …)" tools, when that call passed. ok is false when there is no such call,
// when the last one failed, or when a "(uses …)" tool was called after it.
func Proven(s Step, observed []Observation) (proof Observation, ok bool) {
	for i := len(observed) - 1; i >= 0; i-- {
		o := observed[i]
		switch {
		case slices.Contains(s.Proof, o.Tool):
			return o, o.OK
		case slices.Contains(s.Uses, o.Tool):
			return Observation{}, false
		}
	}
	return Observation{}, false
}

// Watches reports whether the host records s's holder's calls of tool: s names it in
// "(uses …)" or "(proof …)".
func Watches(s Step, tool string) bool {
	return slices.Contains(s.Proof, tool) || slices.Contains(s.Uses, tool)
}

// observedOf reads the observation mark of a step's text; "" for none, or for text after
// the separator that is not the Store's mark.
func observedOf(text string) string {
	i := strings.LastIndex(text, observedSep)
	if i < 0 {
		return ""
	}
	rest := text[i+len(observedSep):]
	if j := strings.Index(rest, StepNoteSep); j >= 0 {
		rest = rest[:j]
	}
	rest, _ = SplitHolder(rest)
	rest, _ = cutReviewMark(rest)
	rest = cutReviewedMark(rest)
	if !observedEntry.MatchString(rest) {
		return ""
	}
	return rest
}

// readObserved sets s.Observed from its line, for a completed step or one awaiting review:
// the only steps a move leaves with the mark.
func readObserved(s *Step) {
	if s.State == StepCompleted || s.AwaitingReview {
		s.Observed = observedOf(s.Text)
	}
}

// checkNoNewObservations refuses a body written whole that would carry an observation mark
// cur does not: each line with the mark's separator must be a line cur had, state and text
// alike, and no more often than cur had it.
func checkNoNewObservations(name string, cur *Plan, body string) error {
	if !strings.Contains(body, observedSep) {
		return nil
	}
	var kept map[string]int
	for _, st := range StepsOf(body) {
		if !strings.Contains(st.Text, observedSep) {
			continue
		}
		if kept == nil {
			kept = map[string]int{}
			if cur != nil {
				for _, c := range StepsOf(cur.Content) {
					kept[string(c.State)+"\n"+c.Text]++
				}
			}
		}
		line := string(st.State) + "\n" + st.Text
		if kept[line] == 0 {
			return Fail(Error{Code: CodeInvalidArgument, Reason: reasonObservedInText, Name: name, Field: FieldContent, Step: st.Number, Value: st.Text})
		}
		kept[line]--
	}
	return nil
}
