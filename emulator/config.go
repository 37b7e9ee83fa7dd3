package emulator

import (
	"errors"
	"fmt"
	"time"

	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Reasoning fields of chat deltas and messages (vllm-facts §5.3): the field
// was reasoning_content until vLLM #27752 (2025-11) and is reasoning since.
const (
	ReasoningField        = "reasoning"
	ReasoningContentField = "reasoning_content"
)

// Config configures a Server. Only Sim is required.
type Config struct {
	// Sim is the deployment the engine simulates.
	Sim sim.Config
	// ModelName is the served model name (--served-model-name); default
	// the model profile's hf_name, else its name.
	ModelName string
	// TimeScale > 1 runs faster than real time: simulated ns = wall ns ×
	// TimeScale since the engine started. Default 1.
	TimeScale float64
	// ReasoningField is "reasoning" (default) or "reasoning_content".
	ReasoningField string
	// NoReasoningParser emits thinking inline in the content, between
	// <think> and </think>, as a server without --reasoning-parser does.
	NoReasoningParser bool
	// Traffic draws (think, answer) lengths for requests that do not force
	// their length; default a fixed 256 think and 64 answer tokens. It is
	// called under the server's lock, never concurrently.
	Traffic func() (think, answer int)
	// FailRate is the fraction of requests answered 500 or 503 at once;
	// AbortRate the fraction of streams whose connection is dropped
	// mid-way. HeaderDelay is slept before the response headers.
	FailRate, AbortRate float64
	HeaderDelay         time.Duration
	// Seed seeds the fault injection and the synthetic text.
	Seed uint64
	// OnResult, if set, receives every request's record from the engine
	// (sim seconds, ID = the request id): the engine's own view, which
	// tests compare with what clients measured. It runs on the engine
	// goroutine and must not block.
	OnResult func(workload.Result)
}

// defaultTraffic is used when Config.Traffic is nil.
func defaultTraffic() (think, answer int) { return 256, 64 }

// withDefaults returns c with its defaults filled in.
func (c Config) withDefaults() Config {
	if c.TimeScale == 0 {
		c.TimeScale = 1
	}
	if c.ReasoningField == "" {
		c.ReasoningField = ReasoningField
	}
	if c.Traffic == nil {
		c.Traffic = defaultTraffic
	}
	if c.ModelName == "" {
		c.ModelName = c.Sim.Model.HFName
		if c.ModelName == "" {
			c.ModelName = c.Sim.Model.Name
		}
	}
	return c
}

// Validate reports every problem of c (after defaults).
func (c *Config) Validate() error {
	var errs []error
	if !(c.TimeScale > 0) || c.TimeScale > 1e6 {
		errs = append(errs, fmt.Errorf("time scale %g: want a number in (0, 1e6]", c.TimeScale))
	}
	if c.ReasoningField != ReasoningField && c.ReasoningField != ReasoningContentField {
		errs = append(errs, fmt.Errorf("reasoning field %q: want %q or %q", c.ReasoningField, ReasoningField, ReasoningContentField))
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"fail rate", c.FailRate}, {"abort rate", c.AbortRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			errs = append(errs, fmt.Errorf("%s %g: want a fraction in [0, 1]", r.name, r.v))
		}
	}
	if c.HeaderDelay < 0 {
		errs = append(errs, fmt.Errorf("header delay %v is negative", c.HeaderDelay))
	}
	if c.ModelName == "" {
		errs = append(errs, errors.New("served model name is empty"))
	}
	return errors.Join(errs...)
}
