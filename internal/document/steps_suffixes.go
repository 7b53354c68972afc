package document

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A step names the gated tools (Config.GatedTools) it may use with "(uses deploy_prod,
// write_file)" at the end of its text, in any order with its "(after …)" and with other
// parenthesised suffixes, before any note a move appended and its holder's tag:
// "- [ ] Deploy (after 3) (uses deploy_prod)". Under GatedTools a held step of an approved
// plan unlocks exactly the tools it names; a step that names none unlocks none.

// maxToolNameLen bounds a name read from "(uses …)": a longer one makes the list no list.
const maxToolNameLen = 128

// stepSuffixes reads what a step's own text says of itself: the steps it waits for
// ("(after …)", ascending, without repeats) and the tools it may use ("(uses …)", sorted,
// without repeats). They are read from the parenthesised groups that end the text once
// notes are cut off: the last run of groups, looking before each " — " from the end, that
// has an "(after …)" or "(uses …)"; other groups among them (a holder's tag, "(review)")
// are skipped. Both are nil when there is none.
func stepSuffixes(text string) (after []int, uses []string) {
	if !strings.Contains(text, "(after ") && !strings.Contains(text, "(uses ") {
		return nil, nil
	}
	rest := text
	for {
		if after, uses, ok := suffixRun(rest); ok {
			return after, uses
		}
		// A note appended by a move follows the step's own text: look before it.
		i := strings.LastIndex(rest, StepNoteSep)
		if i < 0 {
			return nil, nil
		}
		rest = rest[:i]
	}
}

// suffixRun reads the parenthesised groups that end s; ok reports whether one of them is an
// "(after …)" or a "(uses …)". A group is "(" and ")" with no parenthesis between; the run
// ends at the first text that is no such group.
func suffixRun(s string) (after []int, uses []string, ok bool) {
	for strings.HasSuffix(s, ")") {
		i := strings.LastIndexAny(s[:len(s)-1], "()")
		if i < 0 || s[i] != '(' {
			break
		}
		group := s[i+1 : len(s)-1]
		if m := afterGroup.FindStringSubmatch(group); m != nil {
			after, ok = append(after, parseAfterList(m[1])...), true
		} else if names, isUses := usesList(group); isUses {
			uses, ok = append(uses, names...), true
		}
		s = strings.TrimRight(s[:i], " ")
	}
	if !ok {
		return nil, nil, false
	}
	slices.Sort(after)
	slices.Sort(uses)
	return slices.Compact(after), slices.Compact(uses), true
}

// usesList reads "uses a, b" (the inside of a "(uses …)"): the names, and whether group is
// such a list. A name is 1 to maxToolNameLen bytes of UTF-8 without spaces, control
// characters, commas or parentheses;
// a list with any other entry is no list, so it unlocks nothing.
func usesList(group string) ([]string, bool) {
	list, found := strings.CutPrefix(group, "uses ")
	if !found {
		return nil, false
	}
	var names []string
	for f := range strings.SplitSeq(list, ",") {
		name := strings.TrimSpace(f)
		if name == "" || len(name) > maxToolNameLen || !utf8.ValidString(name) || strings.ContainsFunc(name, notInToolName) {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

// notInToolName reports whether r may not be part of a name in "(uses …)": spaces, control
// characters, commas and parentheses.
func notInToolName(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' || r == '(' || r == ')'
}

// The inside of a step's "(after 2, 3)": what it means is in graph.go.

// maxAfterStep bounds a number read from "(after …)": anything larger names no step.
const maxAfterStep = 1 << 20

// afterGroup is the inside of "(after 2, 3)" ("step"/"steps" may precede the numbers, commas
// may lack the space).
var afterGroup = regexp.MustCompile(`^after (?:steps? )?([0-9]{1,8}(?:, ?[0-9]{1,8})*)$`)

func parseAfterList(list string) []int {
	var out []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n > maxAfterStep {
			n = maxAfterStep + 1 // names no step
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
