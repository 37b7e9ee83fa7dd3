package loadtest

import (
	"fmt"
	"os"
)

// InputError is a run refused before it sent anything: a bad flag or
// file, or a failed preflight (the command exits 2). A refused run leaves
// no run directory behind.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput says the error is the user's input, as every package's
// refusal says it (the command's exit 2).
func (e *InputError) BadInput() bool { return true }

// badInput wraps err (if not nil) as an InputError.
func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{err}
}

// InterruptedError is a run stopped by SIGINT or SIGTERM after it started:
// what it measured was written and shown (the command exits 130 or 143).
type InterruptedError struct {
	Signal            os.Signal
	Finished, Planned int // records written, requests scheduled
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted after %d of %d requests", e.Finished, e.Planned)
}
