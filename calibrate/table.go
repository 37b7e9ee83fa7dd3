package calibrate

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/thinkcap/thinkcap/report"
)

// WriteCalibrationTable prints the coefficients before and after, the API
// overhead fitted beside them, and the held-out error before and after.
func WriteCalibrationTable(w io.Writer, c *Calibration) error {
	fmt.Fprintf(w, "thinkcap calibrate: fitted to %d measured decode spans (%d iterations)\n\n", c.Requests, c.Iterations)
	fitted := map[string]bool{}
	for _, n := range c.Fitted {
		fitted[n] = true
	}
	t := report.NewLabeledTable(w, 2, "coefficient", "", "before", "after", "change")
	b, a := ParamsOf(c.Before), ParamsOf(c.After)
	// The step model's coefficients: the decode spans a run directory's
	// fit learns from see no API server term.
	for k, co := range Params[:NStep] {
		before, after := *co.Value(&c.Before), *co.Value(&c.After)
		status := "kept"
		switch {
		case fitted[co.Key]:
			status = "fitted"
		case c.Kept[co.Key] != "":
			status = "kept: " + c.Kept[co.Key]
		}
		change := "-"
		if b[k] != 0 && a[k] != b[k] {
			change = fmt.Sprintf("%+.1f%%", 100*(after-before)/before)
		}
		if err := t.Append([]string{co.Key, status, strconv.FormatFloat(before, 'g', 4, 64), strconv.FormatFloat(after, 'g', 4, 64), change}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(c.APIOverheadS) > 0 {
		runs := make([]string, 0, len(c.APIOverheadS))
		for r := range c.APIOverheadS {
			runs = append(runs, r)
		}
		sort.Strings(runs)
		fmt.Fprint(w, "\nTTFT beyond the API server's modelled time and the engine's steps (median over requests scheduled on arrival):")
		for _, r := range runs {
			fmt.Fprintf(w, " %s %.1f ms", filepath.Base(r), 1e3*c.APIOverheadS[r])
		}
		fmt.Fprintln(w)
	}
	if len(c.HeldOut) == 0 {
		return nil
	}
	how := "each run predicted by a fit of the others"
	if len(c.HeldOut) == 1 && c.HeldOut[0].Split {
		how = "odd requests predicted by a fit of the even ones"
	}
	fmt.Fprintf(w, "\nheld out (%s): mean absolute percentage error, before → after\n", how)
	h := report.NewLabeledTable(w, 1, "run", "requests", "TTFT", "TPOT", "E2E")
	pct := func(before, after float64) string { return fmt.Sprintf("%.1f%% → %.1f%%", 100*before, 100*after) }
	var skipped []HeldOut
	for _, r := range c.HeldOut {
		if r.Skipped != "" {
			skipped = append(skipped, r)
			continue
		}
		row := []string{filepath.Base(r.Run), strconv.Itoa(r.Requests), pct(r.Before.TTFT, r.After.TTFT), pct(r.Before.TPOT, r.After.TPOT), pct(r.Before.E2E, r.After.E2E)}
		if err := h.Append(row); err != nil {
			return err
		}
	}
	if err := h.Render(); err != nil {
		return err
	}
	for _, r := range skipped {
		fmt.Fprintf(w, "%s not held out: %s\n", filepath.Base(r.Run), r.Skipped)
	}
	return nil
}
