package document

// MaxNameLen is the longest plan name accepted.
const MaxNameLen = 64

// ValidateName accepts exactly the names matching ^[a-z0-9][a-z0-9_-]*$ of at most
// maxNameLen bytes. Names are rejected, never rewritten: rewriting would let two different
// inputs land on one file, and a name that is only ever [a-z0-9_-] cannot leave BaseDir.
func ValidateName(name string) error {
	if refusal := NameRefusal(name); refusal != nil {
		return Fail(*refusal)
	}
	return nil
}

// NameRefusal is the facts of ValidateName's refusal of name, not yet rendered, or nil.
func NameRefusal(name string) *Error {
	if name == "" {
		return &Error{Code: CodeInvalidArgument, Reason: ReasonEmpty, Field: "name"}
	}
	if len(name) > MaxNameLen {
		return &Error{Code: CodeInvalidArgument, Reason: ReasonTooLong, Field: "name", Size: int64(len(name)), Limit: MaxNameLen}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || (i > 0 && (c == '-' || c == '_'))
		if !ok {
			return &Error{Code: CodeInvalidArgument, Reason: reasonNameInvalid, Field: "name", Value: name}
		}
	}
	return nil
}
