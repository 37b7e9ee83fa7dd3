package loadtest

import (
	"strings"
	"testing"
	"time"
)

// TestValidateNamesTheFlag: each bad option is refused with its flag
// named, and a good set passes.
func TestValidateNamesTheFlag(t *testing.T) {
	good := func() Options {
		return Options{URL: "http://127.0.0.1:8000", Endpoint: "chat", ForceLength: "auto",
			HeaderTimeout: time.Second, RequestTimeout: time.Minute}
	}
	if o := good(); o.Validate() != nil {
		t.Fatalf("good options refused: %v", o.Validate())
	}
	for _, c := range []struct {
		flag string
		bad  func(*Options)
	}{
		{"--url", func(o *Options) { o.URL = "" }},
		{"--no-preflight", func(o *Options) { o.NoPreflight = true }},
		{"--endpoint", func(o *Options) { o.Endpoint = "embeddings" }},
		{"--force-length", func(o *Options) { o.ForceLength = "maybe" }},
		{"--save-text", func(o *Options) { o.SaveText = 2 }},
		{"--max-in-flight", func(o *Options) { o.MaxInFlight = -1 }},
		{"--duration", func(o *Options) { o.DurationGiven = true }},
		{"--scrape-interval", func(o *Options) { o.ScrapeInterval = -time.Second }},
		{"--progress-interval", func(o *Options) { o.ProgressInterval = -time.Second }},
		{"--header-timeout", func(o *Options) { o.HeaderTimeout = 0 }},
		{"--request-timeout", func(o *Options) { o.RequestTimeout = 0 }},
		{"--route", func(o *Options) { o.Route = "low" }},
		{"--predict", func(o *Options) { o.Predict, o.JSON = &Predict{}, true }},
	} {
		o := good()
		c.bad(&o)
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("%s: %v", c.flag, err)
		}
	}
	if _, err := ParseWarmup("soon"); err == nil || !strings.HasPrefix(err.Error(), "--warmup: ") {
		t.Errorf("--warmup soon: %v", err)
	}
}
