package localfs

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
