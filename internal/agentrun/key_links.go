package agentrun

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cloudwego/eino/schema"
	"github.com/einoplan/plan/api"
	"github.com/einoplan/plan/internal/engine"
	"github.com/einoplan/plan/internal/localfs"
)

func init() {
	schema.RegisterName[api.RunWarning]("einoplan_run_warning") // events are kept in checkpoints
}

// warnKeyLinks sends the run of ctx an api.RunWarning when the key file of the Store's
// LocalBackend has more than one name: one stat per run.
func (m *Middleware[M, S]) warnKeyLinks(ctx context.Context) {
	if m.Store.GivenKey != nil {
		return // the key is the host's, not a file
	}
	bl, ok := engine.Innermost(m.Store.Backend).(*localfs.Backend)
	if !ok {
		return
	}
	key := filepath.Join(bl.StorageName(), filepath.FromSlash(engine.ApprovalKeyPath(m.Store.Dir)))
	fi, err := os.Lstat(key)
	if err != nil || !localfs.HardLinked(fi) {
		return
	}
	m.emit(ctx, api.RunWarning{Reason: api.WarningKeyLinked, Path: key,
		Message: fmt.Sprintf("the approval key %s has more than one name (a hard link): whoever reads another name can seal approvals; remove the other names", key)})
}
