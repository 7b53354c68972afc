package localfs

import (
	"io"
	"io/fs"
	"os"
)

// LockFile is the name of the sentinel file Lock and LockPlan lock, inside every plans
// folder a Backend has written to: what tells a plans folder on disk apart from any other
// folder, whichever process keeps it.
const LockFile = localLockName

// HardLinked reports whether the file has more than one name (false where the link count is
// not reported). A file a Backend wrote never has: each write renames a fresh file into
// place. So a plan file or a key file with another name is one someone linked, and a read
// of it through the other name is a read of the plan or the key.
func HardLinked(fi fs.FileInfo) bool { return hardLinked(fi) }

// ReadHead reads at most n bytes from the start of the regular file at p, without blocking
// on a named pipe put there in the meantime; nil when p is not a regular file or cannot be
// read.
func ReadHead(p string, n int) []byte {
	f, err := os.OpenFile(p, os.O_RDONLY|localOpenNonblock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	buf := make([]byte, n)
	m, _ := io.ReadFull(f, buf)
	return buf[:m]
}
