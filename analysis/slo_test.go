package analysis

import (
	"reflect"
	"slices"
	"testing"
)

func TestParseSLOs(t *testing.T) {
	tests := []struct {
		in   string
		want []SLO
		err  bool
	}{
		{"ttft_p99=2s,ttfa_p99=30s,e2e_p99=120s,tpot_p99=60ms", []SLO{
			{"ttft", "p99", 2}, {"ttfa", "p99", 30}, {"e2e", "p99", 120}, {"tpot", "p99", 0.06}}, false},
		{"TTFT_P50=1.5s", []SLO{{"ttft", "p50", 1.5}}, false},
		{" tpot_mean = 25ms ", []SLO{{"tpot", "mean", 0.025}}, false},
		{"e2e_p90=90s,", []SLO{{"e2e", "p90", 90}}, false},
		{"", nil, true},
		{"ttft_p99=2", nil, true},
		{"ttft_p95=2s", nil, true},
		{"itl_p99=2s", nil, true},
		{"ttft_p99=-1s", nil, true},
		{"ttft_p99=0s", nil, true},
		{"ttft_p99", nil, true},
		{"ttft_p99=1s,ttft_p99=2s", nil, true},
		{"ttft_p99=NaNs", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseSLOs(tt.in)
		if (err != nil) != tt.err {
			t.Errorf("%q: error %v, want error %v", tt.in, err, tt.err)
			continue
		}
		if !tt.err && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestSLOStringRoundTrips(t *testing.T) {
	for _, in := range []string{"ttft_p99=2s", "tpot_p99=60ms", "ttfa_mean=1.5s", "e2e_p50=250ms"} {
		slos, err := ParseSLOs(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := slos[0].String(); got != in {
			t.Errorf("%q prints as %q", in, got)
		}
	}
}

func FuzzParseSLOs(f *testing.F) {
	for _, s := range []string{"ttft_p99=2s,tpot_p99=60ms", "e2e_mean=1e3ms", "x=y", ",,", "ttfa_p90=0.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		slos, err := ParseSLOs(s)
		if err != nil {
			return
		}
		for _, slo := range slos {
			if !(slo.LimitS > 0) || !slices.Contains(SLONames(), slo.Name()) {
				t.Fatalf("%q gave %+v", s, slo)
			}
		}
	})
}
