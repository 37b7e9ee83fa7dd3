// Command thinkcap plans capacity for serving reasoning models on vLLM: it
// simulates a vLLM cluster, sizes deployments, and (in later commands)
// load-tests a real endpoint against the prediction.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit codes.
const (
	exitOK          = 0
	exitCheckFailed = 1 // an SLO or tolerance check failed, or an unexpected error
	exitBadInput    = 2 // bad flags, profiles or input files
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and decides the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	cmd := newRootCmd(stdout, stderr)
	cmd.SetArgs(args)
	err := cmd.Execute()
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "thinkcap: %v\n", err)
	var bad *badInputError
	if errors.As(err, &bad) {
		return exitBadInput
	}
	return exitCheckFailed
}

// badInputError marks an error caused by the user's input: exit code 2.
type badInputError struct{ err error }

func (e *badInputError) Error() string { return e.err.Error() }
func (e *badInputError) Unwrap() error { return e.err }

// badInput wraps err (if not nil) as bad input.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &badInputError{err}
}
