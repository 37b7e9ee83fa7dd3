package loadtest

import (
	"bytes"
	"cmp"
	"context"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// The command's exit codes, which load returns for its error.
const (
	exitOK          = 0
	exitCheckFailed = 1
	exitBadInput    = 2
)

// testOptions are the command's defaults for a load test of reqs against
// url into the run directory dir, never scraping.
func testOptions(url, dir string, reqs []workload.Request) Options {
	return Options{
		URL: url, Endpoint: "chat", APIKeyEnv: "OPENAI_API_KEY", Requests: reqs,
		HeaderTimeout: time.Minute, RequestTimeout: 30 * time.Minute, StallTimeout: loadgen.DefaultStallTimeout,
		Warmup: Warmup{Spec: "0"}, ForceLength: "auto", Engine: "auto", Out: dir,
		ProgressInterval: 10 * time.Second, MaxConsecutiveFailures: loadgen.DefaultMaxConsecutiveFailures,
	}
}

// traffic is the requests the traffic options make, each with an ID, as
// the command reads or generates them (with its default profile and
// arrival process).
func traffic(t *testing.T, o workload.TrafficOptions, seed uint64) []workload.Request {
	t.Helper()
	o.Traffic = cmp.Or(o.Traffic, workload.DefaultTraffic)
	reqs, err := o.Load(catalog(t), seed, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	EnsureIDs(reqs)
	return reqs
}

// dist is spec's distribution, nil for "" (the default).
func dist(t *testing.T, spec string) workload.Dist {
	t.Helper()
	if spec == "" {
		return nil
	}
	d, err := workload.ParseDist(spec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// arrival is spec's arrival process.
func arrival(t *testing.T, spec string) workload.ArrivalProcess {
	t.Helper()
	a, err := workload.ParseArrivalProcess(spec)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// catalog is the embedded profiles.
func catalog(t *testing.T) *profiles.Catalog {
	t.Helper()
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// synthetic is n requests at rate per second (a closed loop of
// concurrency instead when rate is 0), each of the given token lengths.
func synthetic(t *testing.T, n int, rate float64, prompt, think, answer string) []workload.Request {
	t.Helper()
	return traffic(t, workload.TrafficOptions{Requests: n, RatePerS: rate, Prompt: dist(t, prompt), Think: dist(t, think), Answer: dist(t, answer)}, 0)
}

// thresholds are the parsed --threshold specs.
func thresholds(t *testing.T, specs ...string) []analysis.Threshold {
	t.Helper()
	ts, err := analysis.ParseThresholds(specs)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// goodput is the parsed --goodput spec.
func goodput(t *testing.T, spec string) []analysis.GoodputSLO {
	t.Helper()
	slos, err := analysis.ParseGoodput(spec)
	if err != nil {
		t.Fatal(err)
	}
	return slos
}

// load runs the load test and writes its outcome as the command does: it
// returns what was printed, the stderr lines followed by the error, and
// the exit code the command would give (exitBadInput for the user's input).
func load(t *testing.T, o Options) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	o.Stdout, o.Stderr = &out, &errOut
	res, err := Run(context.Background(), o)
	if err == nil {
		err = Write(&out, res)
	}
	return out.String(), errOut.String() + errorLine(err), exitCode(err)
}

// errorLine is the line the command prints for err ("" for none).
func errorLine(err error) string {
	if err == nil {
		return ""
	}
	return "thinkcap: " + err.Error() + "\n"
}

// exitCode is the command's exit code for err.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case inputerr.Is(err):
		return exitBadInput
	}
	return exitCheckFailed
}
