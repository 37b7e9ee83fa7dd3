package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

type fitOptions struct {
	log          logFlags
	output       string
	name         string
	spikeMinMass float64
	report       string
}

func newFitCmd() *cobra.Command {
	var o fitOptions
	cmd := &cobra.Command{
		Use:   "fit LOG",
		Short: "Fit a traffic profile (classes, shares, token distributions) to a request log",
		Long: `fit turns a request log into a traffic profile that simulate can generate from.
Each (effort mode × task category) of the log becomes a class with its share of
the requests; its prompt, think and answer tokens are each fitted with a
lognormal, a gamma (both by maximum likelihood) and a 21-point quantile table,
and the one closest to the log by Kolmogorov–Smirnov distance is kept (the
table only when it is clearly closer). Before fitting, a value that holds at
least --spike-min-mass of the requests at the log's maximum (requests cut at
max_tokens or a thinking budget) or at 0 (thinking off) is kept as a spike of
its own.

The profile is YAML with a top-level traffic: list, as --profiles reads it;
comments above each distribution give its fit. The report lists, per class
and field, the spikes, the chosen family and every candidate's distance.
Without -o the YAML goes to stdout and the report to stderr.`,
		Example: `  thinkcap fit requests.jsonl -o profile.yaml
  thinkcap simulate --profiles profile.yaml --traffic requests --rate 5
  thinkcap fit requests.csv.gz --name prod --report json -o prod.yaml > fit.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runFit(cmd, args[0], &o) },
	}
	fs := cmd.Flags()
	o.log.register(fs)
	fs.StringVarP(&o.output, "output", "o", "", "write the profile YAML to this file (default: stdout, with the report on stderr)")
	fs.StringVar(&o.name, "name", "", "traffic profile name (default: the log's file name without extensions)")
	fs.Float64Var(&o.spikeMinMass, "spike-min-mass", analysis.DefaultSpikeMinMass,
		"share of the requests at the maximum or at 0 that makes a spike (1 turns spikes off)")
	fs.StringVar(&o.report, "report", "table", "fit report: table or json")
	return cmd
}

func runFit(cmd *cobra.Command, path string, o *fitOptions) error {
	if o.report != "table" && o.report != "json" {
		return badInput(fmt.Errorf("--report: unknown format %q (valid: table, json)", o.report))
	}
	if !(o.spikeMinMass > 0 && o.spikeMinMass <= 1) {
		return badInput(fmt.Errorf("--spike-min-mass must be a fraction in (0, 1], got %g", o.spikeMinMass))
	}
	name := o.name
	if name == "" {
		name = profileName(path)
	} else if strings.ContainsFunc(name, invalidNameRune) {
		return badInput(fmt.Errorf("--name %q: profile names hold no spaces, commas or control characters", name))
	}

	var fitter analysis.TrafficFitter
	if err := o.log.each(path, cmd.ErrOrStderr(), fitter.Add); err != nil {
		return err
	}
	rep, err := fitter.Fit(name, analysis.FitOptions{SpikeMinMass: o.spikeMinMass})
	if err != nil {
		return badInput(err)
	}
	data, err := profileYAML(&rep, filepath.Base(path))
	if err != nil {
		return err
	}

	yamlOut, reportOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if o.output != "" {
		if err := os.WriteFile(o.output, data, 0o644); err != nil {
			return badInput(fmt.Errorf("-o: %w", err))
		}
		reportOut = cmd.OutOrStdout()
	} else if _, err := yamlOut.Write(data); err != nil {
		return err
	}
	return writeFitReport(reportOut, &rep, o.report)
}

func writeFitReport(w io.Writer, rep *analysis.FitReport, format string) error {
	if format == "json" {
		return writeJSON(w, rep)
	}
	return analysis.WriteFitTable(w, rep)
}

// profileName derives a profile name from the log's file name:
// "logs/prod.jsonl.gz" gives "prod". Characters a name may not hold become
// '_'.
func profileName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".gz")
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.Map(func(r rune) rune {
		if invalidNameRune(r) {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." || base == "/" {
		return "fitted"
	}
	return base
}

// invalidNameRune matches what profiles.Traffic.Validate rejects in a name.
func invalidNameRune(r rune) bool { return r == ',' || r <= ' ' || r == 0x7f }

// trafficProfile is the report as a profiles.Traffic. Shares keep six
// significant digits: they are normalised when generating anyway.
func trafficProfile(rep *analysis.FitReport, logName string) profiles.Traffic {
	t := profiles.Traffic{
		Name: rep.Name,
		Description: fmt.Sprintf("Fitted by thinkcap fit from %s: %d requests in %d classes",
			logName, rep.Requests, len(rep.Classes)),
	}
	for _, c := range rep.Classes {
		share, _ := strconv.ParseFloat(strconv.FormatFloat(c.Share, 'g', 6, 64), 64)
		t.Classes = append(t.Classes, profiles.TrafficClass{
			Name: c.Name, Mode: c.Mode, Category: c.Category, Share: share,
			PromptTokens: c.Prompt.Spec, ThinkTokens: c.Think.Spec, AnswerTokens: c.Answer.Spec,
		})
	}
	return t
}

// profileYAML writes the fitted profile as a profile file, with comments
// that explain it and give each distribution's fit, and checks that it
// loads back and generates: a file fit writes must work with --profiles.
func profileYAML(rep *analysis.FitReport, logName string) ([]byte, error) {
	t := trafficProfile(rep, logName)
	head := fmt.Sprintf(`Traffic profile fitted by thinkcap fit from %s (%d requests).

Each class is one (effort mode × task category) of the log, with its share of
the requests. Token counts are workload distribution specs; spike=V@P gives a
value its own mass P apart from the body: the cap (requests cut at max_tokens
or a thinking budget) and 0 (thinking off). The comment above each
distribution is its fit: KS is the Kolmogorov–Smirnov distance between the log
(spikes excluded) and the fit, smaller is better; n is the class's requests.

Use: thinkcap simulate --profiles FILE --traffic %s`, logName, rep.Requests, rep.Name)
	data, err := profiles.EncodeTrafficYAML([]profiles.Traffic{t}, head, func(_, class int, field string) string {
		c := &rep.Classes[class]
		switch field {
		case "prompt_tokens":
			return fitComment(&c.Prompt)
		case "think_tokens":
			return fitComment(&c.Think)
		default:
			return fitComment(&c.Answer)
		}
	})
	if err != nil {
		return nil, err
	}
	var check profiles.Catalog
	if err := check.LoadYAML("fitted profile", data); err != nil {
		return nil, fmt.Errorf("fit wrote a profile that does not load: %w", err)
	}
	if _, err := workload.ClassesFromTraffic(t); err != nil {
		return nil, fmt.Errorf("fit wrote a profile that does not generate: %w", err)
	}
	return data, nil
}

// fitComment is "lognormal, KS 0.0042 (gamma 0.0311, empirical 0.0061);
// spikes cap at 4096: 10.0% (spike 7.9% + the body's clamped tail 2.1%);
// n 12345".
func fitComment(r *analysis.FitResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, KS %.4f", r.Family, r.KS)
	var others []string
	for _, c := range r.Candidates {
		if c.Family != r.Family {
			others = append(others, fmt.Sprintf("%s %.4f", c.Family, c.KS))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(others, ", "))
	}
	for i, s := range r.Spikes {
		sep := ", "
		if i == 0 {
			sep = "; spikes "
		}
		fmt.Fprintf(&b, "%s%s at %g: %.1f%%", sep, s.Kind, s.Value, 100*s.Mass)
		switch tail := s.Mass - s.SpecMass; {
		case s.SpecMass == 0:
			b.WriteString(" (all of it the body's tail, clamped)")
		case tail >= 0.0005:
			fmt.Fprintf(&b, " (spike %.1f%% + the body's clamped tail %.1f%%)", 100*s.SpecMass, 100*tail)
		}
	}
	fmt.Fprintf(&b, "; n %d", r.N)
	return b.String()
}
