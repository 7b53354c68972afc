package localfs

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"time"
)

// RacyWindow is how long after a change a stamp proves nothing: within the file system's
// clock granularity a second change can leave a folder's or file's time and size as they were.
const RacyWindow = 2 * time.Second

// FolderStamp returns the modification time and size of the folder dir, which change
// whenever Write renames a file into it or Delete removes one, so a watcher can skip
// listing a folder whose stamp did not move. recent is true while the folder changed less
// than RacyWindow ago: within the file system's clock granularity a second change can
// leave the stamp as it was, so such a stamp proves nothing. A missing folder's stamp is
// always recent: nothing tells one absence from the next.
func (b *Backend) FolderStamp(ctx context.Context, dir string) (string, bool, error) {
	if err := ctx.Err(); err != nil {
		return "", false, err
	}
	rel, err := localRel("stat", dir)
	if err != nil {
		return "", false, err
	}
	fi, err := b.root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		// Recent: the folder may have been there and gone again since any earlier "absent",
		// so this stamp vouches for nothing (and listing a missing folder costs one lookup).
		return "absent", true, nil
	}
	if err != nil {
		return "", false, b.wrap("stat", dir, err)
	}
	mod := fi.ModTime()
	stamp := strconv.FormatInt(mod.UnixNano(), 10) + "/" + strconv.FormatInt(fi.Size(), 10)
	return stamp, time.Since(mod) < RacyWindow, nil
}
