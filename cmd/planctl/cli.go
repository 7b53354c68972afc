package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/einoplan/plan"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFailed   = 1
	exitUsage    = 2
	exitConflict = 3
	exitNotFound = 4
)

// cli is one planctl command line: its streams, its flags, and the Store it opened.
type cli struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer

	dir      string // -dir as given, or its default
	redisURL string
	postgres string // -postgres URL
	prefix   string
	rev      *int64
	jsonOut  bool
	page     plan.ListOptions // -limit, -after, -status
	by       string           // -by
	feedback string           // -feedback
	to       string           // -to
	addr     string           // -addr (serve)
	mcpFlags mcpFlags         // -as, -lang, -approval, -ask-client (mcp); -acp (watch)
	adoptKey bool             // -adopt-key (migrate)
	set      map[string]bool  // the flags given
	color    bool
	l        lang // the language people read: -lang, else the locale (lang.go)
	store    *plan.Store
	loc      location
	command  string
	args     []string
	created  bool // the last change created its plan
	changed  bool // a change was written
}

func (c *cli) writeJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// location is where the plans are, as planctl names it to people.
type location struct {
	backend plan.Backend
	baseDir string // the plans folder inside backend
	shown   string // the folder as -dir names it, after the server (and schema or prefix) when not local
	server  string // shown without the folder: the server, schema or prefix; "" for a local DIR
	// nested is the -dir value of the plans sub-folder of DIR.
	nested string
	// approvalKey is the key planctl hands the Store of a local DIR; nil lets the Store
	// find its own (keys.go).
	approvalKey []byte
}

// cliError is a failure planctl describes itself, with its exit status.
type cliError struct {
	code plan.Code // printed after "planctl: " when set
	msg  string
	exit int
}

func (e *cliError) Error() string { return e.msg }

type command struct {
	args     []string // names of the positional arguments
	optional int      // how many of the last args may be left out
	flags    []string // the command flags it accepts (json, rev, by, to, limit, after, status)
	readOnly bool     // never writes, so it creates no missing DIR or schema either
	synopsis string   // its arguments as usage errors show them, when optional ones are not the last
	run      func(c *cli, args []string) error
}
