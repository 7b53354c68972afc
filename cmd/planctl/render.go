package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

// progressText draws "[####------] 2/5", counting completed and skipped steps as done, or
// "-" for a plan without steps.
func progressText(p api.Progress) string {
	if p.Total == 0 {
		return "-"
	}
	const width = 10
	done := p.Completed + p.Skipped
	filled := done * width / p.Total
	return fmt.Sprintf("[%s%s] %d/%d", strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, p.Total)
}

// ANSI colours of the step states.
var stateColors = map[plan.StepState]string{
	plan.StepCompleted:  "\x1b[32m", // green
	plan.StepInProgress: "\x1b[33m", // yellow
	plan.StepFailed:     "\x1b[31m", // red
	plan.StepSkipped:    "\x1b[90m", // grey
}

const colorReset = "\x1b[0m"

// renderBody returns body ready for a terminal: control characters that could move the
// cursor or change colours are shown as '?', and with color each step line is coloured by
// its state.
func renderBody(body string, steps []plan.Step, color bool) string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		lines[i] = printable(strings.TrimSuffix(line, "\r"), '?')
	}
	if color {
		for _, s := range steps {
			if code, ok := stateColors[s.State]; ok && s.Line >= 0 && s.Line < len(lines) {
				lines[s.Line] = code + lines[s.Line] + colorReset
			}
		}
	}
	return strings.Join(lines, "\n")
}

// usesText lists the steps that name gated tools in "(uses …)" and what each may use
// ("step 2: deploy_prod; step 3: post_message, write_file; other steps: none"), "" when no
// step names any: under plan mode a step unlocks only the tools it names.
func (l lang) usesText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if len(s.Uses) > 0 {
			parts = append(parts, l.t("uses.step", s.Number, oneLine(strings.Join(s.Uses, ", "))))
		}
	}
	if parts == nil {
		return ""
	}
	if len(parts) < len(steps) {
		parts = append(parts, l.t("uses.others"))
	}
	return strings.Join(parts, l.t("sep"))
}

// proofText lists the steps a passing run proves ("(proof …)") and what the host observed
// of each, apart from the evidence an agent typed ("step 2: run_tests, observed run_tests
// passed 12:03:04Z; step 4: lint, not yet observed"); "" when no step names a proof.
func (l lang) proofText(steps []plan.Step) string {
	var parts []string
	for _, s := range steps {
		if len(s.Proof) == 0 && s.Observed == "" {
			continue
		}
		seen := l.t("proof.not_observed")
		if s.Observed != "" {
			seen = l.t("proof.observed", s.Observed)
		}
		parts = append(parts, l.t("proof.step", s.Number, oneLine(strings.Join(s.Proof, ", ")), oneLine(seen)))
	}
	return strings.Join(parts, l.t("sep"))
}

// printable replaces control characters other than tab by repl.
func printable(s string, repl rune) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return repl
		}
		return r
	}, s)
}

// oneLine makes a header field safe for one line of a terminal.
func oneLine(s string) string {
	return printable(strings.ReplaceAll(s, "\t", " "), ' ')
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
