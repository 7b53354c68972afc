package localfs

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"
)

// entryStat is what a listing needs of one folder entry, as lstat reports it.
type entryStat struct {
	isDir bool
	size  int64
	mod   time.Time
}

// maxPlainName is the longest name a folder entry can have on the file systems Linux knows.
const maxPlainName = 255

// notPlain reports whether name could reach beyond the folder it was read from.
func notPlain(name string) bool {
	return name == "" || name == "." || name == ".." || len(name) > maxPlainName || strings.ContainsAny(name, "/\x00")
}

// statEntriesIn is statEntries through os.Root, one walk per name.
func statEntriesIn(folder *os.Root, names []string, each func(name string, st entryStat) error) error {
	for _, name := range names {
		fi, err := folder.Lstat(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the folder was read
		}
		if err != nil {
			return err
		}
		if err := each(name, entryStat{isDir: fi.IsDir(), size: fi.Size(), mod: fi.ModTime()}); err != nil {
			return err
		}
	}
	return nil
}
