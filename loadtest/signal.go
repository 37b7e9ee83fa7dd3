package loadtest

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// signalCause is the cause of a context cancelled by SIGINT or SIGTERM.
type signalCause struct{ sig os.Signal }

func (c *signalCause) Error() string { return "interrupted by signal " + signalName(c.sig) }

// interruptContext is cancelled, with a *signalCause, by the first SIGINT
// or SIGTERM; a second one gets the default behaviour (the process dies),
// for a user whose first Ctrl-C is taking too long to wind down. stop
// releases the signals.
func interruptContext(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&signalCause{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// interruptedBy is the signal that cancelled ctx, nil when none did.
func interruptedBy(ctx context.Context) os.Signal {
	if c, ok := context.Cause(ctx).(*signalCause); ok {
		return c.sig
	}
	return nil
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}
