package document

import (
	"strconv"
	"strings"
)

// FormatVersion is the version of the plan file format this release writes, in the
// header's first line (`format: 2`). A file without that line is format 1, what releases
// up to 0.1.0 wrote. Each version and what it changed are listed in docs/file-format.md.
//
// A release reads every format up to its own as it was written, and a file of a newer
// format as far as it can (unknown header lines are ignored), but never writes one: every
// change of such a plan is refused with CodeCorrupt and reason newer_format, so an older
// release never rewrites what a newer one wrote in a form the newer one would misread.
const FormatVersion = 2

// HdrFormat is the header key of the file's format version.
const HdrFormat = "format"

// FormatLine is the header line EncodePlan writes first.
var FormatLine = HdrFormat + ": " + strconv.Itoa(FormatVersion) + "\n"

// unknownFormat stands for a format line whose value is not a version number: no release
// can tell what wrote it, so it counts as newer than any.
const unknownFormat = int64(1) << 62

// newerFormat is the version a format header value names when it is newer than
// formatVersion, else 0.
func newerFormat(value string) int64 {
	n, err := strconv.ParseInt(value, 10, 64)
	switch {
	case err != nil || n <= 0:
		return unknownFormat
	case n > FormatVersion:
		return n
	}
	return 0
}

// FileFormat is the format version of a stored plan file: the value of its format line
// (unknownFormat when that is not a version number), 1 without one.
func FileFormat(raw string) int64 {
	rest, ok := strings.CutPrefix(raw, HeaderFence)
	for ok {
		var line string
		line, rest, ok = strings.Cut(rest, "\n")
		if !ok || line == "---" {
			break
		}
		if value, found := strings.CutPrefix(line, HdrFormat+": "); found {
			if n := newerFormat(value); n != 0 {
				return n
			}
			n, _ := strconv.ParseInt(value, 10, 64)
			return n
		}
	}
	return 1
}

// CheckFormat refuses a change of cur when its file is of a format this release does not
// know: it would write the plan back in its own, older format.
func CheckFormat(cur *Plan) error {
	if cur == nil || cur.NewerFormat == 0 {
		return nil
	}
	v := "unknown"
	if cur.NewerFormat != unknownFormat {
		v = strconv.FormatInt(cur.NewerFormat, 10)
	}
	return Fail(Error{Code: CodeCorrupt, Reason: reasonNewerFormat, Name: cur.Name, CurrentRevision: cur.Revision, Value: v})
}

const HeaderFence = "---\n"
