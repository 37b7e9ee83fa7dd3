package verify

import (
	"fmt"
	"io"
	"strings"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
)

// Verdict is nil when the comparison passed, else the error of a failed
// check (a command exits 1 on it): a check failed, or there was nothing to
// check.
func (o *Outcome) Verdict() error { return Verdict(&o.Comparison) }

// Verdict is Outcome.Verdict of a comparison.
func Verdict(c *analysis.Comparison) error {
	switch {
	case c.Pass:
		return nil
	case c.Verdict == analysis.VerdictNoData:
		return fmt.Errorf("verdict: no data: %s", c.Reason)
	}
	return fmt.Errorf("prediction outside tolerance: %s", strings.Join(c.Failed, ", "))
}

// WriteTable prints what was compared, the comparison and the verdict:
// verify's table.
func WriteTable(w io.Writer, out *Outcome) error {
	p := &out.Predicted
	c, k := p.Config, p.Capacity
	measured := p.Requests.Total
	fmt.Fprintf(w, "thinkcap verify: %s: %d requests compared", out.Run, measured)
	if out.LeftOut > 0 {
		fmt.Fprintf(w, ", %d failed ones not replayed", out.LeftOut)
	}
	fmt.Fprintln(w)
	for _, n := range out.RunState.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if out.TimeScale != 1 {
		fmt.Fprintf(w, "emulator time scale %g: the measured times are multiplied by it (server time)\n", out.TimeScale)
	}
	fmt.Fprintf(w, "prediction: %s on %d× %s%s, %d replica(s), kv cache dtype %s, %d KV blocks of %d tokens, max_num_seqs %d\n",
		c.Model, c.TensorParallelSize*max(c.PipelineParallelSize, 1), c.GPU, stages(c.PipelineParallelSize), c.Replicas, c.KVCacheDtype, k.NumGPUBlocks, k.BlockSize, c.MaxNumSeqs)
	for _, n := range out.Setup.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	fmt.Fprintln(w)
	if err := report.WriteComparison(w, &out.Comparison); err != nil {
		return err
	}
	if err := writeTurns(w, out.Turns); err != nil {
		return err
	}
	if sa := out.Setup.Spec; sa != nil {
		fmt.Fprintf(w, "\nspeculative decoding: acceptance length measured %.2f, assumed %.2f", sa.Measured, sa.Assumed)
		if sa.Replayed {
			fmt.Fprint(w, " (replayed with the measured one)")
		}
		fmt.Fprintln(w)
	}
	cmp := &out.Comparison
	checked := cmp.Checked()
	noData := ""
	if len(cmp.NoData) > 0 {
		noData = fmt.Sprintf("; %d without data: %s", len(cmp.NoData), strings.Join(cmp.NoData, ", "))
	}
	switch {
	case cmp.Verdict == analysis.VerdictNoData:
		fmt.Fprintf(w, "\nverdict: no data: %s\n", cmp.Reason)
	case cmp.Pass:
		fmt.Fprintf(w, "\nverdict: pass (%d checks%s)\n", checked, noData)
	default:
		fmt.Fprintf(w, "\nverdict: FAIL (%d of %d checks%s): %s\n", len(cmp.Failed), checked, noData, strings.Join(cmp.Failed, ", "))
	}
	if out.RunState.Early() {
		fmt.Fprintln(w, "(on a run that ended early: see the note above)")
	}
	return nil
}

// stages names a pipeline's stages when there are several ("" otherwise).
func stages(pp int) string {
	if pp > 1 {
		return fmt.Sprintf(" (PP %d)", pp)
	}
	return ""
}
