package workload

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(testdataDir, "*"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b, filepath.Base(file))
		}
	}
	f.Add([]byte(`{"arrival_s":1e308,"prompt_tokens":"9e18","prefix_tokens":-0}`), "x.jsonl")
	f.Add([]byte("timestamp,prompt_tokens\n\"2025-01-01 00:00:00Z\",3\n-9e10,1\n"), "x.csv")
	f.Add([]byte("\x1f\x8b"), "x.gz")
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		reqs, st, err := ReadWithStats(strings.NewReader(string(data)), name, "")
		checkRead(t, reqs, st, err)
	})
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{
		"400", "constant:7,max=5", "uniform:10..20,min=12", "lognormal:p50=400,p99=8000,max=16384",
		"lognormal:mean=900,p90=1e4", "lognormal:median=1500,sigma=1.2", "exponential:mean=500",
		"normal:mean=0,sd=1e9", "lognormal:p90=1,p99=1.0000001", "uniform:0..1000000000",
		"gamma:shape=2,scale=400", "gamma:mean=800,cv=1.5,max=4096", "gamma:shape=0.01,scale=1e9",
		"empirical:p0=10,p50=400,p99.9=8000,p100=8000,min=20", "empirical:p0=0,p0.5=0,p100=1e9",
		"lognormal:p50=400,p99=8000,max=4096,spike=0@0.3,spike=4096@0.1", "constant:0,spike=1000000000@0.999",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		d, err := ParseDist(spec)
		if err != nil {
			return
		}
		again, err := ParseDist(d.String())
		if err != nil || again.String() != d.String() {
			t.Fatalf("%q: canonical %q does not round-trip: %v", spec, d.String(), err)
		}
		if m := d.Mean(); math.IsNaN(m) || m < 0 || m > MaxTokens {
			t.Fatalf("%q: Mean() = %v", spec, m)
		}
		r := rand.New(rand.NewPCG(1, 1))
		for range 100 {
			if x := d.Sample(r); x < 0 || x > MaxTokens {
				t.Fatalf("%q: sample %d", spec, x)
			}
		}
	})
}
