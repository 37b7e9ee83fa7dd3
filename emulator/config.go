package emulator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// Reasoning fields of chat deltas and messages: the field
// was reasoning_content until vLLM #27752 (2025-11) and is reasoning since.
const (
	ReasoningField        = "reasoning"
	ReasoningContentField = "reasoning_content"
)

// Config configures a Server. Only Sim is required.
type Config struct {
	// Sim is the deployment the engine simulates.
	Sim sim.Config
	// ModelPath is the model as `vllm serve` was given it (--model): the
	// root of every /v1/models card, and the served name when
	// ServedModelNames is empty. Default the model profile's hf_name, else
	// its name.
	ModelPath string
	// ServedModelNames are the names the API answers to
	// (--served-model-name, one or more): a request may name any of them;
	// the first is listed first by /v1/models, names every response and
	// labels /metrics (vllm/entrypoints/openai/serving_models.py
	// OpenAIServingModels.model_name). Default [ModelPath].
	ServedModelNames []string
	// TimeScale > 1 runs faster than real time: simulated ns = wall ns ×
	// TimeScale since the engine started. Default 1.
	TimeScale float64
	// ReasoningField is "reasoning" (default) or "reasoning_content".
	ReasoningField string
	// NoReasoningParser emits thinking inline in the content, between
	// <think> and </think>, as a server without --reasoning-parser does.
	NoReasoningParser bool
	// Traffic draws (think, answer) lengths for a request's thinking mode
	// (the request decides the mode, Traffic only the lengths); a length-
	// forced request takes its split from the draw. Default 256 think (0
	// when thinking is off) and 64 answer tokens; ClassSampler.Draw draws
	// from a traffic profile. It is called under the server's lock, never
	// concurrently.
	Traffic func(Thinking) (think, answer int)
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
	// Log receives vLLM's log lines: an access line per request at debug
	// level, the periodic stats line, the shutdown lines. Nil logs nothing.
	Log *Logger
	// LogStatsInterval is how often the stats line is logged; default 10 s
	// (vLLM's VLLM_LOG_STATS_INTERVAL). DisableLogStats turns it off
	// (--disable-log-stats).
	LogStatsInterval time.Duration
	DisableLogStats  bool
	// APIKeys, when set, guard /v1 as `vllm serve --api-key` does: a
	// request without "Authorization: Bearer <key>" gets 401 (auth.go).
	APIKeys []string
}

// defaultTraffic is used when Config.Traffic is nil.
func defaultTraffic(m Thinking) (think, answer int) {
	if !m.On {
		return 0, 64
	}
	return 256, 64
}

// defaultLogStatsInterval is vLLM's VLLM_LOG_STATS_INTERVAL default
// (vllm/envs.py).
const defaultLogStatsInterval = 10 * time.Second

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
	if c.ModelPath == "" {
		c.ModelPath = c.Sim.Model.HFName
		if c.ModelPath == "" {
			c.ModelPath = c.Sim.Model.Name
		}
	}
	if len(c.ServedModelNames) == 0 {
		c.ServedModelNames = []string{c.ModelPath}
	}
	if c.LogStatsInterval == 0 {
		c.LogStatsInterval = defaultLogStatsInterval
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
	for i, n := range c.ServedModelNames {
		if strings.TrimSpace(n) == "" {
			errs = append(errs, fmt.Errorf("served model name %d is empty", i+1))
		}
	}
	if c.LogStatsInterval < 0 {
		errs = append(errs, fmt.Errorf("log stats interval %v is negative", c.LogStatsInterval))
	}
	return errors.Join(errs...)
}
