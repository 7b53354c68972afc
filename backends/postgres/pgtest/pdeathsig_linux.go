package pgtest

import "syscall"

// diesWithParent makes the server shut down at once (SIGQUIT: immediate shutdown) when the
// process that started it dies without stopping it, as a test binary killed by its timeout
// does, so no server outlives its test run.
func diesWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGQUIT }
