package document

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// What a step cost is written with the step when it leaves in_progress, after any note and
// before the evidence, as " — cost: 12400+380 tokens, 7 calls, 4 tools, 80s": prompt and
// completion tokens, model calls, tool calls and wall time, attributed by the middleware to
// the step its agent held (costs.go). Calls whose model reported no usage are counted and
// said: "7 calls (2 without usage)"; with none reporting usage there are no tokens at all.

// maxCount bounds every number of a cost, so a line stays short and sums never overflow.
const maxCount = 1e15

// MaxCount is the largest count a cost carries: sums saturate at it (AddCount).
const MaxCount = maxCount

// ValidCost reports whether every count of c is one a line can carry.
func ValidCost(c StepCost) bool {
	for _, n := range []int64{c.PromptTokens, c.CompletionTokens, int64(c.ModelCalls), int64(c.NoUsage), int64(c.ToolCalls), c.Seconds} {
		if n < 0 || n > maxCount {
			return false
		}
	}
	return c.NoUsage <= c.ModelCalls
}

var costPattern = regexp.MustCompile(`^(?:([0-9]{1,16})\+([0-9]{1,16}) tokens, )?([0-9]{1,16}) calls?(?: \(([0-9]{1,16}) without usage\))?, ([0-9]{1,16}) tools?, ([0-9]{1,16})s$`)

// costOf reads the cost a step's line carries, before its evidence; nil for none.
func costOf(text string) *StepCost {
	i := strings.Index(text, costSep)
	if i < 0 {
		return nil
	}
	rest := text[i+len(costSep):]
	if j := strings.Index(rest, evidenceSep); j >= 0 {
		rest = rest[:j]
	} else {
		rest, _ = SplitHolder(rest)
		rest, _ = cutReviewMark(rest)
		rest = cutReviewedMark(rest)
	}
	m := costPattern.FindStringSubmatch(rest)
	if m == nil {
		return nil
	}
	n := func(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }
	c := &StepCost{PromptTokens: n(m[1]), CompletionTokens: n(m[2]), ModelCalls: int(n(m[3])), NoUsage: int(n(m[4])), ToolCalls: int(n(m[5])), Seconds: n(m[6])}
	if m[1] == "" && c.NoUsage != c.ModelCalls || !ValidCost(*c) {
		return nil
	}
	return c
}

// WholeSeconds is d in whole seconds, rounded to the nearest.
func WholeSeconds(d time.Duration) int64 { return int64((d + time.Second/2) / time.Second) }

// MaxCallTokens is the most tokens one model call may report in each of its counts: a
// usage above it (or below zero) is no usage, counted as such and reported, never summed.
const MaxCallTokens = 1e9

// UsageReads reports whether prompt and completion counts of one model call are ones to sum.
func UsageReads(prompt, completion int64) bool {
	return prompt >= 0 && completion >= 0 && prompt <= MaxCallTokens && completion <= MaxCallTokens
}

// AddCount is a+b of two counts of a cost, saturating at the largest count a line carries
// (and at zero below), so sums never overflow into a cost that looks small.
func AddCount(a, b int64) int64 {
	a, b = min(max(a, 0), maxCount), min(max(b, 0), maxCount)
	return min(a+b, maxCount)
}

// secondsOf is n seconds as a duration, saturating instead of overflowing.
func secondsOf(n int64) time.Duration {
	if n <= 0 {
		return 0
	}
	if n > int64(math.MaxInt64/time.Second) {
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// addDuration is a+b of two non-negative durations, saturating instead of overflowing.
func addDuration(a, b time.Duration) time.Duration {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
