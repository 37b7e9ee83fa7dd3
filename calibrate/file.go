package calibrate

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/sim"
)

// File is calibrate's --out for run directories: the --step-model file,
// written when the calibration improves the held-out error, or Anyway
// (--write-anyway).
type File struct {
	Path   string
	Anyway bool
	// Written is set by Write.
	Written bool
}

// Write writes c's fitted coefficients to Path when it should, headed by
// what they were fitted to: cfg's model and GPU, the runs in dirs.
func (f *File) Write(c *Calibration, cfg sim.Config, dirs []string) error {
	if !c.Improved && !f.Anyway {
		return nil
	}
	bases := make([]string, len(dirs))
	for i, d := range dirs {
		bases[i] = filepath.Base(d)
	}
	head := fmt.Sprintf("thinkcap calibrate, %s: step-time coefficients of %s on %s, fitted to %s.\nUse with --step-model in simulate, size, serve and verify.",
		time.Now().UTC().Format("2006-01-02"), cfg.Model.Name, cfg.GPU.Name, strings.Join(bases, ", "))
	data, err := StepModelFile(c.After, head)
	if err != nil {
		return err
	}
	if err := WriteFile(f.Path, data); err != nil {
		return err
	}
	f.Written = true
	return nil
}

// WriteTable prints the runs' notes, the calibration table and where the
// file went: calibrate's table.
func (f *File) WriteTable(w io.Writer, c *Calibration) error {
	for _, n := range c.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if err := WriteCalibrationTable(w, c); err != nil {
		return err
	}
	if f.Written {
		fmt.Fprintf(w, "\nwrote %s: pass it as --step-model to simulate, size, serve and verify\n", f.Path)
	}
	return nil
}

// Verdict is nil when the file was written, else the error of a
// calibration that does not improve (a command exits 1 on it).
func (f *File) Verdict() error {
	if !f.Written {
		return fmt.Errorf("calibration not written to %s: it does not improve the held-out error (--write-anyway writes it)", f.Path)
	}
	return nil
}
