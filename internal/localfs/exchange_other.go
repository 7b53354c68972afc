//go:build !(linux && (amd64 || arm64))

package localfs

import "os"

// exchange reports that names cannot be swapped atomically here: the replaced file is
// copied instead.
func exchange(*os.File, string, *os.File, string) (bool, error) { return false, nil }

// swapsNames reports that exchange never swaps names here.
const swapsNames = false
