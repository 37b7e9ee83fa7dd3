package loadtest

import (
	"slices"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// TestValidateNamesTheField: each bad option is refused naming its field
// (the command names the flag), a good set passes, and every problem is
// reported at once.
func TestValidateNamesTheField(t *testing.T) {
	good := func() Options {
		return Options{URL: "http://127.0.0.1:8000", Endpoint: "chat", ForceLength: "auto",
			HeaderTimeout: time.Second, RequestTimeout: time.Minute}
	}
	if o := good(); o.Validate() != nil {
		t.Fatalf("good options refused: %v", o.Validate())
	}
	var all Options
	cases := []struct {
		field string
		bad   func(*Options)
	}{
		{"URL", func(o *Options) { o.URL = "" }},
		{"Model", func(o *Options) { o.NoPreflight = true }},
		{"Endpoint", func(o *Options) { o.Endpoint = "embeddings" }},
		{"ForceLength", func(o *Options) { o.ForceLength = "maybe" }},
		{"SaveText", func(o *Options) { o.SaveText = 2 }},
		{"MaxInFlight", func(o *Options) { o.MaxInFlight = -1 }},
		{"Duration", func(o *Options) { o.DurationGiven = true }},
		{"ScrapeInterval", func(o *Options) { o.ScrapeInterval = -time.Second }},
		{"ProgressInterval", func(o *Options) { o.ProgressInterval = -time.Second }},
		{"HeaderTimeout", func(o *Options) { o.HeaderTimeout = 0 }},
		{"RequestTimeout", func(o *Options) { o.RequestTimeout = 0 }},
		{"StallTimeout", func(o *Options) { o.StallTimeout = -time.Second }},
		{"MaxRate", func(o *Options) { o.MaxRate, o.Concurrency = 5, 2 }},
		{"Route", func(o *Options) { o.Route = "low" }},
		{"Predict", func(o *Options) { o.Predict, o.JSON = &Predict{}, true }},
		{"MaxConsecutiveFailures", func(o *Options) { o.MaxConsecutiveFailures = -1 }},
		{"Percentiles", func(o *Options) { o.Percentiles = []float64{0} }},
		{"SaveResult", func(o *Options) { o.SaveResult = "/no/such/dir/r.json" }},
		{"Report", func(o *Options) { o.Report = "/no/such/dir/r.html" }},
	}
	for _, c := range cases {
		o := good()
		c.bad(&o)
		if err := o.Validate(); !inputerr.Is(err) || !slices.Contains(inputerr.Fields(err), c.field) {
			t.Errorf("%s: %v (fields %v)", c.field, err, inputerr.Fields(err))
		}
		c.bad(&all)
	}
	fields := inputerr.Fields(all.Validate())
	for _, c := range cases {
		if !slices.Contains(fields, c.field) {
			t.Errorf("all bad at once: %s not reported (fields %v)", c.field, fields)
		}
	}
	if _, err := ParseWarmup("soon"); !slices.Contains(inputerr.Fields(err), "Warmup") {
		t.Errorf("warmup soon: %v", err)
	}
}
