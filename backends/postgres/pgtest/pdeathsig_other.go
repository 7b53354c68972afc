//go:build !linux

package pgtest

import "syscall"

// diesWithParent does nothing where the platform cannot signal a child when its parent
// dies: a server whose test binary was killed must then be stopped by hand.
func diesWithParent(*syscall.SysProcAttr) {}
