//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package plan_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/einoplan/plan"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/childtest"
	"github.com/einoplan/plan/plantest"
)

const deciderEnv = "PLAN_DECIDER_CHILD"

// TestDeciderChildProcess is the person of TestADecisionMadeInAnotherProcessResumesTheRun:
// given "ROOT DECISION...", it waits on its own Store until a run waits on plan "release",
// then decides on the revision the plan says it waits on: "reject" rejects it with
// feedback, "approve" approves it; one decision per request, in order.
func TestDeciderChildProcess(t *testing.T) {
	childtest.SkipUnlessChild(t)
	fields := strings.Fields(os.Getenv(deciderEnv))
	require.GreaterOrEqual(t, len(fields), 2)
	ctx := context.Background()
	s, err := plan.NewStore(&plan.StoreConfig{Backend: newLocal(t, fields[0]), HistoryLimit: 20})
	require.NoError(t, err)
	decided := int64(0)
	for _, decision := range fields[1:] {
		var w *api.Waiting
		for deadline := time.Now().Add(time.Minute); w == nil; {
			require.True(t, time.Now().Before(deadline), "no run waited on the plan")
			list, err := s.ListPage(ctx, plan.ListOptions{})
			require.NoError(t, err)
			for _, sum := range list.Plans {
				if sum.Name == "release" && sum.Waiting != nil && sum.Waiting.Revision > decided {
					w = sum.Waiting
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Printf("waiting %s r%d\n", w.Agent, w.Revision)
		if decision == "reject" {
			_, err = s.Reject(ctx, "release", w.Revision, "alice", "Add a rollback step first")
		} else {
			_, err = s.Approve(ctx, "release", w.Revision, "alice")
		}
		require.NoError(t, err)
		decided = w.Revision
	}
}

// askPeople and untilApproval are the host loop of docs/approval.md, as it is written there.
func askPeople(ctx context.Context, store *plan.Store, agent adk.Agent, checkpoints adk.CheckPointStore) error {
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: checkpoints})
	iter := runner.Query(ctx, "Ship release 2.0", adk.WithCheckPointID("release"))
	for {
		req, interruptID, err := untilApproval(iter)
		if err != nil || interruptID == "" {
			return err // the run ended
		}
		fmt.Printf("waiting for a decision on %s at revision %d (planctl approve, the board)\n", req.Name, req.Revision)
		decision, err := store.WaitDecision(ctx, req.Name, req.Revision)
		if err != nil {
			return err
		}
		iter, err = runner.ResumeWithParams(ctx, "release", &adk.ResumeParams{
			Targets: map[string]any{interruptID: decision},
		})
		if err != nil {
			return err
		}
	}
}

func untilApproval(iter *adk.AsyncIterator[*adk.AgentEvent]) (plan.ApprovalRequest, string, error) {
	for {
		ev, ok := iter.Next()
		if !ok {
			return plan.ApprovalRequest{}, "", nil
		}
		if ev.Err != nil {
			return plan.ApprovalRequest{}, "", ev.Err
		}
		if ev.Action == nil || ev.Action.Interrupted == nil {
			continue
		}
		for _, ic := range ev.Action.Interrupted.InterruptContexts {
			if req, ok := ic.Info.(plan.ApprovalRequest); ok && ic.IsRootCause {
				return req, ic.ID, nil
			}
		}
		return plan.ApprovalRequest{}, "", errors.New("the run paused for something else")
	}
}

// The documented host loop, with a person in another process: a rejection reaches the run
// with its feedback, the model revises the plan and asks again, the approval reaches it, and
// the real Eino run resumes and starts the approved steps.
func TestADecisionMadeInAnotherProcessResumesTheRun(t *testing.T) {
	doc, err := os.ReadFile("docs/approval.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), "decision, err := store.WaitDecision(ctx, req.Name, req.Revision)", "the loop tested is the documented one")

	for _, lang := range []adk.Language{adk.LanguageEnglish, adk.LanguageChinese} {
		root := t.TempDir()
		r := newApprovalRig(t, newLocal(t, root), dirCheckPoints{t.TempDir()})
		r.lang = lang
		person := childtest.Start(t, "TestDeciderChildProcess", map[string]string{deciderEnv: root + " reject approve"})
		model := plantest.NewScriptedModel(
			writePlanCall("release", approvalPlan, 0),                                          // r1
			plantest.CallTool("request_plan_approval", `{"name":"release","message":"ready"}`), // r2 waits, r3 rejected
			writePlanCall("release", approvalRevised, 3),                                       // r4
			plantest.CallTool("request_plan_approval", `{"name":"release"}`),                   // r5 waits, r6 approved
			plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`),
			plantest.Answer("working on the changelog"),
		)
		agent, err := adk.NewChatModelAgent(r.ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
			Instruction: "You plan.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{r.middleware()}})
		require.NoError(t, err)

		ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
		require.NoError(t, askPeople(ctx, r.store, agent, r.cps))
		cancel()
		require.NoError(t, person.Wait())

		calls := model.Calls()
		require.Len(t, calls, 6, "the run went on after both decisions")
		rejected := lastToolResult(calls[2])
		assert.Contains(t, rejected, `"approved":false`)
		assert.Contains(t, rejected, "Add a rollback step first", "the feedback reaches the model")
		assert.Equal(t, lang == adk.LanguageChinese, hasHan(rejected), rejected)
		assert.Contains(t, lastToolResult(calls[4]), `"approved":true`)
		assert.Empty(t, errorCode(t, lastToolResult(calls[5])), "the approved step starts")

		p := r.get("release")
		require.NotNil(t, p.Approval)
		assert.Equal(t, api.Approval{Revision: 5, By: "alice", At: p.Approval.At}, *p.Approval)
		assert.Nil(t, p.Waiting)
		hist, err := r.store.History(r.ctx, "release")
		require.NoError(t, err)
		var actions []plan.Action
		for i := len(hist) - 1; i >= 0; i-- {
			actions = append(actions, hist[i].Action)
		}
		assert.Equal(t, []plan.Action{plan.ActionWrite, "await", plan.ActionReject, plan.ActionWrite, "await", plan.ActionApprove, plan.ActionStep}, actions)
		reject := hist[len(hist)-3]
		assert.Equal(t, "alice", reject.Author)
		require.NotNil(t, reject.Rejection)
		assert.Equal(t, "Add a rollback step first", reject.Rejection.Feedback)
		assert.EqualValues(t, 2, reject.Rejection.Revision)
	}
}

// shipLoop is the event loop of docs/plan-mode.md, as it is written there.
func shipLoop(ctx context.Context, store *plan.Store, agent adk.Agent, checkpoints adk.CheckPointStore) error {
	runner := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, CheckPointStore: checkpoints})
	iter := runner.Query(ctx, "ship it", adk.WithCheckPointID("ship"))
	for iter != nil {
		var asked *plan.ApprovalRequest
		var interruptID string
		for {
			ev, ok := iter.Next()
			if !ok {
				break
			}
			if ev.Err != nil {
				return ev.Err
			}
			if ev.Action != nil && ev.Action.Interrupted != nil {
				for _, ic := range ev.Action.Interrupted.InterruptContexts {
					if req, ok := ic.Info.(plan.ApprovalRequest); ok && ic.IsRootCause {
						asked, interruptID = &req, ic.ID
					}
				}
			}
			if ev.Output == nil {
				continue
			}
			switch out := ev.Output.CustomizedOutput.(type) {
			case plan.GatedCall:
				fmt.Println(ev.AgentName, out.Tool, out.Allowed, out.Plan, out.Step, out.Reason)
			case plan.Change:
				fmt.Println(ev.AgentName, out.Name, out.Revision, out.Action)
			}
		}
		iter = nil
		if asked != nil { // paused: wait for a person, then go on
			decision, err := store.WaitDecision(ctx, asked.Name, asked.Revision)
			if err != nil {
				return err
			}
			iter, err = runner.ResumeWithParams(ctx, "ship", &adk.ResumeParams{Targets: map[string]any{interruptID: decision}})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// The event loop of docs/plan-mode.md does not end at request_plan_approval: it waits for
// the approval made in another process and the run goes on to the approved step.
func TestThePlanModeLoopGoesOnAfterAnApprovalMadeElsewhere(t *testing.T) {
	doc, err := os.ReadFile("docs/plan-mode.md")
	require.NoError(t, err)
	require.Contains(t, string(doc), "decision, err := store.WaitDecision(ctx, asked.Name, asked.Revision)", "the loop tested is the documented one")
	root := t.TempDir()
	r := newApprovalRig(t, newLocal(t, root), dirCheckPoints{t.TempDir()})
	person := childtest.Start(t, "TestDeciderChildProcess", map[string]string{deciderEnv: root + " approve"})
	model := plantest.NewScriptedModel(
		writePlanCall("release", approvalPlan, 0),
		plantest.CallTool("request_plan_approval", `{"name":"release"}`),
		plantest.CallTool("update_plan_step", `{"name":"release","step":1,"status":"in_progress"}`),
		plantest.Answer("working"),
	)
	agent, err := adk.NewChatModelAgent(r.ctx, &adk.ChatModelAgentConfig{Name: "planner", Description: "plans",
		Instruction: "You plan.", Model: model, Handlers: []adk.ChatModelAgentMiddleware{r.middleware()}})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
	defer cancel()
	require.NoError(t, shipLoop(ctx, r.store, agent, r.cps))
	require.NoError(t, person.Wait())
	calls := model.Calls()
	require.Len(t, calls, 4, "the run went on after the approval")
	assert.Contains(t, lastToolResult(calls[2]), `"approved":true`)
	assert.Empty(t, errorCode(t, lastToolResult(calls[3])))
}

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
