package main

import "time"

// config sets the sizes and timings of one run.
type config struct {
	mode           string
	kinds          []backendKind
	opSizes        []int
	opTiming       timing
	waitRacy       bool
	goroutines     []int
	contention     time.Duration
	overheadSizes  []int
	overheadTiming timing
	costSteps      int // steps the worker of the cost per step tables completes
}

func fullConfig() config {
	return config{
		mode:           "full",
		kinds:          allKinds(),
		opSizes:        []int{10, 100, 1000, 10000},
		opTiming:       timing{target: 25 * time.Millisecond, reps: 11, maxIters: 100000},
		waitRacy:       true,
		goroutines:     []int{1, 4, 16},
		contention:     750 * time.Millisecond,
		overheadSizes:  []int{0, 100, 1000},
		overheadTiming: timing{target: 25 * time.Millisecond, reps: 11, maxIters: 100000},
		costSteps:      costSteps,
	}
}

func quickConfig() config {
	c := fullConfig()
	c.mode = "quick"
	c.opSizes = []int{10, 100, 1000}
	c.opTiming = timing{target: 8 * time.Millisecond, reps: 5, maxIters: 100000}
	c.contention = 150 * time.Millisecond
	c.overheadTiming = timing{target: 8 * time.Millisecond, reps: 5, maxIters: 100000}
	return c
}
