package emulator

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
)

// ServeOptions are `thinkcap serve`'s settings, parsed: errors name their
// fields, which the command maps to its flags.
type ServeOptions struct {
	Host string
	Port int
	// ServedModelNames are the names the API answers to, the first listed
	// first (ParseServedNames reads them as vllm serve does); nil: the
	// model as given.
	ServedModelNames []string
	// APIKeys are --api-key's keys (APIKeysGiven: the flag was given);
	// none given: $VLLM_API_KEY's, as vllm serve reads them
	// (vllm/entrypoints/openai/cli_args.py, vllm/envs.py).
	APIKeysGiven      bool
	APIKeys           []string
	LogLevel          LogLevel // 0: LevelInfo
	DisableLogStats   bool
	LogStatsInterval  time.Duration
	TimeScale         float64
	ReasoningField    string
	NoReasoningParser bool
	FailRate          float64
	AbortRate         float64
	HeaderDelay       time.Duration
	// DrainTimeout is how long in-flight streams may finish once ctx ends.
	DrainTimeout time.Duration

	// Sim is the deployment, ModelPath the model as given (--model),
	// Traffic the profile requests draw their lengths from and Seed the
	// deployment's seed.
	Sim       sim.Config
	ModelPath string
	Traffic   profiles.Traffic
	Seed      uint64
	// Out receives the ready line and the log lines.
	Out io.Writer
}

// Validate reports every problem of the options' values on their own,
// each naming its field; Serve checks them again.
func (o *ServeOptions) Validate() error {
	var problems inputerr.List
	if slices.Contains(o.ServedModelNames, "") {
		problems.Field("ServedModelNames", errors.New("empty name"))
	}
	if _, ok := levelNames[o.LogLevel]; !ok && o.LogLevel != 0 {
		problems.Field("LogLevel", fmt.Errorf("unknown level %d", o.LogLevel))
	}
	if o.APIKeysGiven && (len(o.APIKeys) == 0 || slices.Contains(o.APIKeys, "")) {
		problems.Field("APIKeys", errors.New("empty key (a client could send none and pass)"))
	}
	if o.LogStatsInterval <= 0 {
		problems.Fieldf("LogStatsInterval", "%v: want a positive duration", o.LogStatsInterval)
	}
	if o.Port < 0 || o.Port > 65535 {
		problems.Fieldf("Port", "%d: want 0..65535", o.Port)
	}
	if !(o.TimeScale > 0 && o.TimeScale <= 1e6) { // Config's bound
		problems.Fieldf("TimeScale", "%g: want a positive number up to 1e6", o.TimeScale)
	}
	if o.DrainTimeout < 0 {
		problems.Fieldf("DrainTimeout", "%v is negative", o.DrainTimeout)
	}
	// Config.Validate checks these too, but names no field.
	for _, r := range []struct {
		field string
		v     float64
	}{{"FailRate", o.FailRate}, {"AbortRate", o.AbortRate}} {
		if !(r.v >= 0 && r.v <= 1) {
			problems.Fieldf(r.field, "must be a fraction in [0, 1], got %g", r.v)
		}
	}
	if o.HeaderDelay < 0 {
		problems.Fieldf("HeaderDelay", "%v is negative", o.HeaderDelay)
	}
	if o.ReasoningField != ReasoningField && o.ReasoningField != ReasoningContentField {
		problems.Fieldf("ReasoningField", "%q: want %s or %s", o.ReasoningField, ReasoningField, ReasoningContentField)
	}
	return problems.Err()
}

// ParseServedNames reads vllm serve's --served-model-name (given: the flag
// was given): its values, comma-separated or repeated, then the arguments
// after it (vLLM's nargs="+"), each once; arguments without the flag are
// an error. Not given: nil (the model as given).
func ParseServedNames(given bool, names, more []string) ([]string, error) {
	if !given {
		if len(more) > 0 {
			return nil, inputerr.Errorf("unexpected arguments %q: serve takes flags only (more served model names follow %s)", more, inputerr.Name("ServedModelNames"))
		}
		return nil, nil
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range append(append([]string(nil), names...), more...) {
		n = strings.TrimSpace(n)
		if n == "" {
			return nil, inputerr.Field("ServedModelNames", errors.New("empty name"))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return nil, inputerr.Field("ServedModelNames", errors.New("no name given"))
	}
	return out, nil
}
