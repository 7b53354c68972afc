package document

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The readers of suffixKinds' arguments. Each changes its value only when it reads.

// readFlag reads a suffix without argument, "(review)".
func readFlag(arg string, v *bool) bool {
	if arg != "" {
		return false
	}
	*v = true
	return true
}

// maxAfterStep bounds a number read from "(after …)": anything larger names no step.
const maxAfterStep = 1 << 20

// afterArg is what follows "after " in "(after 2, 3)": "step"/"steps" may precede the
// numbers, commas may lack the space. What it means is in graph.go.
var afterArg = regexp.MustCompile(`^(?:steps? )?([0-9]{1,8}(?:, ?[0-9]{1,8})*)$`)

// readAfter adds the step numbers of an "(after …)" to v, ascending without repeats.
func readAfter(arg string, v *[]int) bool {
	m := afterArg.FindStringSubmatch(arg)
	if m == nil {
		return false
	}
	var nums []int
	for f := range strings.SplitSeq(m[1], ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n > maxAfterStep {
			n = maxAfterStep + 1 // names no step
		}
		nums = append(nums, n)
	}
	*v = sortedUnion(*v, nums)
	return true
}

// maxToolNameLen bounds a name read from "(uses …)": a longer one makes the list no list.
const maxToolNameLen = 128

// readToolList adds the names of "a, b" to v, sorted without repeats. A name is 1 to
// maxToolNameLen bytes of UTF-8 without spaces, control characters, commas or
// parentheses; a list with any other entry is no list, so a "(uses …)" unlocks nothing.
func readToolList(arg string, v *[]string) bool {
	var names []string
	for f := range strings.SplitSeq(arg, ",") {
		name := strings.TrimSpace(f)
		if name == "" || len(name) > maxToolNameLen || !utf8.ValidString(name) || strings.ContainsFunc(name, notInToolName) {
			return false
		}
		names = append(names, name)
	}
	*v = sortedUnion(*v, names)
	return true
}

func notInToolName(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == ',' || r == '(' || r == ')'
}

// readBudget reads "20k tokens", "10m" or both (parseBudget). Read from the end, the
// leftmost "(budget …)" of a run is the one that counts.
func readBudget(arg string, v **Budget) bool {
	b, ok := parseBudget(arg)
	if ok {
		*v = &b
	}
	return ok
}

func sortedUnion[T cmp.Ordered](v, add []T) []T {
	v = append(v, add...)
	slices.Sort(v)
	return slices.Compact(v)
}
