package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestArrivalRate(t *testing.T) {
	const n = 200_000
	tests := []struct {
		name  string
		rate  float64
		maxCV float64 // coefficient of variation of the gaps
		minCV float64
	}{
		{ArrivalConstant, 4, 1e-9, 0},
		{ArrivalPoisson, 4, 1.02, 0.98}, // exponential gaps: CV = 1
		{"Poisson", 0.5, 1.02, 0.98},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseArrival(tt.name, tt.rate)
			if err != nil {
				t.Fatal(err)
			}
			if a.RatePerS() != tt.rate {
				t.Errorf("RatePerS() = %v", a.RatePerS())
			}
			r := rand.New(rand.NewPCG(3, 4))
			var sum, sumSq float64
			for range n {
				g := a.Next(r)
				if g < 0 {
					t.Fatalf("negative gap %v", g)
				}
				sum += g
				sumSq += g * g
			}
			m := sum / n
			sd := math.Sqrt(max(sumSq/n-m*m, 0))
			if !within(m, 1/tt.rate, 0.01) {
				t.Errorf("mean gap %v, want %v", m, 1/tt.rate)
			}
			if cv := sd / m; cv > tt.maxCV || cv < tt.minCV {
				t.Errorf("gap CV %v, want in [%v, %v]", cv, tt.minCV, tt.maxCV)
			}
		})
	}
}

func TestParseArrivalErrors(t *testing.T) {
	tests := []struct {
		name string
		rate float64
		want string
	}{
		{"bursty", 1, `arrival process "bursty": unknown (valid: constant, poisson, gamma)`},
		{"", 1, "empty name (valid: constant, poisson, gamma)"},
		{"poisson", 0, "rate must be positive"},
		{"constant", -2, "rate must be positive"},
		{"poisson", math.NaN(), "rate must be positive"},
		{"poisson:burstiness=2", 1, "poisson takes no parameters"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseArrival(tt.name, tt.rate)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	a, _ := ParseArrival(ArrivalConstant, 2)
	got := Schedule(a, 4, nil)
	want := []float64{0, 0.5, 1, 1.5}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("schedule %v, want %v", got, want)
		}
	}
	if Schedule(a, 0, nil) != nil {
		t.Error("empty schedule not nil")
	}

	// Unlimited rate: everything at 0.
	p, err := ParseArrival(ArrivalPoisson, math.Inf(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range Schedule(p, 10, NewStream(1, "arrival")) {
		if x != 0 {
			t.Fatalf("arrival %v at unlimited rate", x)
		}
	}

	// Same seed, same plan; times never go back.
	s1 := Schedule(p2(t), 1000, NewStream(9, "arrival"))
	s2 := Schedule(p2(t), 1000, NewStream(9, "arrival"))
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatal("schedules differ for one seed")
		}
		if i > 0 && s1[i] < s1[i-1] {
			t.Fatal("schedule goes back in time")
		}
	}
}

func p2(t *testing.T) Arrival {
	a, err := ParseArrival(ArrivalPoisson, 2)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
