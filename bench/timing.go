package main

import (
	"bufio"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// timing says how operations are timed: each contender gets a warm-up of about one batch,
// which also sizes its batches (k calls lasting about target); then reps rounds run one
// batch of every contender each, in rotating order, so that contenders compared with each
// other share whatever else the machine is doing, each batch starting after a collection. The result is the median time per call
// over a contender's batches.
type timing struct {
	target   time.Duration
	reps     int
	maxIters int
}

// contender is one operation to time. fn gets a new index on every call, warm-up
// included. after, when not nil, runs untimed after the warm-up and after every batch (to
// undo what the batch created).
type contender struct {
	fn    func(i int) error
	after func() error
}

// measure returns the median nanoseconds per call of each contender, in order.
func (t timing) measure(cs ...contender) ([]float64, error) {
	next := make([]int, len(cs))
	call := func(c int) error {
		err := cs[c].fn(next[c])
		next[c]++
		return err
	}
	after := func(c int) error {
		if cs[c].after == nil {
			return nil
		}
		return cs[c].after()
	}
	runtime.GC()
	k := make([]int, len(cs))
	for c := range cs {
		calls := 0
		start := time.Now()
		for calls < t.maxIters && (calls == 0 || time.Since(start) < t.target) {
			if err := call(c); err != nil {
				return nil, err
			}
			calls++
		}
		per := time.Since(start) / time.Duration(calls)
		if err := after(c); err != nil {
			return nil, err
		}
		k[c] = t.maxIters
		if per > 0 && int64(t.target/per) < int64(k[c]) {
			k[c] = max(1, int(t.target/per))
		}
	}
	samples := make([][]float64, len(cs))
	for r := 0; r < t.reps; r++ {
		for j := range cs {
			c := (r + j) % len(cs)
			// Each batch starts on a collected heap, so no contender pays in GC work for
			// the garbage of the one before it.
			runtime.GC()
			start := time.Now()
			for i := 0; i < k[c]; i++ {
				if err := call(c); err != nil {
					return nil, err
				}
			}
			samples[c] = append(samples[c], float64(time.Since(start).Nanoseconds())/float64(k[c]))
			if err := after(c); err != nil {
				return nil, err
			}
		}
	}
	out := make([]float64, len(cs))
	for c := range cs {
		out[c] = median(samples[c])
	}
	return out, nil
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

// cpuModel reads the processor's name from /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown (" + runtime.GOARCH + ")"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name", "Model", "Hardware", "cpu model":
			if v := strings.TrimSpace(value); v != "" {
				return v
			}
		}
	}
	return "unknown (" + runtime.GOARCH + ")"
}

// sleepUntil sleeps until t, if t is in the future.
func sleepUntil(t time.Time) {
	if d := time.Until(t); d > 0 {
		time.Sleep(d)
	}
}
