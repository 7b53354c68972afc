package tools

import (
	"reflect"
	"testing"
)

// A call written right takes the short way through decodeCall and comes out exactly as the
// long way makes it: the same canonical arguments, no notes. A null for an argument the call
// does not give sends the same call the long way. The notes are counted, not read: no texts.
func TestACallWrittenRightDecodesAsAForgivenOne(t *testing.T) {
	specs := map[string]ToolSpec{}
	for _, s := range ToolSpecs() {
		specs[s.Name] = s
	}
	for _, c := range []struct{ tool, right, withNull string }{
		{ToolSetPlanStatus, `{"name":"a","status":"done"}`, `{"name":"a","status":"done","last_known_revision":null}`},
		{ToolSetPlanStatus, `{"name":"a","status":"done","last_known_revision":3}`, `{"name":"a","status":"done","last_known_revision":3,"note":null}`},
		{ToolUpdatePlanStep, `{"name":"a","step":2,"status":"completed","last_known_revision":7}`, `{"name":"a","step":2,"status":"completed","last_known_revision":7,"note":null}`},
		{ToolUpdatePlanStep, `{"name":"a","status":"in_progress"}`, `{"name":"a","status":"in_progress","step":null}`},
		{ToolReadPlan, `{"name":"a"}`, `{"name":"a","since_revision":null}`},
		{ToolWritePlan, `{"name":"a","content":"- [ ] x\n","last_known_revision":0}`, `{"name":"a","content":"- [ ] x\n","last_known_revision":0,"title":null}`},
	} {
		spec := specs[c.tool]
		if !asWritten(spec, mustObject(t, c.right)) {
			t.Errorf("%s %s: not taken as written right", c.tool, c.right)
		}
		if asWritten(spec, mustObject(t, c.withNull)) {
			t.Errorf("%s %s: a null taken as written right", c.tool, c.withNull)
		}
		short, shortNotes, err := decodeCall(spec, nil, c.right)
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.right, err)
		}
		long, longNotes, err := decodeCall(spec, nil, c.withNull)
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, c.withNull, err)
		}
		if !reflect.DeepEqual(short, long) || len(shortNotes) != 0 || len(longNotes) != 0 {
			t.Errorf("%s: written right %#v (notes %q), the long way %#v (notes %q)", c.tool, short, shortNotes, long, longNotes)
		}
	}
	// Anything to forgive goes the long way, which says what it changed.
	_, notes, err := decodeCall(specs[ToolUpdatePlanStep], nil, `{"name":"a","step":"2","status":"Done"}`)
	if err != nil || len(notes) != 2 {
		t.Errorf("a forgiven call: notes %q, %v; want two", notes, err)
	}
}

func mustObject(t *testing.T, raw string) args {
	t.Helper()
	obj, _, err := decodeObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	return obj
}
