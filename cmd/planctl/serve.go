package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/board"
)

// defaultServeAddr is where serve listens without -addr: this machine only.
const defaultServeAddr = "127.0.0.1:8080"

// serve runs the plan board (package board) on -addr until interrupted. It answers only
// requests that carry a secret made for this run (board.WithSecret), printed in the URL it
// shows, so on a machine shared with other users and processes only the person who reads
// that URL reads the plans or acts. On a loopback address that person acts as $USER, as
// with approve and take; on any other address the board is read-only, since anyone who
// reaches it with the URL would act as that person. The board answers only for the address
// it listens on and the loopback names (serveHosts).
func (c *cli) serve([]string) error {
	addr := c.addr
	if addr == "" {
		addr = defaultServeAddr
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return &cliError{exit: exitUsage, msg: c.t("serve.addr", addr, defaultServeAddr)}
	}
	person := strings.TrimSpace(os.Getenv("USER"))
	// A Store of its own: the command's Store records its changes for the other commands'
	// messages, which a server writing from many requests at once must not touch.
	store, err := plan.NewStore(&plan.StoreConfig{Backend: c.loc.backend, BaseDir: c.loc.baseDir, DefaultAuthor: "planctl", ApprovalKey: c.loc.approvalKey})
	if err != nil {
		return err
	}
	secret, err := board.NewSecret()
	if err != nil {
		return &cliError{exit: exitFailed, msg: c.t("serve.secret", err)}
	}
	opts := []board.Option{board.WithSecret(secret)}
	acting := loopback(host) && person != ""
	if acting {
		opts = append(opts, board.WithPerson(func(*http.Request) (string, error) { return person, nil }))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return &cliError{exit: exitFailed, msg: c.t("serve.listen", addr, err)}
	}
	opts = append(opts, board.WithHosts(serveHosts(host, ln.Addr())...))
	srv := &http.Server{
		Handler:           board.New(store, opts...),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return c.ctx }, // Ctrl-C ends the event streams
	}
	var mode string
	switch {
	case acting:
		mode = c.t("serve.acting", oneLine(person))
	case loopback(host):
		mode = c.t("serve.no_user")
	default:
		mode = c.t("serve.not_loopback", host)
	}
	// The secret is this run's, in the URL only: another user's process sees neither this
	// process's output nor its memory, and a new run makes a new one.
	c.say("serve.started", c.loc.shown, ln.Addr(), board.SecretParam, secret, mode)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return &cliError{exit: exitFailed, msg: c.t("serve.stopped", err)}
	case <-c.ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return &cliError{exit: exitFailed, msg: c.t("serve.stopping", err)}
	}
	return nil
}

// loopback reports whether host names this machine only.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHosts names the hosts the board answers for when listening on host at addr: the
// loopback names and the address listened on, each with the port, and, on an address of
// every interface, this machine's name and interface addresses. Any other Host header is
// refused, so a page on a host name rebound to this address gets nothing.
func serveHosts(host string, addr net.Addr) []string {
	_, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return nil
	}
	names := []string{"localhost", "127.0.0.1", "::1"}
	if host != "" {
		names = append(names, host)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		if name, err := os.Hostname(); err == nil && name != "" {
			names = append(names, name)
		}
		if addrs, err := net.InterfaceAddrs(); err == nil {
			for _, a := range addrs {
				if n, ok := a.(*net.IPNet); ok {
					names = append(names, n.IP.String())
				}
			}
		}
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, net.JoinHostPort(n, port))
	}
	return out
}
