package plan

import "fmt"

// maxNameLen is the longest plan name accepted.
const maxNameLen = 64

// ValidateName accepts exactly the names matching ^[a-z0-9][a-z0-9_-]*$ of at most
// maxNameLen bytes. Names are rejected, never rewritten: rewriting would let two different
// inputs land on one file, and a name that is only ever [a-z0-9_-] cannot leave BaseDir.
func ValidateName(name string) error {
	if name == "" {
		return fail(Error{Code: CodeInvalidArgument, Reason: reasonEmpty, Field: "name"})
	}
	if len(name) > maxNameLen {
		return fail(Error{Code: CodeInvalidArgument, Reason: reasonTooLong, Field: "name", Size: int64(len(name)), Limit: maxNameLen})
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (i > 0 && (c == '-' || c == '_'))
		if !ok {
			return fail(Error{Code: CodeInvalidArgument, Reason: reasonNameInvalid, Field: "name", Value: name})
		}
	}
	return nil
}

// quoteForMessage quotes s for an error message, bounded so a hostile name cannot bloat it.
func quoteForMessage(s string) string {
	if len(s) > 80 {
		s = truncateUTF8(s, 80) + "..."
	}
	return fmt.Sprintf("%q", s)
}
