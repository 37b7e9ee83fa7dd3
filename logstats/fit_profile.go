package logstats

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// ProfileFit is `thinkcap fit`'s request: a traffic profile named Name
// (default: the log's file name) fitted with SpikeMinMass and its report
// as Report, checked by Validate with the flag named.
type ProfileFit struct {
	Name         string  // --name
	SpikeMinMass float64 // --spike-min-mass, in (0, 1]
	Report       string  // --report: the fit report's format, table or json
}

// Validate reports every problem of the options, each named by its field.
func (p *ProfileFit) Validate() error {
	var problems inputerr.List
	if p.Report != "table" && p.Report != "json" {
		problems.Field("Report", fmt.Errorf("unknown format %q (valid: table, json)", p.Report))
	}
	if !(p.SpikeMinMass > 0 && p.SpikeMinMass <= 1) {
		problems.Fieldf("SpikeMinMass", "must be a fraction in (0, 1], got %g", p.SpikeMinMass)
	}
	if strings.ContainsFunc(p.Name, invalidNameRune) {
		problems.Fieldf("Name", "%q: profile names hold no spaces, commas or control characters", p.Name)
	}
	return problems.Err()
}

// Profile fits the requests f holds, read from the log at path, and
// returns the report and the profile file (profileYAML). A log that fits
// nothing is bad input (an inputerr.Error).
func (p *ProfileFit) Profile(f *TrafficFitter, path string) (FitReport, []byte, error) {
	name := p.Name
	if name == "" {
		name = profileName(path)
	}
	rep, err := f.Fit(name, FitOptions{SpikeMinMass: p.SpikeMinMass})
	if err != nil {
		return rep, nil, inputerr.New(err)
	}
	data, err := profileYAML(&rep, filepath.Base(path))
	return rep, data, err
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
func trafficProfile(rep *FitReport, logName string) profiles.Traffic {
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
	if s := rep.Sessions; s != nil {
		t.Sessions = &profiles.TrafficSessions{Turns: s.Turns.Spec, ThinkTime: s.ThinkTimeS.Spec}
	}
	return t
}

// profileYAML writes the fitted profile as a profile file, with comments
// that explain it and give each distribution's fit, and checks that it
// loads back and generates: a file fit writes must work with --profiles.
func profileYAML(rep *FitReport, logName string) ([]byte, error) {
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
func fitComment(r *FitResult) string {
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
