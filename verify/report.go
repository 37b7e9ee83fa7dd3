package verify

import (
	"errors"
	"io"
)

// WriteReport is a placeholder until the HTML report lands.
func WriteReport(w io.Writer, out *Outcome) error { return errors.New("report: not written yet") }

// WritePlots is a placeholder until the plots land.
func WritePlots(dir string, out *Outcome) error { return errors.New("plots: not written yet") }
