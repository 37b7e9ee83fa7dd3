package loadtest

import (
	"context"
	"fmt"
	"io"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/report"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/verify"
	"github.com/thinkcap/thinkcap/workload"
)

// predict prints the simulator's prediction of the planned requests on the
// server's deployment, before any load is sent: the deployment flags'
// config with the server's cache config and context length (a scrape
// before the load), set up as verify sets it up.
func (r *run) predict(ctx context.Context) error {
	o, p := r.o, r.o.Predict
	cfg, err := p.Config(o.Model)
	if err != nil {
		return err
	}
	server := &verify.Run{Meta: r.meta, TimeScale: loadgen.EmulatorTimeScale(r.meta.ServerVersion)}
	if s, err := loadgen.NewScraper(loadgen.ScraperConfig{URL: o.URL, HTTPClient: r.scrapes, APIKey: o.APIKey}).Scrape(ctx); err == nil {
		server.Meta.CacheConfig = s.CacheConfig
	}
	return p.printPrediction(o.Stdout, cfg, server, o.Requests, o.Concurrency)
}

// printPrediction simulates the planned requests on the server's
// deployment and prints the summary.
func (p *Predict) printPrediction(w io.Writer, cfg sim.Config, server *verify.Run, reqs []workload.Request, concurrency int) error {
	setup, err := verify.Configure(&cfg, server, p.Explicit)
	if err != nil {
		return inputerr.New(fmt.Errorf("--predict: %w", err))
	}
	planned := append([]workload.Request(nil), reqs...)
	for i := range planned {
		planned[i].ArrivalS *= server.TimeScale // the server's clock
	}
	rep, err := sim.Run(cfg, planned, sim.Options{Concurrency: concurrency})
	if err != nil {
		return inputerr.New(fmt.Errorf("--predict: %w", err))
	}
	s := rep.Summary()
	s.Kind = "prediction"
	fmt.Fprintln(w, "thinkcap loadtest --predict: the simulator's prediction of this load test, before it runs")
	if server.TimeScale != 1 {
		fmt.Fprintf(w, "(an emulator at time scale %g: times are its server time)\n", server.TimeScale)
	}
	for _, n := range setup.Notes {
		fmt.Fprintf(w, "  - %s\n", n)
	}
	fmt.Fprintln(w)
	if err := report.WriteTable(w, &s); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// verifyRun compares the finished run in dir with the prediction and
// prints the comparison; it fails when a check does, or when too little
// was measured to check ("no data").
func (p *Predict) verifyRun(w io.Writer, dir string) error {
	run, err := verify.LoadRun(dir)
	if err != nil {
		return inputerr.New(err)
	}
	cfg, err := p.Config(run.Meta.Model)
	if err != nil {
		return err
	}
	out, err := verify.Verify(cfg, run, p.Explicit, p.Tolerances, p.MinRequests)
	if err != nil {
		return inputerr.New(err)
	}
	fmt.Fprintln(w)
	if err := verify.WriteTable(w, out); err != nil {
		return err
	}
	return out.Verdict()
}
