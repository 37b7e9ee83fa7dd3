package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestGammaArrival(t *testing.T) {
	const n = 400_000
	tests := []struct {
		spec       string
		rate       float64
		burstiness float64
	}{
		{"gamma", 4, 1},
		{"gamma:burstiness=0.25", 4, 0.25},
		{"gamma:burstiness=0.5", 10, 0.5},
		{"Gamma: burstiness = 4", 2, 4},
		{"gamma:cv=2", 1, 0.25},
		{"gamma:burstiness=0.05", 100, 0.05},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			a, err := ParseArrival(tt.spec, tt.rate)
			if err != nil {
				t.Fatal(err)
			}
			if a.RatePerS() != tt.rate || !strings.Contains(a.String(), "gamma") {
				t.Errorf("RatePerS %v, String %q", a.RatePerS(), a.String())
			}
			r := rand.New(rand.NewPCG(5, 6))
			var sum, sumSq float64
			for range n {
				g := a.Next(r)
				if g < 0 || math.IsNaN(g) {
					t.Fatalf("gap %v", g)
				}
				sum += g
				sumSq += g * g
			}
			m := sum / n
			cv := math.Sqrt(max(sumSq/n-m*m, 0)) / m
			wantCV := 1 / math.Sqrt(tt.burstiness)
			// The mean's standard error is cv/sqrt(n) relative; the CV's
			// is larger for heavy tails: a few percent.
			if !within(m, 1/tt.rate, 5*wantCV/math.Sqrt(n)+0.002) {
				t.Errorf("mean gap %v, want %v", m, 1/tt.rate)
			}
			if !within(cv, wantCV, 0.03) {
				t.Errorf("gap CV %v, want 1/sqrt(burstiness) = %v", cv, wantCV)
			}
		})
	}
}

// Burstiness 1 is Poisson to the schedule, not only in law.
func TestGammaBurstinessOneIsPoisson(t *testing.T) {
	g, _ := ParseArrival("gamma:burstiness=1", 3)
	p, _ := ParseArrival("poisson", 3)
	sg := Schedule(g, 100, NewStream(1, "arrival"))
	sp := Schedule(p, 100, NewStream(1, "arrival"))
	for i := range sg {
		if sg[i] != sp[i] {
			t.Fatalf("arrival %d: gamma %v, poisson %v", i, sg[i], sp[i])
		}
	}
	inf, err := ParseArrival("gamma:burstiness=0.3", math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range Schedule(inf, 10, NewStream(1, "arrival")) {
		if x != 0 {
			t.Fatalf("arrival %v at an unlimited rate", x)
		}
	}
}

func TestParseGammaErrors(t *testing.T) {
	tests := []struct {
		spec string
		rate float64
		want string
	}{
		{"gamma:burstiness=0", 1, "burstiness must be a positive number"},
		{"gamma:burstiness=-1", 1, "burstiness must be a positive number"},
		{"gamma:burstiness=NaN", 1, "burstiness must be a positive number"},
		{"gamma:burstiness=x", 1, "burstiness must be a positive number"},
		{"gamma:cv=0", 1, "cv must be a positive number"},
		{"gamma:shape=2", 1, "gamma takes burstiness=B or cv=C"},
		{"gamma:burstiness=1,cv=1", 1, "one of burstiness and cv"},
		{"gamma:burstiness=2", 0, "rate must be positive"},
	}
	for _, tt := range tests {
		_, err := ParseArrival(tt.spec, tt.rate)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.spec, err, tt.want)
		}
	}
	if _, err := NewGammaArrival(1, 0); err == nil || !strings.Contains(err.Error(), "burstiness must be a positive number") {
		t.Errorf("error %v", err)
	}
}

func TestSpeedupAndRescale(t *testing.T) {
	mk := func() []Request {
		return []Request{
			{ID: "a", ArrivalS: 0}, {ID: "b", ArrivalS: 10}, {ID: "f", ArrivalS: 0.5, After: "a"}, {ID: "c", ArrivalS: 20},
		}
	}
	reqs := mk()
	if err := Speedup(reqs, 2); err != nil {
		t.Fatal(err)
	}
	if got := []float64{reqs[0].ArrivalS, reqs[1].ArrivalS, reqs[2].ArrivalS, reqs[3].ArrivalS}; got[1] != 5 || got[2] != 0.5 || got[3] != 10 {
		t.Errorf("arrivals %v", got)
	}
	if rate, err := LogRate(mk()); err != nil || rate != 0.1 {
		t.Errorf("LogRate %v, %v; want 0.1", rate, err)
	}
	reqs = mk()
	factor, err := RescaleToRate(reqs, 1)
	if err != nil || factor != 10 || reqs[3].ArrivalS != 2 || reqs[2].ArrivalS != 0.5 {
		t.Errorf("factor %v, %v, arrivals %+v", factor, err, reqs)
	}
	if rate, _ := LogRate(reqs); math.Abs(rate-1) > 1e-12 {
		t.Errorf("rate after rescaling %v", rate)
	}

	errTests := []struct {
		name string
		err  error
		want string
	}{
		{"zero speedup", Speedup(mk(), 0), "speedup: must be a positive factor, got 0"},
		{"nan speedup", Speedup(mk(), math.NaN()), "speedup: must be a positive factor"},
		{"too slow", Speedup(mk(), 1e-9), "speedup: 1e-09 slows the log beyond"},
		{"zero rate", second(RescaleToRate(mk(), 0)), "rate: must be positive"},
		{"empty log", second(RescaleToRate(nil, 1)), "rate: cannot rescale the log: rate of a log: need at least two requests, got 0"},
		{"zero-length log", second(RescaleToRate([]Request{{ArrivalS: 3}, {ArrivalS: 3}}, 1)), "a log of zero length has no rate"},
	}
	for _, tt := range errTests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, tt.err, tt.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }
