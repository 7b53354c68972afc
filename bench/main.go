// Command bench measures the plan library side by side with Eino's plantask middleware:
// the tokens its tool definitions and edit loop cost a model, the speed of its
// operations, contention on guarded writes, and the overhead of its BeforeAgent. It
// prints Markdown tables.
//
//	go run .          # full run, under 3 minutes on 2 cores
//	go run . -quick   # smaller sizes and shorter timings, under 20 seconds
//	go run . -session # only the session benchmark (scripts/bench-session.sh adds the previous build)
//	go run . -contention  # table 4 only, tab-separated (scripts/bench-contention.sh)
//	go run . -cost    # only the cost per step tables: plan, its lean worker, plantask, no plan tools
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	quick := flag.Bool("quick", false, "smaller sizes and shorter timings (10,000 entries skipped)")
	session := flag.Bool("session", false, "run only the session benchmark: an orchestrator and workers complete a plan")
	sessionOld := flag.String("session-old", "", "with -session: also run this bench binary, built from an earlier commit")
	sessionOldLabel := flag.String("session-old-label", "previous", "with -session-old: its name in the table")
	sessionRounds := flag.Int("session-rounds", 5, "with -session: rounds (1 with -quick)")
	sessionSteps := flag.Int("session-steps", 60, "with -session: steps of the plan")
	sessionWorkers := flag.Int("session-workers", 4, "with -session: workers")
	costOnly := flag.Bool("cost", false, "only the cost per step table")
	contention := flag.Bool("contention", false, "only table 4, as tab-separated lines, Redis included (for scripts/bench-contention.sh)")
	flag.Parse()
	if *session {
		o := sessionOptions{old: *sessionOld, oldLabel: *sessionOldLabel, rounds: *sessionRounds, steps: *sessionSteps,
			workers: *sessionWorkers, newRecover: recoverStatus, progress: os.Stderr, modes: sessionModes}
		if *quick {
			o.rounds = 1
		}
		if err := sessionCommand(context.Background(), os.Stdout, o); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *costOnly {
		if err := costCommand(context.Background(), os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	cfg := fullConfig()
	if *quick {
		cfg = quickConfig()
	}
	if *contention {
		if err := contentionRows(context.Background(), os.Stdout, cfg, true); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	start := time.Now()
	if err := run(context.Background(), os.Stdout, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "bench: %s run took %v\n", cfg.mode, time.Since(start).Round(100*time.Millisecond))
}

// run prints the header and every table.
func run(ctx context.Context, w io.Writer, cfg config) error {
	tables, err := allTables(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprint(w, header(cfg))
	for _, t := range tables {
		fmt.Fprintln(w)
		fmt.Fprint(w, t.markdown())
	}
	return nil
}

// allTables builds every table of a run, in order.
func allTables(ctx context.Context, cfg config) ([]*table, error) {
	c, err := newCounter()
	if err != nil {
		return nil, err
	}
	// Table 5's plans are seeded first, so that on a file system their racy window has
	// passed by the time they are timed.
	setup, err := prepareOverhead(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("overhead: %w", err)
	}
	defer setup.close()
	var tables []*table
	lap := time.Now()
	progress := func(what string) {
		fmt.Fprintf(os.Stderr, "bench: %s took %v\n", what, time.Since(lap).Round(10*time.Millisecond))
		lap = time.Now()
	}
	defs, err := toolDefinitionTables(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("tool definitions: %w", err)
	}
	tables = append(tables, defs...)
	progress("tool definitions")
	edit, err := editLoopTables(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("edit loop: %w", err)
	}
	tables = append(tables, edit...)
	resync, err := resyncTable(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("re-sync: %w", err)
	}
	tables = append(tables, resync)
	progress("edit loop")
	costs, _, err := costPerStepTables(ctx, c, cfg.costSteps)
	if err != nil {
		return nil, fmt.Errorf("cost per step: %w", err)
	}
	tables = append(tables, costs...)
	progress("cost per step")
	ops, err := operationTables(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("operations: %w", err)
	}
	tables = append(tables, ops...)
	syncs, err := syncsTable(ctx, 100)
	if err != nil {
		return nil, fmt.Errorf("syncs: %w", err)
	}
	tables = append(tables, syncs)
	progress("operations")
	cont, err := contentionTable(ctx, cfg)
	if err != nil {
		return nil, err
	}
	tables = append(tables, cont)
	progress("contention")
	over, err := overheadTable(ctx, cfg, setup)
	if err != nil {
		return nil, fmt.Errorf("overhead: %w", err)
	}
	tables = append(tables, over)
	progress("overhead")
	for _, t := range tables {
		if err := t.check(); err != nil {
			return nil, err
		}
	}
	return tables, nil
}

func header(cfg config) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## plan benchmarks (%s run)\n\n", cfg.mode)
	fmt.Fprintf(&b, "- Go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&b, "- CPU: %s\n", cpuModel())
	fmt.Fprintf(&b, "- Cores: %d (GOMAXPROCS %d)\n", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "- Compared with: Eino v0.9.13 adk/middlewares/plantask; tokens by github.com/tiktoken-go/tokenizer (o200k_base, cl100k_base)\n")
	return b.String()
}
