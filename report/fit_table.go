package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/thinkcap/thinkcap/logstats"
	"github.com/thinkcap/thinkcap/report/numfmt"
)

// WriteFitTable writes the fit quality of a FitReport: per class and field,
// the sample size, the spikes kept apart, the family kept and the
// Kolmogorov–Smirnov distance of each candidate to the body (smaller is
// closer; "-" where the family could not be fitted, e.g. a constant). Only
// write errors are returned.
func WriteFitTable(w io.Writer, r *logstats.FitReport) error {
	if r == nil {
		return errors.New("write fit table: nil report")
	}
	return writeReport(w, "write fit table", func(w io.Writer) error {
		fmt.Fprintf(w, "thinkcap fit: traffic profile %q from %s requests in %d classes\n", r.Name,
			numfmt.Int(int64(r.Requests)), len(r.Classes))
		fmt.Fprintln(w, "Kolmogorov–Smirnov distance of each family to the log, spikes removed (smaller is closer);")
		fmt.Fprintln(w, "fit is the family kept: the closest, or a family within the noise of the quantile table.")
		fmt.Fprintln(w)
		left, right := tw.AlignLeft, tw.AlignRight
		t := newAlignedTable(w, []tw.Align{left, right, left, right, left, left, right, right, right},
			"class", "share", "field", "n", "spikes", "fit", logstats.FamilyLognormal, logstats.FamilyGamma, logstats.FamilyEmpirical)
		return writeRows(t, fitRows(r))
	})
}

// fitRows are the fit table's rows: a class's fields, the class and its
// share heading the first.
func fitRows(r *logstats.FitReport) [][]string {
	var rows [][]string
	for _, c := range r.Classes {
		for i, f := range []struct {
			name string
			res  *logstats.FitResult
		}{
			{"prompt", &c.Prompt}, {"think", &c.Think}, {"answer", &c.Answer},
		} {
			// The class and its share head its first row only.
			name, share := "", ""
			if i == 0 {
				name, share = c.Name, numfmt.Percent(c.Share)
			}
			row := []string{name, share, f.name, numfmt.Int(int64(f.res.N)),
				formatSpikes(f.res.Spikes), f.res.Family}
			for _, fam := range []string{logstats.FamilyLognormal, logstats.FamilyGamma, logstats.FamilyEmpirical} {
				row = append(row, candidateKS(f.res.Candidates, fam))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// formatKS prints a distance with four decimals: at the sample sizes of a
// log, differences below 1e-4 are noise.
func formatKS(d float64) string { return numfmt.Fixed(d, 4) }

func candidateKS(cands []logstats.Candidate, family string) string {
	for _, c := range cands {
		if c.Family == family {
			return formatKS(c.KS)
		}
	}
	return numfmt.NoValue
}

// formatSpikes prints "0: 30.0%, 4,096: 10.0%", or numfmt.NoValue.
func formatSpikes(spikes []logstats.Spike) string {
	if len(spikes) == 0 {
		return numfmt.NoValue
	}
	parts := make([]string, len(spikes))
	for i, s := range spikes {
		parts[i] = numfmt.Tokens(s.Value) + ": " + numfmt.Percent(s.Mass)
	}
	return strings.Join(parts, ", ")
}
