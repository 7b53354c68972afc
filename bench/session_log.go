package main

// agentLog is what one agent did, as its model and its tools saw it.
type agentLog struct {
	Name        string         `json:"name"`
	Turns       int            `json:"turns"`
	TokensIn    int            `json:"tokens_in"`  // o200k tokens of tool-call arguments
	TokensOut   int            `json:"tokens_out"` // o200k tokens of tool results
	Errors      map[string]int `json:"errors"`     // error results by code
	Aborted     int            `json:"aborted"`    // runs ended by a Go error from a tool
	AbortErrors []string       `json:"abort_errors,omitempty"`
	Claims      []int          `json:"claims"` // steps it moved to in_progress
	Completions []int          `json:"completions"`
	Overwrites  int            `json:"overwrites"` // others' moves its writes replaced unseen
	Moves       []stepMove     `json:"moves"`      // its acknowledged step moves (kind plan)
	Conflicts   []conflict     `json:"conflicts"`  // its error results on moves (kind plan)
	GaveUp      bool           `json:"gave_up"`
}

// stepMove is an acknowledged step move and the revision it made.
type stepMove struct {
	Step int   `json:"step"`
	Rev  int64 `json:"rev"`
}

// conflict is an error result: the step the call tried to move (0: none), the code, the
// revision the call named and the current revision the error reported (0: none).
type conflict struct {
	Step    int    `json:"step"`
	Code    string `json:"code"`
	Base    int64  `json:"base"`
	Current int64  `json:"current"`
}

func newAgentLog(name string) *agentLog { return &agentLog{Name: name, Errors: map[string]int{}} }
