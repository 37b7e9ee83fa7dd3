package scenario

import (
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
)

// WriteSummaryTable writes a simulation's summary as tables: the whole run,
// then each pool's, then the SLOs asked of it.
func WriteSummaryTable(w io.Writer, s analysis.Summary) error {
	if err := report.WriteTable(w, &s); err != nil {
		return err
	}
	for i := range s.Pools {
		fmt.Fprintf(w, "\npool %q\n", s.Pools[i].Pool)
		if err := report.WriteTable(w, &s.Pools[i]); err != nil {
			return err
		}
	}
	if len(s.SLOs) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	return report.WriteSLOs(w, s.SLOs)
}
