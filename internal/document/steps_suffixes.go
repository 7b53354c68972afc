package document

import (
	"cmp"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A step's own text may end with parenthesised suffixes, in any order, that say what the
// step is: "- [ ] Deploy (after 3) (uses deploy_prod) (proof smoke_test) (review) (budget 20k tokens, 10m)".
// A holder's tag, a move's notes (after " — ") and its marks follow them; the text keeps
// them as written. suffixKinds is the one place that reads them.

// suffixKind is one kind of suffix: how its group reads, what it sets on a Step, and why a
// move may not change it.
type suffixKind struct {
	// keyword starts the inside of its group; no keyword of the table starts another.
	keyword string
	open    string // "(" and keyword: a text without it has no such suffix
	family  suffixFamily
	// read reads the inside of one group, keyword cut off, into the kind's field of s on top
	// of what later groups of the same run set; false, leaving s as it was, when the group
	// is no such suffix (it is then skipped like any other group).
	read func(arg string, s *Step) bool
	// take sets the kind's field of s to run's; same compares the field of a and b.
	take func(s, run *Step)
	same func(a, b *Step) bool
	// noteReason refuses a move whose note would change what the kind reads.
	noteReason string
}

// suffixFamily: the kinds of a family are read together from one run of groups, the last
// one, looking before each " — " from the end, that has any of them. "(after …)" with
// "(uses …)" and "(review)" with "(budget …)" have always been read so, apart from each
// other, and stored plans keep saying what they said.
type suffixFamily uint8

const (
	familyGraph suffixFamily = 1 << iota // what the step waits for and the tools it may use
	familyAsks                           // what it asks of whoever does it
)

// suffixKinds are the suffixes a step's text may end with. To add one, add an entry made
// with kindOf: its keyword, its family, the Step field it fills, the reader of its argument,
// and the reason (errors.go) refusing a note that would change it; then give
// TestEveryKindReadsAlone an example of it. "(proof …)" is read with the tools it goes with
// ("(uses …)"), so a run such as "(uses edit_file) (proof run_tests)" reads in either order.
var suffixKinds = [...]suffixKind{
	kindOf("after ", familyGraph, func(s *Step) *[]int { return &s.After }, readAfter, reasonNoteAfter),
	kindOf("uses ", familyGraph, func(s *Step) *[]string { return &s.Uses }, readToolList, reasonNoteUses),
	kindOf("proof ", familyGraph, func(s *Step) *[]string { return &s.Proof }, readToolList, reasonNoteProofTools),
	kindOf("review", familyAsks, func(s *Step) *bool { return &s.Review }, readFlag, reasonNoteAsks),
	kindOf("budget ", familyAsks, func(s *Step) **Budget { return &s.Budget }, readBudget, reasonNoteAsks),
}

// kindOf is the suffixKind whose value is field, read by read.
func kindOf[T any](keyword string, family suffixFamily, field func(*Step) *T, read func(arg string, v *T) bool, noteReason string) suffixKind {
	return suffixKind{
		keyword: keyword,
		open:    "(" + keyword,
		family:  family,
		read:    func(arg string, s *Step) bool { return read(arg, field(s)) },
		take:    func(s, run *Step) { *field(s) = *field(run) },
		same:    func(a, b *Step) bool { return reflect.DeepEqual(*field(a), *field(b)) },

		noteReason: noteReason,
	}
}

// readSuffixes sets the fields of s the suffixes of its text give, each family's from the
// last run of groups that has one of its kinds, or zero. A group is "(" and ")" with no
// parenthesis between; spaces around groups are skipped; a run ends at the first other
// text. Its time is linear in len(s.Text).
func readSuffixes(s *Step) {
	var pending suffixFamily
	for _, k := range suffixKinds {
		k.take(s, &noSuffixes)
		if strings.Contains(s.Text, k.open) {
			pending |= k.family
		}
	}
	text := s.Text
	for pending != 0 {
		var run Step
		if found := readRun(text, &run) & pending; found != 0 {
			for _, k := range suffixKinds {
				if k.family&found != 0 {
					k.take(s, &run)
				}
			}
			pending &^= found
		}
		i := strings.LastIndex(text, StepNoteSep)
		if i < 0 {
			return
		}
		text = text[:i]
	}
}

// noSuffixes is a step whose text ends with none: what readSuffixes starts from. Read only;
// a package variable, so starting costs no allocation per step.
var noSuffixes Step

// readRun reads the run of groups that ends text into run, and returns the families of
// the kinds it read.
func readRun(text string, run *Step) (found suffixFamily) {
	for {
		text = strings.TrimRight(text, " ")
		if !strings.HasSuffix(text, ")") {
			return found
		}
		i := strings.LastIndexAny(text[:len(text)-1], "()")
		if i < 0 || text[i] != '(' {
			return found
		}
		group := text[i+1 : len(text)-1]
		text = text[:i]
		for _, k := range suffixKinds {
			if arg, ok := strings.CutPrefix(group, k.keyword); ok {
				if k.read(arg, run) {
					found |= k.family
				}
				break
			}
		}
	}
}

// changedSuffix is the first kind whose value differs between a and b; nil when none does.
func changedSuffix(a, b *Step) *suffixKind {
	for i := range suffixKinds {
		if !suffixKinds[i].same(a, b) {
			return &suffixKinds[i]
		}
	}
	return nil
}

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
