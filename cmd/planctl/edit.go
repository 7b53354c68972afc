package main

import (
	"errors"
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
	c.say("status.done", p.Name, oneLine(p.Status), p.Revision)
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
	c.say("export.done", p.Name, p.Revision, args[1], len(p.Content))
	return nil
}

func (c *cli) importFile(args []string) error {
	content, err := c.readInput(args[1])
	if err != nil {
		return err
	}
	if strings.TrimSpace(content) == "" {
		return &cliError{code: plan.CodeInvalidArgument, exit: exitFailed,
			msg: c.t("import.empty", args[1])}
	}
	p, err := c.store.Put(c.ctx, plan.Update{Name: args[0], Content: &content, IfRevision: c.rev})
	if err != nil {
		return err
	}
	key := "import.updated"
	if c.created {
		key = "import.created"
	}
	c.say(key, p.Name, args[1], p.Revision, progressText(plan.Summarize(p).Progress))
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
		return "", errors.New(c.t("import.too_large", name, limit))
	}
	return string(b), nil
}

func (c *cli) remove(args []string) error {
	rev, err := c.store.Delete(c.ctx, args[0], c.rev)
	if err != nil {
		return err
	}
	if rev > 0 {
		c.say("rm.done_at", args[0], rev)
	} else {
		c.say("rm.done", args[0])
	}
	return nil
}
