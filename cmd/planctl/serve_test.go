package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startServe runs `planctl serve` with args until the test ends and returns the board's
// URL, as the command printed it.
func startServe(t *testing.T, args ...string) (url, banner string) {
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
	m := regexp.MustCompile(`at (http://\S+/) `).FindStringSubmatch(line)
	require.NotNil(t, m, line)
	return m[1], line
}

func TestServeShowsThePlansOnTheBoardAndActsAsTheUser(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "alice")
	url, banner := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	assert.Contains(t, banner, "acting as alice")

	resp, err := http.Get(url + "api/plans/ship")
	require.NoError(t, err)
	var p struct {
		Name     string `json:"name"`
		Revision int64  `json:"revision"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&p))
	resp.Body.Close()
	assert.Equal(t, "ship", p.Name)

	req, err := http.NewRequest(http.MethodPost, url+"api/plans/ship/approve", strings.NewReader(`{"revision":1}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Plan-Board", "1")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.Contains(t, r.stdout, "approved at r1 by alice")
}

func TestServeIsReadOnlyBeyondThisMachine(t *testing.T) {
	dir := newDir(t)
	_, banner := startServe(t, "-dir", dir, "serve", "-addr", "0.0.0.0:0")
	assert.Contains(t, banner, "read-only: 0.0.0.0 is not a loopback address")
}

func TestServeRefusesABadAddress(t *testing.T) {
	wantExit(t, exitUsage, "-addr nowhere is not HOST:PORT", "serve", "-addr", "nowhere")
	wantExit(t, exitUsage, "-addr applies to serve only", "list", "-addr", "127.0.0.1:1")
}

func TestServeRefusesARequestForAnotherHostName(t *testing.T) {
	dir := newDir(t)
	t.Setenv("USER", "alice")
	url, _ := startServe(t, "-dir", dir, "serve", "-addr", "127.0.0.1:0")
	port := url[strings.LastIndex(url, ":")+1 : len(url)-1]

	// A page on rebound.test, whose name now resolves to 127.0.0.1, approves as the board's
	// own page would: same origin as far as the browser can tell.
	req, err := http.NewRequest(http.MethodPost, url+"api/plans/ship/approve", strings.NewReader(`{"revision":1}`))
	require.NoError(t, err)
	req.Host = "rebound.test:" + port
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Plan-Board", "1")
	req.Header.Set("Origin", "http://rebound.test:"+port)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)

	req, err = http.NewRequest(http.MethodGet, url+"api/plans/ship", nil)
	require.NoError(t, err)
	req.Host = "rebound.test:" + port
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode, "nothing is read for another host either")

	r := planctlOK(t, "-dir", dir, "show", "ship")
	assert.NotContains(t, r.stdout, "approved at")

	// The loopback names it serves under still work.
	for _, host := range []string{"localhost:" + port, "127.0.0.1:" + port} {
		req, err = http.NewRequest(http.MethodGet, url+"api/plans/ship", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err = http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, host)
	}
}
