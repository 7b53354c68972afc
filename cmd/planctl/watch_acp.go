package main

import (
	"bufio"

	"github.com/einoplan/plan/acp"
)

// watchACP prints every plan, then one ACP session/update notification per change any
// process makes, as JSON-RPC notifications one a line, for the ACP session -acp names: what
// an agent serving ACP sends its client so the client draws the plans live.
func (c *cli) watchACP() error {
	if c.mcpFlags.acpSession == "" {
		return &cliError{exit: exitUsage, msg: c.t("acp.session")}
	}
	out := bufio.NewWriter(c.stdout)
	err := acp.Follow(c.ctx, c.store, func(update []byte) error {
		line, err := acp.Notification(c.mcpFlags.acpSession, update)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(line, '\n')); err != nil {
			return err
		}
		return out.Flush()
	})
	if c.ctx.Err() != nil {
		return nil
	}
	return err
}
