package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/internal/document"
)

// decodeCall reads one tool call's arguments for spec, forgiving where the meaning is clear
// and strict where it is not. The invariants:
//
//   - What is accepted has one meaning: arguments inside a Markdown fence or with text
//     around exactly one JSON object; an argument under its name in another case or
//     spelling (planName), or under a documented alias (aliasesOf); an integer written as
//     a decimal string or with a zero fraction ("3", 3.0); "true" or "false" for a
//     boolean; a step state in any case, with '-' or ' ' for '_', or a usual synonym
//     (stepStateSynonyms). The args returned hold only the canonical names and values, so
//     every tool reads them exactly as it reads a call written right.
//   - Nothing changes meaning silently: an argument the tool does not take and that is no
//     alias of one it takes is refused (unknown_argument, naming what the tool takes), so a
//     revision under any name either guards the write or stops it; two spellings of one
//     argument with different values are refused (conflicting_aliases). Only JSON null,
//     which says nothing, is dropped.
//   - Names are never rewritten, and anything unclear ("3.5", "three", a step_index that
//     may count from 0) is refused as before.
//
// The notes say what was normalized, in canonical form; attach adds them to the result so
// the model learns the canonical call.
func decodeCall(spec ToolSpec, texts map[string]string, raw string) (args, callNotes, error) {
	obj, unwrapped, err := decodeObject(raw)
	if err != nil {
		return nil, nil, err
	}
	var notes callNotes
	if unwrapped {
		notes = append(notes, texts["normalized.unwrapped"])
	}
	if len(obj) == 0 || asWritten(spec, obj) {
		return obj, notes, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(args, len(obj))
	type givenBy struct{ canon, key string } // which keys gave each canonical name a value
	given := make([]givenBy, 0, 8)
	for _, key := range keys {
		v := obj[key]
		canon, ok := canonicalKey(spec, key)
		if !ok {
			if v == nil {
				continue // null says nothing, whatever it is called
			}
			if _, step := paramNamed(spec, pStep.Name); step && isStepIndexKey(key) {
				return nil, nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonStepIndex, Field: shownKey(key)})
			}
			return nil, nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonUnknownArgument,
				Field: shownKey(key), Value: paramList(spec.Params)})
		}
		if v == nil {
			continue // null counts as omitted
		}
		p, _ := paramNamed(spec, canon)
		value, changed, err := normalizeValue(spec.Name, p, v)
		if err != nil {
			return nil, nil, err
		}
		given = append(given, givenBy{canon, shownKey(key)})
		if prev, dup := out[canon]; dup {
			if !sameValue(prev, value) {
				var by []string
				for _, g := range given {
					if g.canon == canon {
						by = append(by, g.key)
					}
				}
				return nil, nil, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonConflictingAliases,
					Field: canon, Value: strings.Join(by, ", ")})
			}
			continue
		}
		out[canon] = value
		switch {
		case key != canon && changed:
			notes = append(notes, key+"->"+canon+"="+showValue(value))
		case key != canon:
			notes = append(notes, key+"->"+canon)
		case changed:
			notes = append(notes, canon+"="+showValue(value))
		}
	}
	return out, notes, nil
}

// asWritten reports whether obj is a call written right: every key a parameter's own name
// and every value already canonical, which decodeCall would return as it is (no null, no
// note), so the sorting, copying and bookkeeping that a forgiven call needs are skipped.
func asWritten(spec ToolSpec, obj args) bool {
	for key, v := range obj {
		p, ok := paramNamed(spec, key)
		if !ok || v == nil {
			return false
		}
		if _, changed, err := normalizeValue(spec.Name, p, v); err != nil || changed {
			return false
		}
	}
	return true
}

// decodeObject reads the arguments' JSON object. A bare object is read as it always was;
// otherwise it accepts one object inside a Markdown fence or text, or a JSON string holding
// one, and reports unwrapped. Anything else keeps its old refusal: args_not_object when no
// object is there, args_not_json when it does not decode or more than one could be meant.
func decodeObject(raw string) (args, bool, error) {
	trimmed := strings.TrimSpace(raw)
	if trimmed == "" {
		return args{}, false, nil
	}
	if trimmed[0] == '{' {
		var a args
		if err := argsAPI.UnmarshalFromString(trimmed, &a); err == nil && a != nil {
			a, err = withoutRepeats(trimmed, a)
			return a, false, err
		}
	}
	if text, ok := embeddedObject(trimmed); ok {
		var a args
		if err := argsAPI.UnmarshalFromString(text, &a); err == nil && a != nil {
			a, err = withoutRepeats(text, a)
			return a, true, err
		}
	}
	if trimmed[0] == '"' {
		var inner string
		if err := argsAPI.UnmarshalFromString(trimmed, &inner); err == nil {
			if s := strings.TrimSpace(inner); strings.HasPrefix(s, "{") {
				var a args
				if err := argsAPI.UnmarshalFromString(s, &a); err == nil && a != nil {
					a, err = withoutRepeats(s, a)
					return a, true, err
				}
			}
		}
	}
	if trimmed[0] != '{' {
		return nil, false, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonArgsNotObject})
	}
	return nil, false, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonArgsNotJSON})
}

// embeddedObject finds the one JSON object in text such as "```json\n{...}\n```" or
// "Arguments: {...}" and returns its text. The text around it may hold no brace or bracket,
// so neither two objects nor an array of them is ever read as one.
func embeddedObject(text string) (string, bool) {
	start := strings.IndexByte(text, '{')
	if start < 0 || strings.ContainsAny(text[:start], "{}[]\"") {
		return "", false
	}
	// The standard decoder only finds where the object ends; it is read as every call is.
	dec := json.NewDecoder(strings.NewReader(text[start:]))
	var skip json.RawMessage
	if err := dec.Decode(&skip); err != nil {
		return "", false
	}
	end := start + int(dec.InputOffset())
	rest := text[end:]
	if strings.ContainsAny(rest, "{}[]\"") || start == 0 && strings.TrimSpace(rest) == "" {
		return "", false // more than one object could be meant, or a bare one the fast path refused
	}
	return text[start:end], true
}

// aliasesOf lists, for each argument, the other names a model gives it. An alias acts
// exactly as the argument, and only for a tool that takes the argument and has no argument
// of the alias's own name. A name that could mean two things (index, which may count from 0;
// since for a guard) is in no list.
var aliasesOf = map[string][]string{
	pName.Name:     {"plan_name", "plan", "plan_id", "planname"},
	pContent.Name:  {"body", "text", "markdown", "contents", "plan_content", "plan_body"},
	pTitle.Name:    {"plan_title"},
	pRevision.Name: {"revision", "expected_revision", "known_revision", "if_revision", "base_revision", "last_revision", "current_revision", "rev", "last_known_rev", "expected_rev"},
	pSince.Name:    {"since", "since_rev", "from_revision", "after_revision"},
	pStep.Name:     {"step_number", "step_no", "step_num", "step_id", "number"},
	pNote.Name:     {"comment", "notes"},
	pTakeover.Name: {"take_over", "force_takeover"},
	pPath.Name:     {pFilePath.Name, "filepath", "file", "filename", "file_name"},
	pGoal.Name:     {"task", "objective", "topic"},
	pLimit.Name:    {"page_size", "max_results", "per_page"},
	pCursor.Name:   {"next_cursor", "page_token", "after"},
	pMessage.Name:  {"comment", "note"},
}

// statusAliases are the names of "status" by tool: a step's state for update_plan_step,
// the filter of list_plans, a plan's status elsewhere.
var statusAliases = map[string][]string{
	ToolUpdatePlanStep: {"state", "step_status", "step_state", "new_status", "new_state"},
	ToolListPlans:      {"status_filter", "filter_status", "plan_status"},
	"":                 {"state", "plan_status", "new_status"},
}

// canonicalKey names the argument key stands for in spec, if any: itself, itself in
// snake_case and lower case (planName, Plan-Name), or an alias of an argument the tool takes.
func canonicalKey(spec ToolSpec, key string) (string, bool) {
	if _, ok := paramNamed(spec, key); ok {
		return key, true
	}
	norm := snakeCase(key)
	if _, ok := paramNamed(spec, norm); ok {
		return norm, true
	}
	for _, p := range spec.Params {
		names := aliasesOf[p.Name]
		if p.Name == pStatus.Name {
			names = statusAliases[spec.Name]
			if names == nil {
				names = statusAliases[""]
			}
		}
		if slices.Contains(names, norm) {
			return p.Name, true
		}
	}
	return "", false
}

// snakeCase spells a key as the tools' arguments are spelt: lastKnownRevision,
// Last-Known-Revision and "last known revision" all become last_known_revision.
func snakeCase(key string) string {
	if len(key) > 64 {
		return key
	}
	var b strings.Builder
	var prev rune
	for i, r := range key {
		switch {
		case r == '-' || r == ' ' || r == '.':
			r = '_'
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
		prev = r
	}
	return strings.Trim(b.String(), "_")
}

// isStepIndexKey reports a key naming a step by an index that may count from 0.
func isStepIndexKey(key string) bool {
	switch snakeCase(key) {
	case "step_index", "index", "step_idx", "idx", "stepindex":
		return true
	}
	return false
}

// normalizeValue returns v in the canonical form of p's type, and whether it changed. A
// string that should be an integer or a boolean and is none ("3.5", "three", "maybe") is
// refused naming the string, so the model sees what it sent; any other value whose meaning
// is unclear is returned as it is, and the tool's accessor refuses it as it always did.
// A value reported unchanged is v itself (asWritten relies on it).
func normalizeValue(tool string, p param, v any) (any, bool, error) {
	switch p.typ {
	case schema.Integer:
		var text string
		switch x := v.(type) {
		case json.Number:
			if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
				return v, false, nil
			}
			text = x.String()
		case string:
			text = strings.TrimSpace(x)
		default:
			return v, false, nil
		}
		if n, ok := wholeNumber(text); ok {
			return json.Number(strconv.FormatInt(n, 10)), true, nil
		}
		if _, ok := v.(string); ok {
			return nil, false, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotInteger, Field: p.Name, Value: text})
		}
	case schema.Boolean:
		if s, ok := v.(string); ok {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				return true, true, nil
			case "false":
				return false, true, nil
			}
			return nil, false, document.Fail(document.Error{Code: document.CodeInvalidArgument, Reason: document.ReasonNotBoolean, Field: p.Name, Value: s})
		}
	case schema.String:
		if s, ok := v.(string); ok && tool == ToolUpdatePlanStep && p.Name == pStepState.Name {
			if st, ok := canonicalStepState(s); ok && string(st) != s {
				return string(st), true, nil
			}
		}
	}
	return v, false, nil
}

// wholeNumber reads a decimal integer, with an optional sign and an optional fraction of
// zeros only ("3", "-2", "3.0", "3.00"); anything else ("3.5", "1e3", "three") is not one.
func wholeNumber(s string) (int64, bool) {
	digits := s
	if i := strings.IndexByte(s, '.'); i >= 0 {
		frac := s[i+1:]
		if frac == "" || strings.Trim(frac, "0") != "" {
			return 0, false
		}
		digits = s[:i]
	}
	body := strings.TrimLeft(digits, "+-")
	if body == "" || len(digits)-len(body) > 1 || strings.Trim(body, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// stepStateSynonyms maps the words models use for a step's state, folded to lower case with
// '_' for '-' and ' ', to the state they mean.
var stepStateSynonyms = map[string]document.StepState{
	"pending": document.StepPending, "todo": document.StepPending, "to_do": document.StepPending, "open": document.StepPending, "not_started": document.StepPending,
	"in_progress": document.StepInProgress, "inprogress": document.StepInProgress, "doing": document.StepInProgress, "started": document.StepInProgress, "active": document.StepInProgress,
	"completed": document.StepCompleted, "complete": document.StepCompleted, "done": document.StepCompleted, "finished": document.StepCompleted,
	"failed": document.StepFailed, "fail": document.StepFailed, "error": document.StepFailed, "failure": document.StepFailed,
	"skipped": document.StepSkipped, "skip": document.StepSkipped,
}

// canonicalStepState returns the state s names, in any case, with '-' or ' ' for '_', or as
// a synonym in stepStateSynonyms.
func canonicalStepState(s string) (document.StepState, bool) {
	if len(s) > 32 {
		return "", false
	}
	folded := strings.ToLower(strings.TrimSpace(s))
	folded = strings.Join(strings.FieldsFunc(folded, func(r rune) bool { return r == '-' || r == ' ' || r == '_' }), "_")
	st, ok := stepStateSynonyms[folded]
	return st, ok
}

// sameValue reports whether two canonical argument values are equal.
func sameValue(a, b any) bool {
	return reflect.DeepEqual(a, b)
}

// paramList names the arguments a tool takes, in the order of its schema.
func paramList(params []param) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// showValue writes a canonical value as JSON.
func showValue(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case string:
		return strconv.Quote(x)
	}
	return "?"
}

// callNotes are what decodeCall normalized in one call, in canonical form.
type callNotes []string

// attach adds the notes to a tool's result as "normalized": a field of a JSON object
// result, a last line of a text one. A call that needed no normalizing is answered as
// it always was.
func (n callNotes) attach(result string) string {
	if len(n) == 0 {
		return result
	}
	note := strings.Join(n, ", ")
	if strings.HasPrefix(result, "{") && strings.HasSuffix(result, "}") {
		sep := ","
		if strings.TrimSpace(result[1:len(result)-1]) == "" {
			sep = ""
		}
		return result[:len(result)-1] + sep + `"normalized":` + jsonString(note) + "}"
	}
	return result + "\nnormalized: " + note + "\n"
}

// ToolSpec is one plan tool: its name, the arguments it takes and what runs it.
type ToolSpec struct {
	Name   string
	Params []param
	run    func(ctx context.Context, env *ToolEnv, a args) (any, error)
}

// paramNamed is the argument of spec called name. Tools take a handful, so a scan beats a map.
func paramNamed(spec ToolSpec, name string) (param, bool) {
	for _, p := range spec.Params {
		if p.Name == name {
			return p, true
		}
	}
	return param{}, false
}
