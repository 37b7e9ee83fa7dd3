package analysis

import (
	"math"
	"strings"
	"testing"
)

// FuzzParseTolerances: --tolerance never panics; an accepted spec gives
// bounds that are finite and non-negative, on metrics that exist, and a
// rejected one names the tolerance at fault.
func FuzzParseTolerances(f *testing.F) {
	for _, seed := range []string{"", "none", "ttft_p50=20%", "tpot_mean=0.1,preemptions=off", "none,e2e_p99=5%",
		"latency=5%", "ttft_p50=", "=5%", "ttft_p50=-1", "ttft_p50=NaN", "ttft_p50=1e400%", ",,"} {
		f.Add(seed)
	}
	valid := map[string]bool{}
	for _, m := range Metrics() {
		valid[m.Name] = true
	}
	f.Fuzz(func(t *testing.T, spec string) {
		tol, err := ParseTolerances(spec)
		if err != nil {
			if tol != nil || !strings.HasPrefix(err.Error(), "tolerance ") {
				t.Fatalf("error %q with tolerances %v", err, tol)
			}
			return
		}
		for name, v := range tol {
			if !valid[name] || !(v >= 0) || math.IsInf(v, 0) {
				t.Fatalf("%q accepted as %s=%v", spec, name, v)
			}
		}
	})
}
