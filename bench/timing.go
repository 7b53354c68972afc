package main

import (
	"runtime"
	"sort"
	"time"
)

// timing says how an operation is timed: after a warm-up of about one batch, reps
// batches of k calls, k chosen so a batch lasts about target; the result is the median
// time per call over the batches.
type timing struct {
	target   time.Duration
	reps     int
	maxIters int
}

// measure returns the median nanoseconds per call of fn. fn gets a new index on every
// call, warm-up included. after, when not nil, runs untimed after the warm-up and after
// every batch (to undo what the batch created).
func (t timing) measure(fn func(i int) error, after func() error) (float64, error) {
	i := 0
	call := func() error {
		err := fn(i)
		i++
		return err
	}
	runtime.GC()
	// Warm-up, which also estimates the cost of one call.
	calls := 0
	start := time.Now()
	for calls < t.maxIters && (calls == 0 || time.Since(start) < t.target) {
		if err := call(); err != nil {
			return 0, err
		}
		calls++
	}
	per := time.Since(start) / time.Duration(calls)
	if after != nil {
		if err := after(); err != nil {
			return 0, err
		}
	}
	k := t.maxIters
	if per > 0 && int64(t.target/per) < int64(k) {
		k = max(1, int(t.target/per))
	}
	samples := make([]float64, 0, t.reps)
	for r := 0; r < t.reps; r++ {
		start := time.Now()
		for j := 0; j < k; j++ {
			if err := call(); err != nil {
				return 0, err
			}
		}
		samples = append(samples, float64(time.Since(start).Nanoseconds())/float64(k))
		if after != nil {
			if err := after(); err != nil {
				return 0, err
			}
		}
	}
	return median(samples), nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
