package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// served is a running `planctl serve`: the board's address, the URL it printed (which
// carries the run's secret), and the line it printed.
type served struct{ base, url, banner string }

// bannerURL reads the URL `planctl serve` prints.
var bannerURL = regexp.MustCompile(`at (http://\S+/)\?secret=(\S+) \(`)

// secret is the run's secret, from the URL serve printed.
func (s served) secret() string { return strings.TrimPrefix(s.url, s.base+"?secret=") }

// parseBanner reads the board's address and secret URL from the line serve printed.
func parseBanner(t *testing.T, line string) served {
	t.Helper()
	m := bannerURL.FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return served{base: m[1], url: m[1] + "?secret=" + m[2], banner: line}
}

// startServe runs `planctl serve` with args until the test ends.
func startServe(t *testing.T, args ...string) served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out, w := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- (&cli{ctx: ctx, stdin: strings.NewReader(""), stdout: w, stderr: &stderr}).run(args)
		w.Close()
	}()
	t.Cleanup(func() {
		cancel()
		go func() { _, _ = io.Copy(io.Discard, out) }()
		select {
		case code := <-done:
			assert.Equal(t, exitOK, code, "serve ends quietly on interrupt")
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop on interrupt")
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err, stderr.String())
	return parseBanner(t, line)
}

// signedIn is a client that opened the URL serve printed, as the person does: it holds the
// board's cookie.
func signedIn(t *testing.T, s served) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar}
	resp, err := client.Get(s.url)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, s.base, resp.Request.URL.String(), "the browser is sent on to the URL without the secret")
	return client
}

// boardAction sends an action to the board as its page does, with client.
func boardAction(t *testing.T, client *http.Client, url, body string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Plan-Board", "1")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}

func TestServeShowsThePlansOnTheBoardAndActsAsTheUser(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "alice")
	s := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	assert.Contains(t, s.banner, "acting as alice")
	client := signedIn(t, s)

	resp, err := client.Get(s.base + "api/plans/ship")
	require.NoError(t, err)
	var p struct {
		Name     string `json:"name"`
		Revision int64  `json:"revision"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
	resp.Body.Close()
	assert.Equal(t, "ship", p.Name)

	require.Equal(t, http.StatusOK, boardAction(t, client, s.base+"api/plans/ship/approve", `{"revision":1}`))

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "approved at r1 by alice")
}

// Whoever did not get the URL serve printed (another process, another user of the
// machine) reads nothing and acts on nothing, even sending what the board's page sends.
func TestServeAnswersOnlyTheURLItPrinted(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "alice")
	s := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	for _, path := range []string{"", "api/plans", "api/plans/ship", "api/events", "api/me"} {
		resp, err := http.Get(s.base + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
	}
	assert.Equal(t, http.StatusUnauthorized, boardAction(t, http.DefaultClient, s.base+"api/plans/ship/approve", `{"revision":1}`))
	assert.Equal(t, http.StatusUnauthorized, boardAction(t, http.DefaultClient, s.base+"api/plans/ship/steps/3/holder", `{"revision":1,"holder":"mallory-agent"}`))
	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.NotContains(t, r.stdout, "approved at")
	assert.NotContains(t, r.stdout, "mallory-agent")

	// Each run makes its own secret; the last run's URL opens nothing.
	again := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	assert.NotEqual(t, s.secret(), again.secret())
	resp, err := http.Get(again.base + "?secret=" + s.secret())
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.GreaterOrEqual(t, len(again.secret()), 43, "a secret of at least 256 bits, base64")
}

func TestServeIsReadOnlyBeyondThisMachine(t *testing.T) {
	dir := newDir(t)
	s := startServe(t, "-dir", dir, "serve", "-addr", "0.0.0.0:0")
	assert.Contains(t, s.banner, "read-only: 0.0.0.0 is not a loopback address")
}

func TestServeRefusesABadAddress(t *testing.T) {
	wantExit(t, exitUsage, "-addr nowhere is not HOST:PORT", "serve", "-addr", "nowhere")
	wantExit(t, exitUsage, "-addr applies to serve only", "list", "-addr", "127.0.0.1:1")
}

func TestServeRefusesARequestForAnotherHostName(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "alice")
	s := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	url := s.base
	port := url[strings.LastIndex(url, ":")+1 : len(url)-1]
	client := signedIn(t, s) // even with the person's cookie, the host name is refused first

	// A page on rebound.test, whose name now resolves to 127.0.0.1, approves as the board's
	// own page would: same origin as far as the browser can tell.
	req, err := http.NewRequest(http.MethodPost, url+"api/plans/ship/approve", strings.NewReader(`{"revision":1}`))
	require.NoError(t, err)
	req.Host = "rebound.test:" + port
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Plan-Board", "1")
	req.Header.Set("Origin", "http://rebound.test:"+port)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)

	req, err = http.NewRequest(http.MethodGet, url+"api/plans/ship", nil)
	require.NoError(t, err)
	req.Host = "rebound.test:" + port
	resp, err = client.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "nothing is read for another host either")

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.NotContains(t, r.stdout, "approved at")

	// The loopback names it serves under still work, with the secret (a cookie is kept per
	// host name, so a script sends it as a bearer token).
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		req, err = http.NewRequest(http.MethodGet, url+"api/plans/ship", nil)
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Authorization", "Bearer "+s.secret())
		resp, err = client.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, host)
	}
}
