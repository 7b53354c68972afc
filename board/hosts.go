package board

import (
	"fmt"
	"net"
	"net/http"
	"strings"
)

// WithHosts names the hosts the board answers for: a request whose Host header names any
// other host is refused with 421 (code wrong_host) before anything is read or done, so a
// page on a host name rebound to this server's address (DNS rebinding) gets nothing, even
// though its requests look same-origin to the browser. A name is a host ("board.example.com",
// "127.0.0.1", "::1"), matching any port, or a host and port ("localhost:8080",
// "[::1]:8080"), matching that port only; case does not matter. WithHosts replaces the
// default: name the loopback names too when the board is also opened through them.
//
// Without WithHosts the board answers only for loopback names (localhost, 127.0.0.0/8, ::1)
// and for the IP address of the connection's own end (http.LocalAddrContextKey): a board
// reached through a host name, as behind a proxy, needs WithHosts with that name. Empty
// names are ignored; WithHosts with no name refuses every request.
func WithHosts(names ...string) Option {
	var hs []hostName
	for _, n := range names {
		if h, ok := parseHostName(n); ok {
			hs = append(hs, h)
		}
	}
	return func(c *config) { c.hosts, c.hostsSet = hs, true }
}

// hostName is one allowed host; port "" matches any port.
type hostName struct{ host, port string }

// parseHostName reads "host", "host:port", "[v6]" or "[v6]:port", lower-cased, with the
// brackets of an IPv6 address removed.
func parseHostName(s string) (hostName, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return hostName{}, false
	}
	if h, p, err := net.SplitHostPort(s); err == nil {
		return hostName{h, p}, h != ""
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	return hostName{host: s}, s != ""
}

// hostAllowed reports whether r's Host header names a host the board answers for.
func (b *board) hostAllowed(r *http.Request) bool {
	h, ok := parseHostName(r.Host)
	if !ok || strings.ContainsAny(h.host, "/@ ") {
		return false
	}
	if b.cfg.hostsSet {
		for _, a := range b.cfg.hosts {
			if a.host == h.host && (a.port == "" || a.port == h.port) {
				return true
			}
		}
		return false
	}
	if h.host == "localhost" {
		return true
	}
	ip := net.ParseIP(h.host)
	if ip == nil {
		return false // a name, which a page could have rebound
	}
	if ip.IsLoopback() {
		return true
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if tcp, ok := local.(*net.TCPAddr); ok {
		return tcp.IP.Equal(ip)
	}
	return false
}

// wrongHost is the refusal of r, for a host the board does not answer for: it names the
// host asked for and the hosts answered for, so whoever mounted the board sees what to add
// to WithHosts. Those names are no secret: a page on a rebound name already reached this
// server, and the board still does nothing for it.
func (b *board) wrongHost(r *http.Request) *apiError {
	hosts := b.answersFor(r)
	asked := r.Host
	if len(asked) > maxHostShown {
		asked = asked[:maxHostShown] + "…"
	}
	msg := fmt.Sprintf("this board does not answer for host %q; ", asked)
	switch {
	case len(hosts) == 0:
		msg += "it answers for no host (board.WithHosts was given no name)"
	case b.cfg.hostsSet:
		msg += "it answers for " + strings.Join(hosts, ", ") + " (board.WithHosts)"
	default:
		msg += "it answers for " + strings.Join(hosts, ", ") + ": open it by one of them, or name this host with board.WithHosts"
	}
	return &apiError{status: http.StatusMisdirectedRequest, Code: "wrong_host", Message: msg, Hosts: hosts}
}

// maxHostShown bounds the requested host a refusal repeats.
const maxHostShown = 256

// answersFor lists the hosts the board answers for, as a person would type them: those
// WithHosts names, or by default the loopback names and the address r reached it on.
func (b *board) answersFor(r *http.Request) []string {
	hosts := []string{}
	if b.cfg.hostsSet {
		for _, h := range b.cfg.hosts {
			hosts = append(hosts, h.String())
		}
		return hosts
	}
	hosts = append(hosts, "localhost", "127.0.0.0/8", "[::1]")
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if tcp, ok := local.(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		hosts = append(hosts, hostName{host: tcp.IP.String()}.String())
	}
	return hosts
}

// String is the name as WithHosts reads it: an IPv6 address in brackets, the port after
// a colon when there is one.
func (h hostName) String() string {
	host := h.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if h.port == "" {
		return host
	}
	return host + ":" + h.port
}
