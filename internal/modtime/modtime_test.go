package modtime

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The listing's times must be the very strings time.Format gives: the Store keys its
// cache on them, and callers parse them.
func TestModTimesFormatLikeTime(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := New()
	check := func(tm time.Time) {
		t.Helper()
		if got, want := m.Format(tm), tm.UTC().Format(time.RFC3339Nano); got != want {
			t.Fatalf("format(%v) = %q, want %q", tm, got, want)
		}
	}
	edges := []time.Time{
		time.Unix(0, 0), time.Unix(-1, 0), time.Unix(-1, 999_999_999), time.Unix(-86400, 1),
		time.Unix(86399, 100), time.Unix(86400, 0), time.Unix(1, 10), time.Unix(1, 120_000_000),
		time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 5, 0, 0, 0, time.UTC), // a second time on a day left to time itself
		time.Date(0, 1, 1, 0, 0, 0, 5, time.UTC),
		time.Date(-1, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 0, 0, 0, time.FixedZone("x", 5*3600+1800)),
	}
	for _, tm := range edges {
		check(tm)
	}
	now := time.Now().Unix()
	for range 200_000 {
		var sec int64
		switch r.IntN(3) {
		case 0: // a few days around now: the cached date is reused
			sec = now + r.Int64N(4*secondsPerDay) - 2*secondsPerDay
		case 1:
			sec = r.Int64N(500*365*secondsPerDay) - 250*365*secondsPerDay
		default:
			sec = r.Int64() >> r.IntN(64)
			if r.IntN(2) == 0 {
				sec = -sec
			}
		}
		ns := int64(0)
		switch r.IntN(3) {
		case 0:
			ns = r.Int64N(1_000_000_000)
		case 1:
			ns = r.Int64N(1000) * 1_000_000
		}
		check(time.Unix(sec, ns))
	}
}
