package tools

import (
	"strconv"

	"github.com/bytedance/sonic"
)

// ResultAPI encodes everything a model reads. It validates strings and replaces invalid
// UTF-8 with U+FFFD, so a result is valid UTF-8 JSON whatever a stored file holds.
var ResultAPI = sonic.Config{ValidateString: true}.Froze()

func Itoa(n int) string { return strconv.Itoa(n) }

// jsonString is s as a JSON string.
func jsonString(s string) string {
	js, err := ResultAPI.MarshalToString(s)
	if err != nil {
		return `""`
	}
	return js
}
