package localfs

import (
	"errors"
	"io/fs"
	"os"
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

// statBatch is a run of names read together, and what lstat reports of each.
type statBatch struct {
	names []string
	stats []entryStat
	err   error
}

// joinBatches puts the batches' names and stats in one list, without the names gone before
// their stat; the first batch that failed fails it all.
func joinBatches(batches []*statBatch) ([]string, []entryStat, error) {
	n := 0
	for _, b := range batches {
		if b.err != nil {
			return nil, nil, b.err
		}
		n += len(b.names)
	}
	names, stats := make([]string, 0, n), make([]entryStat, 0, n)
	for _, b := range batches {
		for i, st := range b.stats {
			if !st.gone {
				names, stats = append(names, b.names[i]), append(stats, st)
			}
		}
	}
	return names, stats, nil
}
