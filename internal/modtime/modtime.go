// Package modtime formats modification times as Eino's backends report them, fast.
package modtime

import (
	"math"
	"time"
)

// Formatter formats modification times exactly as t.UTC().Format(time.RFC3339Nano) does,
// working out the calendar date only when a time falls on another day than the one before:
// the files of one folder, and the writes of one day, share a day, and the date is most of
// the cost. It is not safe for concurrent use.
type Formatter struct {
	day  int64    // the Unix day date holds; math.MinInt64 before the first
	date [11]byte // "2006-01-02T"
}

// New returns a Formatter that has seen no day yet.
func New() Formatter { return Formatter{day: math.MinInt64} }

const secondsPerDay = 24 * 60 * 60

// Format returns t.UTC().Format(time.RFC3339Nano).
func (m *Formatter) Format(t time.Time) string {
	sec := t.Unix()
	day := sec / secondsPerDay
	if sec%secondsPerDay < 0 {
		day--
	}
	if day != m.day {
		u := t.UTC()
		if y := u.Year(); y < 0 || y > 9999 {
			return u.Format(time.RFC3339Nano) // no four-digit year: left to time itself
		}
		u.AppendFormat(m.date[:0], "2006-01-02T")
		m.day = day
	}
	var buf [len("2006-01-02T15:04:05.999999999Z")]byte
	n := copy(buf[:], m.date[:])
	clock := sec - day*secondsPerDay
	for _, v := range [...]int64{clock / 3600, clock / 60 % 60, clock % 60} {
		if n > len(m.date) {
			buf[n] = ':'
			n++
		}
		buf[n], buf[n+1] = byte('0'+v/10), byte('0'+v%10)
		n += 2
	}
	if ns := t.Nanosecond(); ns != 0 {
		buf[n] = '.'
		for i := 9; i > 0; i-- {
			buf[n+i] = byte('0' + ns%10)
			ns /= 10
		}
		n += 10
		for buf[n-1] == '0' {
			n--
		}
	}
	buf[n] = 'Z'
	return string(buf[:n+1])
}
