package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// diurnal is a rate shape with a day peak and a night trough.
func diurnal(h int) float64 { return 1 + 0.8*math.Sin(2*math.Pi*(float64(h)-9)/24) }

// diurnalLog draws a log of the given days from the diurnal shape at
// meanRate, hour by hour, starting at startHour.
func diurnalLog(days int, meanRate float64, startHour int) []Request {
	r := rand.New(rand.NewPCG(11, 12))
	var reqs []Request
	for hour := 0; hour < 24*days; hour++ {
		rate := meanRate * diurnal((hour+startHour)%24)
		for t := r.ExpFloat64() / rate; t < 3600; t += r.ExpFloat64() / rate {
			reqs = append(reqs, Request{ArrivalS: float64(hour)*3600 + t, PromptTokens: 1})
		}
	}
	return reqs
}

func TestHourlyProfile(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start int
		st    ReadStats
	}{
		{"relative arrivals", 0, ReadStats{}},
		// The log began at 06:00 UTC.
		{"timestamps", 6, ReadStats{Timestamps: true, StartUnix: 1748757600}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs := diurnalLog(3, 0.5, tc.start)
			p, err := HourlyProfile(reqs, tc.st)
			if err != nil {
				t.Fatal(err)
			}
			if p.StartHour != float64(tc.start) {
				t.Errorf("start hour %v, want %d", p.StartHour, tc.start)
			}
			sum := 0.0
			for h, w := range p.Weights {
				sum += w
				// ~1800·diurnal(h)·3 requests an hour of day: ±10%.
				if !within(w, diurnal(h), 0.1) {
					t.Errorf("hour %d: weight %.3f, want %.3f", h, w, diurnal(h))
				}
			}
			if math.Abs(sum-24) > 1e-9 {
				t.Errorf("weights sum to %v, want 24", sum)
			}
		})
	}
}

func TestDayShapedFollowsProfile(t *testing.T) {
	reqs := diurnalLog(2, 0.5, 0)
	const n, rate = 200_000, 1.0
	times, err := DayShaped(reqs, ReadStats{}, n, rate, 42)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := DayShaped(reqs, ReadStats{}, n, rate, 42)
	for i := range times {
		if times[i] != again[i] {
			t.Fatal("not deterministic for a seed")
		}
		if i > 0 && times[i] < times[i-1] {
			t.Fatal("times go back")
		}
	}
	if times[0] != 0 {
		t.Errorf("first arrival %v, want 0", times[0])
	}
	// Mean rate over whole days, and per-hour counts that follow the shape.
	days := math.Floor(times[n-1] / 86400)
	var count [24]float64
	total := 0
	for _, x := range times {
		if x < days*86400 {
			count[int(x/3600)%24]++
			total++
		}
	}
	if got := float64(total) / (days * 86400); !within(got, rate, 0.02) {
		t.Errorf("mean rate %v over %v days, want %v", got, days, rate)
	}
	p, _ := HourlyProfile(reqs, ReadStats{})
	for h := range 24 {
		want := rate * p.Weights[h] * 3600 * days
		if math.Abs(count[h]-want) > 4*math.Sqrt(want)+0.01*want {
			t.Errorf("hour %d: %v arrivals, want %.0f", h, count[h], want)
		}
	}
}

func TestDayShapedErrors(t *testing.T) {
	ok := diurnalLog(1, 0.1, 0)
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"empty log", second(DayShaped(nil, ReadStats{}, 10, 1, 1)), "day-shaped arrivals: the log has no requests"},
		{"zero-length log", second(DayShaped([]Request{{ArrivalS: 5}, {ArrivalS: 5}}, ReadStats{}, 10, 1, 1)), "a log of zero length"},
		{"zero requests", second(DayShaped(ok, ReadStats{}, 0, 1, 1)), "requests must be at least 1"},
		{"zero rate", second(DayShaped(ok, ReadStats{}, 10, 0, 1)), "rate must be positive"},
		{"nan rate", second(DayShaped(ok, ReadStats{}, 10, math.NaN(), 1)), "rate must be positive"},
		{"too long", second(DayShaped(ok, ReadStats{}, 1000, 1e-7, 1)), "last beyond"},
		{"zero profile", second(DayProfile{}.Schedule(3, 1, NewStream(1, "x"))), "weights are all zero"},
	}
	for _, tt := range tests {
		if tt.err == nil || !strings.Contains(tt.err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, tt.err, tt.want)
		}
	}
	times, err := DayShaped(ok, ReadStats{}, 5, math.Inf(1), 1)
	if err != nil || len(times) != 5 || times[4] != 0 {
		t.Errorf("unlimited rate: %v, %v", times, err)
	}
}

// A log shorter than a day: the hours it never saw get its mean rate.
func TestHourlyProfileShortLog(t *testing.T) {
	reqs := []Request{{ArrivalS: 0}, {ArrivalS: 1800}, {ArrivalS: 3600}, {ArrivalS: 4000}, {ArrivalS: 7199}}
	p, err := HourlyProfile(reqs, ReadStats{})
	if err != nil {
		t.Fatal(err)
	}
	for h := 2; h < 24; h++ {
		if p.Weights[h] != p.Weights[2] {
			t.Fatalf("unseen hours differ: %v", p.Weights)
		}
	}
	if !(p.Weights[0] > 0 && p.Weights[1] > 0) {
		t.Errorf("weights %v", p.Weights)
	}
}
