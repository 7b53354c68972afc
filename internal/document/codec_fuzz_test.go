package document

import (
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var nameOracle = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

func FuzzValidateName(f *testing.F) {
	for _, s := range []string{"release-2", "a", "0_x", "-a", "_a", "A", "a/b", "../x", "a.md", "",
		strings.Repeat("a", MaxNameLen), strings.Repeat("a", MaxNameLen+1), "a\n", "é", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := ValidateName(name)
		want := len(name) <= MaxNameLen && nameOracle.MatchString(name)
		if want != (err == nil) {
			t.Fatalf("ValidateName(%q) = %v, want accepted=%v", name, err, want)
		}
		if err != nil {
			if CodeOf(err) != CodeInvalidArgument {
				t.Fatalf("ValidateName(%q) error has code %q", name, CodeOf(err))
			}
			if msg := err.(*Error).Message; len(msg) > 400 || !utf8.ValidString(msg) {
				t.Fatalf("ValidateName(%q) message is unbounded or not UTF-8: %q", name, msg)
			}
		}
	})
}

// RFC 3339 can only express years 0000 to 9999; the codec is exercised on every second of
// years 0001 to 9999 at nanosecond precision.
const (
	minCodecUnix = -62135596800 // 0001-01-01T00:00:00Z
	maxCodecUnix = 253402300799 // 9999-12-31T23:59:59Z
)

func codecTime(sec, nsec int64) time.Time {
	span := uint64(maxCodecUnix - minCodecUnix + 1)
	s := int64(uint64(sec)%span) + minCodecUnix
	ns := int64(uint64(nsec) % uint64(time.Second))
	return time.Unix(s, ns).UTC()
}

// validHeader reports whether s is a header string the Store could have written.
func validHeader(s string) bool { return len(s) <= MaxHeaderField && utf8.ValidString(s) }

func FuzzPlanCodec(f *testing.F) {
	f.Add("Release 2", "draft", "planner", int64(3), int64(1767225600), int64(123456789),
		"# Release\n- [ ] one\n", "---\ntitle: \"x\"\nrevision: 1\n---\nbody")
	f.Add("", "", "", int64(0), int64(0), int64(0), "", "")
	f.Add("q\"uo\\te\n\t\x01\x7f", "é 漢字 \u2028", "\U0001F600", int64(1<<62), int64(-1), int64(-1),
		"---\ntitle: \"x\"\nstatus: \"y\"\n---\n---\n", "---\n---\n")
	f.Add("t", "s", "a", int64(1), int64(0), int64(0), "---\n", "---\ntitle: x\n---\n")
	f.Add("t", "s", "a", int64(1), int64(0), int64(0), "\r\n---\r\nrevision: 9\n", "---\nrevision: -1\n---\n")
	f.Add("t", "s", "a", int64(1), int64(0), int64(0), "x", "---\nupdated_at: \"2026-01-01T00:00:00.000000001+02:00\"\n---\n")
	approved := &Plan{Title: "t", Revision: 2, UpdatedAt: time.Unix(0, 0).UTC(), Content: "- [x] a\n",
		Approval: &Approval{Revision: 1, By: "ana", At: time.Unix(1, 5).UTC()}}
	f.Add("t", "s", "a", int64(2), int64(0), int64(0), "- [ ] a\n", EncodePlan(approved))
	f.Add("t", "s", "a", int64(2), int64(0), int64(0), "- [ ] a\n", strings.Replace(EncodePlan(approved), "approved_revision: 1", "approved_revision: 3", 1))
	f.Fuzz(func(t *testing.T, title, status, author string, revision, sec, nsec int64, body, raw string) {
		// Any stored bytes: DecodePlan either fails with corrupt or yields a plan that
		// encodes and decodes back to itself.
		if got, err := DecodePlan("fuzz", raw); err != nil {
			if CodeOf(err) != CodeCorrupt {
				t.Fatalf("DecodePlan(%q) error has code %q: %v", raw, CodeOf(err), err)
			}
		} else {
			if got.Revision < 0 || got.UpdatedAt.Location() != time.UTC {
				t.Fatalf("DecodePlan(%q) = %+v", raw, got)
			}
			if !strings.HasSuffix(raw, got.Content) {
				t.Fatalf("DecodePlan(%q) body %q is not the tail of the file", raw, got.Content)
			}
			again, err := DecodePlan("fuzz", EncodePlan(got))
			if err != nil {
				t.Fatalf("re-encoding %+v of %q does not decode: %v", got, raw, err)
			}
			if !SamePlan(again, got) {
				t.Fatalf("re-encoding %q: %+v became %+v", raw, got, again)
			}
		}

		if revision < 0 {
			revision = -(revision + 1)
		}
		if !validHeader(title) || !validHeader(status) || !validHeader(author) {
			return
		}
		p := &Plan{Name: "fuzz", Title: title, Status: status, Author: author, Revision: revision,
			UpdatedAt: codecTime(sec, nsec), Content: body, StepsRev: max(1, revision-nsec%3)}
		if p.StepsRev > revision {
			p.StepsRev = revision // a plan at revision 0 records none
		}
		enc := EncodePlan(p)
		got, err := DecodePlan("fuzz", enc)
		if err != nil {
			t.Fatalf("EncodePlan(%+v) = %q does not decode: %v", p, enc, err)
		}
		if !SamePlan(got, p) {
			t.Fatalf("round trip of %q:\n got %+v\nwant %+v", enc, got, p)
		}
		if !strings.HasSuffix(enc, body) {
			t.Fatalf("encoded %q does not end with the body %q", enc, body)
		}
	})
}
