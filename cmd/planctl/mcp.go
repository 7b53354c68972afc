package main

import (
	"errors"
	"flag"
	"io"
	"strings"

	"github.com/cloudwego/eino/adk"
	planmcp "github.com/einoplan/plan/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpFlags are the flags of planctl mcp, and watch's -acp.
type mcpFlags struct {
	as         string // -as: who every client acts as
	lang       string // -lang: en or zh, for every command (lang.go)
	approval   bool   // -approval: plan mode
	askClient  bool   // -ask-client: request_plan_approval asks through the client
	acpSession string // watch -acp: the ACP session the updates are for
}

// register adds the flags of planctl mcp and watch -acp to fs.
func (f *mcpFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.acpSession, "acp", "", "")
	fs.StringVar(&f.as, "as", "", "")
	fs.StringVar(&f.lang, "lang", "", "")
	fs.BoolVar(&f.approval, "approval", false, "")
	fs.BoolVar(&f.askClient, "ask-client", false, "")
}

// mcp serves the plan tools and the plans over MCP on standard input and output until the
// client closes them.
func (c *cli) mcp([]string) error {
	lang := adk.LanguageEnglish
	if c.l == langZH {
		lang = adk.LanguageChinese
	}
	if c.set["as"] {
		if err := planmcp.CheckName(c.mcpFlags.as); err != nil {
			return &cliError{exit: exitUsage, msg: c.t("mcp.as", strings.TrimPrefix(err.Error(), "mcp: "))}
		}
	}
	s, err := planmcp.NewServer(c.ctx, planmcp.Options{Store: c.store, Language: lang, As: c.mcpFlags.as,
		RequireApproval: c.mcpFlags.approval, AskClients: c.mcpFlags.askClient, Person: terminalPerson()})
	if err != nil {
		return err
	}
	err = s.Run(c.ctx, &sdk.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}})
	if err == nil || errors.Is(err, io.EOF) || c.ctx.Err() != nil {
		return nil
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
