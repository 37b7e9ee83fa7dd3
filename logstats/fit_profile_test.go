package logstats

import (
	"strings"
	"testing"
)

func TestFitNames(t *testing.T) {
	for path, want := range map[string]string{
		"logs/prod.jsonl.gz": "prod", "a b,c.csv": "a_b_c", "x": "x", ".jsonl": "fitted", "/": "fitted",
	} {
		if got := profileName(path); got != want {
			t.Errorf("profileName(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestProfileFitValidate: each bad option is refused naming its flag.
func TestProfileFitValidate(t *testing.T) {
	for _, tt := range []struct {
		p    ProfileFit
		want string
	}{
		{ProfileFit{SpikeMinMass: 0.02, Report: "yaml"}, "--report"},
		{ProfileFit{SpikeMinMass: 0, Report: "table"}, "--spike-min-mass"},
		{ProfileFit{SpikeMinMass: 1.5, Report: "json"}, "--spike-min-mass"},
		{ProfileFit{SpikeMinMass: 0.02, Name: "my profile", Report: "table"}, "--name"},
		{ProfileFit{SpikeMinMass: 0.02, Name: "a,b", Report: "table"}, "--name"},
		{ProfileFit{SpikeMinMass: 1, Name: "prod", Report: "json"}, ""},
	} {
		err := tt.p.Validate()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%+v: %v, want an error naming %q", tt.p, err, tt.want)
		}
	}
}
