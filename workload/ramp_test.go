package workload

import (
	"math"
	"testing"
	"time"
)

// TestRampStretch: the stretched schedule is the inverse of the ramp's
// cumulative load (rampedWork), continuous and increasing, and after the
// ramp it runs at the full pace; the load it gives grows as the shape says.
func TestRampStretch(t *testing.T) {
	for _, shape := range []string{RampLinear, RampExponential} {
		r := Ramp{Shape: shape, Duration: 20 * time.Second}
		prev := -1.0
		for t0 := 0.0; t0 < 40; t0 += 0.05 {
			u := r.Stretch(t0)
			if u <= prev && t0 > 0 {
				t.Fatalf("%s: Stretch not increasing at %g", shape, t0)
			}
			if back := r.rampedWork(u); math.Abs(back-t0) > 1e-6 {
				t.Fatalf("%s: rampedWork(Stretch(%g)) = %g", shape, t0, back)
			}
			prev = u
		}
		// After the ramp, one second of schedule is one second of run.
		if d := r.Stretch(30) - r.Stretch(29); math.Abs(d-1) > 1e-9 {
			t.Errorf("%s: after the ramp the pace is %g", shape, d)
		}
		// Requests at a steady 10/s: a quarter way through the linear ramp
		// the rate is a quarter of it.
		var reqs []Request
		for i := range 600 {
			reqs = append(reqs, Request{ArrivalS: float64(i) / 10})
		}
		ApplyRamp(reqs, r)
		count := func(from, to float64) float64 {
			n := 0.0
			for _, q := range reqs {
				if q.ArrivalS >= from && q.ArrivalS < to {
					n++
				}
			}
			return n / (to - from)
		}
		early, late := count(4, 6), count(25, 35)
		want := r.fraction(5) * 10
		if math.Abs(early-want) > 1.5 || math.Abs(late-10) > 0.5 {
			t.Errorf("%s: rate %g at 5 s (want %g), %g after the ramp (want 10)", shape, early, want, late)
		}
	}
}

func TestRampWorkersAndParse(t *testing.T) {
	lin := Ramp{Shape: RampLinear, Duration: 10 * time.Second}
	if lin.WorkerStart(0, 5) != 0 || lin.WorkerStart(4, 5) != 10*time.Second || lin.WorkerStart(2, 5) != 5*time.Second {
		t.Errorf("linear worker starts %v %v %v", lin.WorkerStart(0, 5), lin.WorkerStart(2, 5), lin.WorkerStart(4, 5))
	}
	// Exponentially, the concurrency doubles every third of the ramp for 8
	// workers: 2 by the middle, the other 6 after it.
	exp := Ramp{Shape: RampExponential, Duration: 10 * time.Second}
	firstHalf := 0
	for k := range 8 {
		if exp.WorkerStart(k, 8) <= 5*time.Second {
			firstHalf++
		}
	}
	if exp.WorkerStart(7, 8) != 10*time.Second || firstHalf != 2 || exp.WorkerStart(1, 8) != exp.WorkerStart(3, 8)-exp.WorkerStart(1, 8) {
		t.Errorf("exponential worker starts: %d by the middle; %v %v %v", firstHalf, exp.WorkerStart(1, 8), exp.WorkerStart(3, 8), exp.WorkerStart(7, 8))
	}
	if r, err := ParseRamp("exponential:1m30s"); err != nil || r.Duration != 90*time.Second || r.Shape != RampExponential {
		t.Errorf("%+v %v", r, err)
	}
	for _, bad := range []string{"linear", "linear:", "step:10s", "linear:-1s", "linear:0s", "10s"} {
		if _, err := ParseRamp(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
