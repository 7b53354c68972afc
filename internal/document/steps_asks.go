package document

import "strings"

// What a step's own text asks for at its end, among its other parenthesised endings such as
// "(after 2)": "(review)" (steps_review.go) and "(budget 20k tokens)", "(budget 10m)" or
// "(budget 20k tokens, 10m)".

// stepAsks reads "(review)" and "(budget …)" among the parenthesised groups that end a
// step's own text, in any order, as stepSuffixes finds them: the last run of groups, looking
// before each " — " from the end, that has one of them (a step's own text may contain " — "
// too). A move never changes what they read (setStep refuses a note that would).
func stepAsks(text string) (review bool, budget Budget) {
	text, _ = SplitHolder(text)
	for {
		if review, budget, ok := asksRun(text); ok {
			return review, budget
		}
		i := strings.LastIndex(text, StepNoteSep)
		if i < 0 {
			return false, Budget{}
		}
		text = text[:i]
	}
}

// asksRun reads the parenthesised groups that end text; ok reports whether one of them is
// "(review)" or a "(budget …)" that reads.
func asksRun(text string) (review bool, budget Budget, ok bool) {
	for range 8 {
		text = strings.TrimRight(text, " ")
		if !strings.HasSuffix(text, ")") {
			break
		}
		i := strings.LastIndexByte(text, '(')
		if i < 0 {
			break
		}
		group := text[i+1 : len(text)-1]
		text = text[:i]
		switch {
		case group == "review":
			review, ok = true, true
		case strings.HasPrefix(group, "budget "):
			if b, read := parseBudget(strings.TrimPrefix(group, "budget ")); read {
				budget, ok = b, true
			}
		}
	}
	return review, budget, ok
}
