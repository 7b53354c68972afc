package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/driver"
	"github.com/einoplan/plan/internal/document"

	"github.com/einoplan/plan"
)

func init() {
	commands["import-plantask"] = command{args: []string{"NAME", "TASKDIR"}, flags: []string{"rev"}, run: (*cli).importPlantask}
}

// plantaskTask is one task as Eino's plantask middleware stores it: <BaseDir>/<id>.json.
type plantaskTask struct {
	ID          string         `json:"id"`
	Subject     string         `json:"subject"`
	Description string         `json:"description"`
	Status      string         `json:"status"`
	Blocks      []string       `json:"blocks"`
	BlockedBy   []string       `json:"blockedBy"`
	ActiveForm  string         `json:"activeForm"`
	Owner       string         `json:"owner"`
	Metadata    map[string]any `json:"metadata"`

	num int // the id as a number, from the file name
}

// plantask task states; a task in any other state is imported as pending.
const (
	taskPending    = "pending"
	taskInProgress = "in_progress"
	taskCompleted  = "completed"
	taskDeleted    = "deleted"
)

// maxTaskFile bounds one task file; a plan cannot hold more anyway.
const maxTaskFile = api.DefaultMaxContentBytes

// importPlantask writes one plan from the tasks plantask keeps in DIR (on the local disk
// with -dir, else inside the Redis or PostgreSQL backend): one step per task in id order,
// then the holds of owned and in-progress tasks, taken through the Store. It only creates
// NAME unless -rev N says which revision of it to replace.
func (c *cli) importPlantask(args []string) error {
	name, from := args[0], args[1]
	tasks, where, err := c.readPlantask(from)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return &cliError{exit: exitFailed, msg: c.t("plantask.none", where)}
	}
	imp := planFromTasks(where, tasks)
	if cycle := taskCycle(imp.body, tasks); cycle != nil {
		return &cliError{code: codeStepCycle, exit: exitFailed, msg: c.t("plantask.cycle",
			strings.Join(cycle, ", "), where, strings.Join(append(cycle, cycle[0]), c.t("plantask.waits_for")))}
	}
	if len(imp.body) > api.DefaultMaxContentBytes {
		return &cliError{code: plan.CodeTooLarge, exit: exitFailed, msg: c.t("plantask.too_large",
			len(tasks), where, len(imp.body), api.DefaultMaxContentBytes)}
	}
	if c.rev == nil {
		zero := int64(0)
		c.rev = &zero // create only: replacing a plan takes -rev N
	}
	p, err := c.store.Put(c.ctx, plan.Update{Name: name, Content: &imp.body, IfRevision: c.rev})
	if err != nil {
		return err
	}
	verb := c.t("plantask.updated")
	if c.created {
		verb = c.t("plantask.created")
	}
	var held []string
	var failed error
	for _, h := range imp.holds {
		rev := p.Revision
		// The history credits each hold to the owner the task names, as plantask did, not to
		// the person importing.
		next, step, err := c.store.MoveStep(plan.WithActor(c.ctx, h.owner), plan.StepMove{Name: name, Step: h.step, State: plan.StepInProgress,
			By: h.owner, Takeover: h.takeover, IfRevision: &rev})
		if err != nil {
			c.sayErr("plantask.not_held", h.step, h.id, oneLine(h.owner), err)
			failed = &cliError{exit: exitFailed, msg: c.t("plantask.holds_failed", name, verb)}
			continue
		}
		p = next
		held = append(held, c.t("plantask.held", step.Number, h.id, oneLine(step.Holder)))
	}
	c.say("plantask.done", p.Name, verb, len(tasks), where, p.Revision, progressText(plan.Summarize(p).Progress))
	for _, n := range imp.notes {
		held = append(held, c.t(n.key, n.vals...))
	}
	for _, line := range held {
		c.say("plantask.note", line)
	}
	return failed
}

// readPlantask reads the tasks in from, in id order, and says where it looked. Deleted
// tasks are left out.
func (c *cli) readPlantask(from string) ([]*plantaskTask, string, error) {
	type file struct {
		num  int
		path string
	}
	var files []file
	var read func(string) ([]byte, error)
	var where string
	if c.loc.server != "" {
		dir := path.Clean("/" + from)
		where = c.loc.server + " " + dir
		entries, err := c.loc.backend.LsInfo(c.ctx, &driver.LsInfoRequest{Path: dir})
		if err != nil {
			return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.list", where, err)}
		}
		for _, e := range entries {
			if n, ok := taskNumber(path.Base(e.Path)); ok && !e.IsDir {
				files = append(files, file{n, path.Join(dir, path.Base(e.Path))})
			}
		}
		read = func(p string) ([]byte, error) {
			fc, err := c.loc.backend.Read(c.ctx, &driver.ReadRequest{FilePath: p, Offset: 1, Limit: maxTaskFile})
			if err != nil {
				return nil, err
			}
			return []byte(fc.Content), nil
		}
	} else {
		where = from
		entries, err := os.ReadDir(from)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.no_dir", from)}
			}
			return nil, where, err
		}
		for _, e := range entries {
			if n, ok := taskNumber(e.Name()); ok && e.Type().IsRegular() {
				files = append(files, file{n, filepath.Join(from, e.Name())})
			}
		}
		read = func(p string) ([]byte, error) {
			f, err := os.Open(p)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return io.ReadAll(io.LimitReader(f, maxTaskFile+1))
		}
	}
	slices.SortFunc(files, func(a, b file) int { return cmp.Or(a.num-b.num, strings.Compare(a.path, b.path)) })
	for i := 1; i < len(files); i++ {
		if files[i].num == files[i-1].num {
			return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.twice", files[i-1].path, files[i].path, files[i].num)}
		}
	}
	var tasks []*plantaskTask
	for _, f := range files {
		raw, err := read(f.path)
		if err != nil {
			return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.read", f.path, err)}
		}
		if len(raw) > maxTaskFile {
			return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.file_too_large", f.path, maxTaskFile)}
		}
		t := &plantaskTask{}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // metadata numbers stay as written
		if err := dec.Decode(t); err != nil {
			return nil, where, &cliError{exit: exitFailed, msg: c.t("plantask.not_task", f.path, err)}
		}
		if t.Status == taskDeleted {
			continue
		}
		t.num, t.ID = f.num, strconv.Itoa(f.num) // the file name is the id plantask goes by
		t.Owner = strings.TrimSpace(t.Owner)
		tasks = append(tasks, t)
	}
	return tasks, where, nil
}

// codeStepCycle is planctl's code for tasks that wait for each other in a cycle.
const codeStepCycle plan.Code = "step_cycle"

// taskCycle is the ids of tasks whose steps in body wait for each other in a cycle, in the
// order each waits for the next; nil when none do. It reads the body as the Store will,
// so a plan it passes is never refused for a cycle.
func taskCycle(body string, tasks []*plantaskTask) []string {
	var ids []string
	for _, n := range document.FindCycle(plan.ParseSteps(body)) {
		if n >= 1 && n <= len(tasks) {
			ids = append(ids, tasks[n-1].ID)
		}
	}
	return ids
}

// taskNumber reads the id of a plantask task file name, "12.json".
func taskNumber(name string) (int, bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || id == "" || strings.Trim(id, "0123456789") != "" || len(id) > 9 {
		return 0, false
	}
	n, err := strconv.Atoi(id)
	return n, err == nil
}

// imported is the plan written from plantask's tasks: its body, the holds to take once it
// is written, and what a person should know about the rest.
type imported struct {
	body  string
	holds []importHold
	notes []message
}

// message is a message key and its values, said once the language is known.
type message struct {
	key  string
	vals []any
}

// importHold is a step to hold for a task's owner: a task in progress is written in
// progress and handed to its owner (takeover); an owned pending task is claimed.
type importHold struct {
	step     int
	id       string
	owner    string
	takeover bool
}

// planFromTasks turns tasks (in id order) into a plan body. Each step reads
// "Subject [task ID] (after N, M)": the id right after the subject, so neither a subject
// ending like "(after 2)" nor one ending like a holder's tag is read as one, and the
// "(after …)" numbers are step numbers. Description, owner, active form and metadata
// follow as an indented paragraph of the step.
func planFromTasks(where string, tasks []*plantaskTask) imported {
	stepOf := make(map[string]int, len(tasks))
	for i, t := range tasks {
		stepOf[t.ID] = i + 1
	}
	waits := make([][]int, len(tasks))
	for i, t := range tasks {
		for _, id := range t.BlockedBy {
			if n, ok := stepOf[strings.TrimSpace(id)]; ok && n != i+1 {
				waits[i] = append(waits[i], n)
			}
		}
		for _, id := range t.Blocks { // the same edge seen from the other end
			if n, ok := stepOf[strings.TrimSpace(id)]; ok && n != i+1 {
				waits[n-1] = append(waits[n-1], i+1)
			}
		}
	}
	var b strings.Builder
	var imp imported
	fmt.Fprintf(&b, "# Tasks from plantask\n\nImported from %s. Each step names the id its task had there: [task N].\n", oneLine(where))
	for i, t := range tasks {
		slices.Sort(waits[i])
		waits[i] = slices.Compact(waits[i])
		marker, ready := " ", true
		for _, n := range waits[i] {
			ready = ready && tasks[n-1].Status == taskCompleted
		}
		var info []string
		switch {
		case t.Status == taskCompleted:
			marker = "x"
		case t.Status == taskInProgress:
			marker = "~"
			if t.Owner != "" {
				imp.holds = append(imp.holds, importHold{step: i + 1, id: t.ID, owner: t.Owner, takeover: true})
			} else {
				imp.notes = append(imp.notes, message{"plantask.no_owner", []any{i + 1, t.ID}})
			}
		case t.Owner != "" && ready:
			imp.holds = append(imp.holds, importHold{step: i + 1, id: t.ID, owner: t.Owner})
		case t.Owner != "":
			imp.notes = append(imp.notes, message{"plantask.waiting", []any{i + 1, t.ID, joinInts(waits[i]), oneLine(t.Owner)}})
		}
		if t.Status != taskPending && t.Status != taskInProgress && t.Status != taskCompleted {
			info = append(info, "plantask status: "+oneLine(t.Status))
		}
		if t.Owner != "" && (t.Status == taskCompleted || t.Status != taskInProgress && !ready) {
			info = append(info, "owner: "+oneLine(t.Owner))
		}
		if t.ActiveForm != "" {
			info = append(info, "active form: "+oneLine(t.ActiveForm))
		}
		if len(t.Metadata) > 0 {
			meta, err := json.Marshal(t.Metadata) // keys sorted
			if err == nil {
				info = append(info, "metadata: "+string(meta))
			}
		}
		subject := strings.TrimSpace(oneLine(t.Subject))
		if subject == "" {
			subject = "(no subject)"
		}
		line := fmt.Sprintf("- [%s] %s [task %s]", marker, subject, t.ID)
		if len(waits[i]) > 0 {
			line += " (after " + joinInts(waits[i]) + ")"
		}
		b.WriteString("\n" + stepBlock(line, t.Description, info))
	}
	imp.body = b.String()
	return imp
}

// stepBlock is one step's line followed by its description and info lines, indented to
// stay inside the step's list item. A description that would read as more steps (a
// checklist of its own) is kept verbatim in a fenced code block instead.
func stepBlock(line, description string, info []string) string {
	var desc []string
	for _, l := range strings.Split(strings.ReplaceAll(strings.TrimSpace(description), "\r\n", "\n"), "\n") {
		desc = append(desc, printable(strings.TrimRight(l, " \t\r"), ' '))
	}
	if len(desc) == 1 && desc[0] == "" {
		desc = nil
	}
	block := func(desc []string) string {
		var b strings.Builder
		b.WriteString(line + "\n")
		for _, part := range [][]string{desc, info} {
			if len(part) == 0 {
				continue
			}
			b.WriteString("\n")
			for _, l := range part {
				if l != "" {
					b.WriteString("  " + l)
				}
				b.WriteString("\n")
			}
		}
		return b.String()
	}
	out := block(desc)
	if steps := plan.ParseSteps(out); len(steps) == 1 && "- ["+string(markerOf(steps[0]))+"] "+steps[0].Text == line {
		return out
	}
	fence := "```"
	for strings.Contains(description, fence) {
		fence += "`"
	}
	return block(append(append([]string{fence + "text"}, desc...), fence))
}

// markerOf is the checkbox character of a step's state.
func markerOf(s plan.Step) byte {
	switch s.State {
	case plan.StepInProgress:
		return '~'
	case plan.StepCompleted:
		return 'x'
	case plan.StepSkipped:
		return '-'
	case plan.StepFailed:
		return '!'
	}
	return ' '
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}
