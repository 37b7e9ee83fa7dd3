package logstats

import (
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
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

// TestProfileFitValidate: each bad option is refused naming its field
// (the command shows its flag), every one at once.
func TestProfileFitValidate(t *testing.T) {
	for _, tt := range []struct {
		p    ProfileFit
		want []string
	}{
		{ProfileFit{SpikeMinMass: 0.02, Report: "yaml"}, []string{"Report"}},
		{ProfileFit{SpikeMinMass: 0, Report: "table"}, []string{"SpikeMinMass"}},
		{ProfileFit{SpikeMinMass: 1.5, Report: "json"}, []string{"SpikeMinMass"}},
		{ProfileFit{SpikeMinMass: 0.02, Name: "my profile", Report: "table"}, []string{"Name"}},
		{ProfileFit{SpikeMinMass: 0.02, Name: "a,b", Report: "table"}, []string{"Name"}},
		{ProfileFit{SpikeMinMass: 0, Name: "a b", Report: "xml"}, []string{"Report", "SpikeMinMass", "Name"}},
		{ProfileFit{SpikeMinMass: 1, Name: "prod", Report: "json"}, nil},
	} {
		err := tt.p.Validate()
		if got := inputerr.Fields(err); (tt.want == nil) != (err == nil) || !slices.Equal(got, tt.want) {
			t.Errorf("%+v: %v (fields %v), want an error naming %q", tt.p, err, got, tt.want)
		}
	}
}
