package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/einoplan/plan/api"

	"github.com/einoplan/plan"
)

func (c *cli) setStatus(args []string) error {
	p, err := c.store.SetStatus(c.ctx, args[0], args[1], c.rev)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: status %s, revision %d\n", p.Name, oneLine(p.Status), p.Revision)
	return nil
}

func (c *cli) export(args []string) error {
	p, err := c.store.Get(c.ctx, args[0])
	if err != nil {
		return err
	}
	if args[1] == "-" {
		_, err := io.WriteString(c.stdout, p.Content)
		return err
	}
	if err := os.WriteFile(args[1], []byte(p.Content), 0o666); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "%s: revision %d written to %s (%d bytes); import it with -rev %d to keep changes made meanwhile\n",
		p.Name, p.Revision, args[1], len(p.Content), p.Revision)
	return nil
}

func (c *cli) importFile(args []string) error {
	content, err := c.readInput(args[1])
	if err != nil {
		return err
	}
	if strings.TrimSpace(content) == "" {
		return &cliError{code: plan.CodeInvalidArgument, exit: exitFailed,
			msg: fmt.Sprintf("%s is empty; a plan needs a body, with its steps as a checklist (- [ ] step)", args[1])}
	}
	p, err := c.store.Put(c.ctx, plan.Update{Name: args[0], Content: &content, IfRevision: c.rev})
	if err != nil {
		return err
	}
	verb := "updated"
	if c.created {
		verb = "created"
	}
	fmt.Fprintf(c.stdout, "%s: %s from %s, revision %d, %s\n", p.Name, verb, args[1], p.Revision,
		progressText(plan.Summarize(p).Progress))
	return nil
}

// readInput reads FILE, or standard input for "-", refusing more than a plan may hold
// without reading it all.
func (c *cli) readInput(name string) (string, error) {
	r := c.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return "", err
		}
		defer f.Close()
		r = f
	}
	limit := int64(api.DefaultMaxContentBytes)
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return "", err
	}
	if int64(len(b)) > limit {
		return "", fmt.Errorf("%s is larger than the %d-byte plan limit", name, limit)
	}
	return string(b), nil
}

func (c *cli) remove(args []string) error {
	rev, err := c.store.Delete(c.ctx, args[0], c.rev)
	if err != nil {
		return err
	}
	if rev > 0 {
		fmt.Fprintf(c.stdout, "%s: removed at revision %d\n", args[0], rev)
	} else {
		fmt.Fprintf(c.stdout, "%s: removed\n", args[0])
	}
	return nil
}
