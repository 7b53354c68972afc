package document

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

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
