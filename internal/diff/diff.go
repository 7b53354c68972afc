// Package diff computes line diffs (Myers' algorithm, bounded) and renders them as unified
// diff hunks, the form History, Diff and since_revision show. Applying the hunks to the old
// text always gives the new one, even where the edit bound cuts the search short.
package diff

import (
	"strconv"
	"strings"
)

// maxDiffEdits bounds the work of the line diff: past this many inserted plus deleted lines
// the changed middle is reported as one replaced block, which is still a correct diff.
const maxDiffEdits = 1000

// splitLines cuts s into lines that keep their "\n"; a last line without one is marked, as
// in diff(1), by "\n\\ No newline at end of file" when it is printed.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edit is one line of a diff script: ' ' kept, '-' deleted, '+' inserted.
type edit struct {
	op   byte
	line string
}

// Unified returns the hunks (@@ -a,b +c,d @@ and their lines) that turn a into b.
func Unified(a, b string, context int) string {
	script := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	for i := 0; i < len(script); {
		if script[i].op == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the first change to context lines after the last
		// change that is at most 2*context kept lines away from the next.
		start := max(i-context, 0)
		end := i
		for end < len(script) {
			if script[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(script) && script[run].op == ' ' {
				run++
			}
			if run == len(script) || run-end > 2*context {
				end = min(end+context, len(script))
				break
			}
			end = run
		}
		writeHunk(&out, script, start, end)
		i = end
	}
	return out.String()
}

func writeHunk(out *strings.Builder, script []edit, start, end int) {
	// Line numbers of the hunk's first line in a and b.
	aLine, bLine := 1, 1
	for _, e := range script[:start] {
		if e.op != '+' {
			aLine++
		}
		if e.op != '-' {
			bLine++
		}
	}
	aCount, bCount := 0, 0
	for _, e := range script[start:end] {
		if e.op != '+' {
			aCount++
		}
		if e.op != '-' {
			bCount++
		}
	}
	out.WriteString("@@ -" + hunkRange(aLine, aCount) + " +" + hunkRange(bLine, bCount) + " @@\n")
	for _, e := range script[start:end] {
		out.WriteByte(e.op)
		out.WriteString(e.line)
		if !strings.HasSuffix(e.line, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange is "line,count" as diff(1) writes it: ",1" is left out, and an empty range
// names the line before it.
func hunkRange(line, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(line-1) + ",0"
	case 1:
		return strconv.Itoa(line)
	}
	return strconv.Itoa(line) + "," + strconv.Itoa(count)
}

// diffLines returns a shortest edit script from a to b (Myers' greedy algorithm on the part
// between the common prefix and suffix), or, past maxDiffEdits, one that replaces that part.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	script := make([]edit, 0, len(a)+len(b)-pre-suf)
	for _, l := range a[:pre] {
		script = append(script, edit{' ', l})
	}
	script = append(script, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		script = append(script, edit{' ', l})
	}
	return script
}

func myers(a, b []string) []edit {
	n, m := len(a), len(b)
	replace := func() []edit {
		out := make([]edit, 0, n+m)
		for _, l := range a {
			out = append(out, edit{'-', l})
		}
		for _, l := range b {
			out = append(out, edit{'+', l})
		}
		return out
	}
	if n == 0 || m == 0 {
		return replace()
	}
	limit := min(n+m, maxDiffEdits)
	off := limit + 1
	v := make([]int, 2*limit+3)
	var trace [][]int
	found := -1
	for d := 0; d <= limit && found < 0; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return replace()
	}
	// Walk back from (n, m); trace[d] holds v before round d, for k in [-d-1, d+1].
	rev := make([]edit, 0, n+m)
	x, y := n, m
	for d := found; d > 0; d-- {
		prev := trace[d]
		at := func(k int) int { return prev[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, edit{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, edit{'+', b[y]})
		} else {
			x--
			rev = append(rev, edit{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, edit{' ', a[x]})
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
