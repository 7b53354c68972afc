package tools

import (
	"encoding/json"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/einoplan/plan/internal/document"
	"github.com/einoplan/plan/internal/engine"
)

var argsAPI = sonic.Config{UseNumber: true}.Froze()

// args is a tool call's decoded JSON object, holding only the arguments its tool takes under
// their canonical names (decodeCall). Accessors turn every type mistake into an
// invalid_argument naming the field, so the model learns exactly what to fix. JSON null
// counts as omitted.
type args map[string]any

// typeName names the JSON type of v; the texts "kind.<name>" say it in the model's language.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

// str returns a string field; required fields must be present and non-empty.
func (a args) str(p param) (string, error) {
	key, required := p.Name, p.required
	v, ok := a[key]
	if !ok || v == nil {
		if required {
			return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRequired, Field: key})
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotString, Field: key, Value: typeName(v)})
	}
	if required && s == "" {
		return "", document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonEmpty, Field: key})
	}
	return s, nil
}

// integer returns an integer field; nil when omitted and not required.
func (a args) integer(p param) (*int64, error) {
	key, required := p.Name, p.required
	v, ok := a[key]
	if !ok || v == nil {
		if required {
			return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonRequired, Field: key})
		}
		return nil, nil
	}
	num, ok := v.(json.Number)
	if !ok {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotInteger, Field: key, Value: typeName(v)})
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil {
		return nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotInteger, Field: key, Value: num.String()})
	}
	return &n, nil
}

// boolean returns an optional boolean field; false when omitted.
func (a args) boolean(p param) (bool, error) {
	v, ok := a[p.Name]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotBoolean, Field: p.Name, Value: typeName(v)})
	}
	return b, nil
}

// fields reads several fields of one call and keeps the first mistake, so each tool states
// its arguments in one place and checks once.
type fields struct {
	a   args
	err error
}

func (a args) fields() *fields { return &fields{a: a} }

func (f *fields) str(p param) string {
	if f.err != nil {
		return ""
	}
	s, err := f.a.str(p)
	f.err = err
	return s
}

func (f *fields) integer(p param) *int64 {
	if f.err != nil {
		return nil
	}
	n, err := f.a.integer(p)
	f.err = err
	return n
}

func (f *fields) boolean(p param) bool {
	if f.err != nil {
		return false
	}
	b, err := f.a.boolean(p)
	f.err = err
	return b
}

// update reads the optional fields shared by write_plan and update_plan_from_file.
func (f *fields) update(name string) engine.Update {
	return engine.Update{Name: name, Title: f.str(pTitle), Author: f.str(pAuthor),
		Status: f.str(pStatus), IfRevision: f.integer(pRevision)}
}

// shownKey is a key as an error message repeats it: short, and quoted unless it is a plain
// word, so a key can never break the message around it.
func shownKey(key string) string {
	plain := key != "" && len(key) <= 64
	for _, r := range key {
		if !(r == '_' || r == '-' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			plain = false
			break
		}
	}
	if plain {
		return key
	}
	return document.QuoteForMessage(key)
}
