package localfs

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"time"
)

// entryStat is what a listing needs of one folder entry, as lstat reports it; gone when
// the entry was removed after its name was read.
type entryStat struct {
	isDir bool
	size  int64
	mod   time.Time
	gone  bool
}

// maxPlainName is the longest name a folder entry can have on the file systems Linux knows.
const maxPlainName = 255

// notPlain reports whether name could reach beyond the folder it was read from.
func notPlain(name string) bool {
	return name == "" || name == "." || name == ".." || len(name) > maxPlainName || strings.ContainsAny(name, "/\x00")
}

// statNamesIn lstats names through os.Root, one walk per name.
func statNamesIn(folder *os.Root, names []string) ([]entryStat, error) {
	out := make([]entryStat, len(names))
	for i, name := range names {
		fi, err := folder.Lstat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out[i].gone = true
		case err != nil:
			return nil, err
		default:
			out[i] = entryStat{isDir: fi.IsDir(), size: fi.Size(), mod: fi.ModTime()}
		}
	}
	return out, nil
}
