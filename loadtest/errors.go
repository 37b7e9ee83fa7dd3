package loadtest

import (
	"fmt"
	"os"
)

// InterruptedError is a run stopped by SIGINT or SIGTERM after it started:
// what it measured was written and shown (the command exits 130 or 143).
type InterruptedError struct {
	Signal            os.Signal
	Finished, Planned int // records written, requests scheduled
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted after %d of %d requests", e.Finished, e.Planned)
}
