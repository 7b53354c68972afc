package document

import (
	"strconv"
	"strings"
	"time"
)

// What a step's own text asks for at its end, among its other parenthesised endings such as
// "(after 2)": "(review)" (steps_review.go) and "(budget 20k tokens)", "(budget 10m)" or
// "(budget 20k tokens, 10m)".

// isZero reports whether b bounds nothing.
func isZero(b Budget) bool { return b.Tokens <= 0 && b.Time <= 0 }

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

// parseBudget reads "20k tokens", "10m" or both, comma separated: tokens as a number with an
// optional k or m (thousands, millions), time as a Go duration.
func parseBudget(s string) (Budget, bool) {
	var b Budget
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if n, ok := strings.CutSuffix(part, " tokens"); ok {
			t, ok := parseTokenCount(n)
			if !ok {
				return Budget{}, false
			}
			b.Tokens = t
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d <= 0 {
			return Budget{}, false
		}
		b.Time = d
	}
	return b, !isZero(b)
}

// parseTokenCount reads "20k", "1.5m" or "20000".
func parseTokenCount(s string) (int64, bool) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || f*mult > 1e15 {
		return 0, false
	}
	return int64(f * mult), true
}
