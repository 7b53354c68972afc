//go:build !unix

package main

import (
	"io"
	"os"
)

// termWidth returns 0: the width is unknown here, so lines are not clipped.
func termWidth(io.Writer) int { return 0 }

// notifyResize never reports: there is no resize signal here.
func notifyResize() (<-chan os.Signal, func()) { return nil, func() {} }
