//go:build !(linux && (amd64 || arm64))

package localfs

import "os"

// statEntries calls each with what lstat reports of every name in the open folder, through
// folder; a name gone since the folder was read is skipped.
func statEntries(_ *os.File, folder *os.Root, names []string, each func(name string, st entryStat) error) error {
	return statEntriesIn(folder, names, each)
}
