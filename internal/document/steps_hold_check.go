package document

import "strings"

// A body written whole (a rewrite, an import) may keep holder tags, never add one.

// CheckNoNewHolds refuses a body written whole (a rewrite, an import, an edited approval)
// that would hold a step: only a step move writes holder tags, so each line ending in one
// must be a line cur already had, state and text alike, and no more often than cur had it.
// A step's text thus never names a holder that no move made, whatever its state, a copied
// line never makes a second hold, and a later move cannot turn either into one.
func CheckNoNewHolds(name string, cur *Plan, body string) error {
	if !strings.Contains(body, "(@") {
		return nil
	}
	var kept map[string]int // how many of cur's lines have this state + text, tagged or not
	for _, st := range StepsOf(body) {
		if _, h := SplitHolder(st.Text); h == "" {
			continue
		}
		if kept == nil {
			kept = map[string]int{}
			if cur != nil {
				for _, c := range StepsOf(cur.Content) {
					kept[holdKey(c)]++
				}
			}
		}
		line := holdKey(st)
		if kept[line] == 0 {
			return Fail(Error{Code: CodeInvalidArgument, Reason: reasonHoldInText, Name: name, Field: FieldContent, Step: st.Number, Value: st.Text})
		}
		kept[line]--
	}
	return nil
}

// holdKey is what a rewrite must keep of a step for its holder's tag to stay: its state and
// text, a budget it names and the cost the middleware wrote aside, so a person raises a step's
// budget without releasing it, and a rewrite may leave a finished step's cost out.
func holdKey(s Step) string {
	text := withoutBudget(s.Text)
	if c := costOf(text); c != nil {
		text = strings.Replace(text, costSep+c.String(), "", 1)
	}
	return string(s.State) + "\n" + text
}
