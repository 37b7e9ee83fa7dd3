// Command thinkcap plans capacity for serving reasoning models on vLLM: it
// simulates a vLLM cluster, sizes deployments, and (in later commands)
// load-tests a real endpoint against the prediction.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/vllmargs"
)

// Exit codes.
const (
	exitOK          = 0
	exitCheckFailed = 1 // an SLO or tolerance check failed, or an unexpected error
	exitBadInput    = 2 // bad flags, profiles or input files
	// exitInterrupted and exitTerminated are what a shell reports for a
	// process killed by SIGINT or SIGTERM (128 + the signal number), so a
	// script tells a stopped run from a finished one either way.
	exitInterrupted = 130
	exitTerminated  = 143
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and decides the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(vllmargs.Expand(args)) // -tp as vllm serve takes it
	err := cmd.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "thinkcap: %v\n", err)
	var stopped *interruptedError
	if errors.As(err, &stopped) {
		return stopped.exitCode()
	}
	if inputerr.Is(err) || isUsageError(err) {
		return exitBadInput
	}
	return exitCheckFailed
}

// isUsageError recognises cobra's own usage errors (unknown command,
// wrong number of arguments), which it does not type.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "accepts ", "requires ", "invalid argument"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// interruptedError marks work stopped by a signal: exit 130 for SIGINT,
// 143 for SIGTERM.
type interruptedError struct {
	sig os.Signal
	msg string // e.g. "interrupted after 37 of 100 requests"
}

func (e *interruptedError) Error() string { return e.msg }

func (e *interruptedError) exitCode() int {
	if e.sig == syscall.SIGTERM {
		return exitTerminated
	}
	return exitInterrupted
}
