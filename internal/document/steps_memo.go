package document

import "sync"

// stepsMemoBytes bounds the bodies whose steps are remembered; past it the memo starts over.
const stepsMemoBytes = 4 << 20

// stepsMemo remembers the steps of the bodies parsed last: a plan is parsed again and again
// while unchanged (every read, the two sides of every write), and a lookup costs a hash of
// the body instead of a parse.
var stepsMemo struct {
	mu     sync.Mutex
	bodies map[string][]Step
	bytes  int
}

// StepsOf is ParseSteps(body) shared with other callers: never change what it returns.
func StepsOf(body string) []Step {
	stepsMemo.mu.Lock()
	steps, ok := stepsMemo.bodies[body]
	stepsMemo.mu.Unlock()
	if ok {
		return steps
	}
	steps = parseSteps(body)
	stepsMemo.mu.Lock()
	if stepsMemo.bodies == nil || stepsMemo.bytes+len(body) > stepsMemoBytes {
		stepsMemo.bodies, stepsMemo.bytes = make(map[string][]Step), 0
	}
	if len(body) <= stepsMemoBytes/16 {
		stepsMemo.bodies[body] = steps
		stepsMemo.bytes += len(body)
	}
	stepsMemo.mu.Unlock()
	return steps
}
