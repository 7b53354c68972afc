//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package plan_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/internal/childtest"
)

// raceChildEnv holds the raceChild that TestRaceChildProcess, run as a child process, plays.
const raceChildEnv = "PLAN_RACE_CHILD"

type raceChild struct {
	Role, Worker, Store, Workspace string
	Duration                       time.Duration
}

const raceOpPrefix = "op "

func init() { raceProcesses = runRaceProcesses }

// TestRaceChildProcess is the worker side of the multi-process race tests: it prints
// "ready", waits for a line on stdin, plays its role and prints every call as a JSON line.
func TestRaceChildProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	spec := os.Getenv(raceChildEnv)
	var c raceChild
	require.NoError(t, json.Unmarshal([]byte(spec), &c))
	backend, ws := newLocal(t, c.Store), newLocal(t, c.Workspace)
	w := &raceWorker{name: c.Worker, tools: workerTools(t, backend, ws, c.Worker), ws: ws,
		rng: rand.New(rand.NewPCG(uint64(os.Getpid()), 7)), emit: func(op raceOp) {
			line, err := json.Marshal(op)
			require.NoError(t, err)
			fmt.Println(raceOpPrefix + string(line))
		}}
	fmt.Println("ready")
	_, err := bufio.NewReader(os.Stdin).ReadString('\n')
	require.NoError(t, err)
	w.until = time.Now().Add(c.Duration)
	require.NoError(t, raceRoles[c.Role](context.Background(), w))
}

// runRaceProcesses runs each role of sc in its own process on one LocalBackend folder,
// starting them together, and checks the calls they report.
func runRaceProcesses(t *testing.T, sc raceScenario) {
	ctx := context.Background()
	base := t.TempDir()
	storeRoot, wsRoot := filepath.Join(base, "store"), filepath.Join(base, "ws")
	store, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, storeRoot)})
	require.NoError(t, err)
	if sc.setup != nil {
		sc.setup(t, ctx, store)
	}

	type child struct {
		*childtest.Child
		ops []raceOp
		err error
	}
	children := make([]*child, len(sc.roles))
	for i, role := range sc.roles {
		spec, err := json.Marshal(raceChild{Role: role, Worker: fmt.Sprintf("%s-%d", role, i),
			Store: storeRoot, Workspace: wsRoot, Duration: 2 * raceDuration})
		require.NoError(t, err)
		children[i] = &child{Child: childtest.Start(t, "TestRaceChildProcess", map[string]string{raceChildEnv: string(spec)})}
	}
	for i, c := range children {
		line, err := c.Stdout.ReadString('\n')
		require.NoError(t, err, "child %d never got ready:\n%s", i, c.Stderr())
		require.Equal(t, "ready\n", line, "child %d:\n%s", i, c.Stderr())
	}
	for _, c := range children {
		_, err := io.WriteString(c.Stdin, "go\n")
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for _, c := range children {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				line, err := c.Stdout.ReadString('\n')
				if rest, ok := strings.CutPrefix(line, raceOpPrefix); ok {
					var op raceOp
					if c.err = json.Unmarshal([]byte(rest), &op); c.err != nil {
						return
					}
					c.ops = append(c.ops, op)
				}
				if err != nil {
					break
				}
			}
			c.err = c.Wait()
		}()
	}
	wg.Wait()
	var ops []raceOp
	for i, c := range children {
		require.NoError(t, c.err, "child %d (%s)", i, sc.roles[i])
		require.NotEmpty(t, c.ops, "child %d (%s) made no calls", i, sc.roles[i])
		ops = append(ops, c.ops...)
	}
	sc.check(t, ctx, ops, store)
}
