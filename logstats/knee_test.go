package logstats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestKnee(t *testing.T) {
	// y = √x on [0, 1]: the difference curve √x − x peaks where its
	// derivative 1/(2√x) − 1 vanishes, at x = 1/4 (index 5 of 0, 0.05, …, 1).
	var sqrtX, sqrtY []float64
	for i := 0; i <= 20; i++ {
		x := float64(i) / 20
		sqrtX, sqrtY = append(sqrtX, x), append(sqrtY, math.Sqrt(x))
	}
	tests := []struct {
		name string
		x, y []float64
		want int
	}{
		{"square root (textbook concave)", sqrtX, sqrtY, 5},
		{"piecewise linear", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			[]float64{0, 1, 2, 3, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7}, 3},
		// Overthinking: accuracy peaks at 1,200 tokens and declines. Scaled,
		// d = 0, .582, .831, .766, .428, -.167: the knee is at 600, before
		// the peak, not after it.
		{"declines after its peak", []float64{100, 300, 600, 1200, 2400, 4800},
			[]float64{0.30, 0.60, 0.75, 0.78, 0.74, 0.70}, 2},
		// Eval accuracy that keeps rising past 2,000 tokens, with a noisy
		// bump at 439: d = 0 .196 .015 .157 -.04 0 never falls 0.2 below a
		// local maximum, so no knee is confirmed and the most accurate
		// point wins.
		{"noisy and still rising: no knee", []float64{183, 439, 694, 1172, 1931, 2757},
			[]float64{0.30, 0.45, 0.408, 0.575, 0.625, 0.808}, 5},
		{"peaks at the first point", []float64{50, 400, 900}, []float64{0.92, 0.90, 0.85}, 0},
		{"flat", []float64{50, 400, 900}, []float64{0.5, 0.5, 0.5}, 0},
		{"convex: no knee, the most accurate", []float64{0, 1, 2, 3}, []float64{0, 0.1, 0.4, 0.9}, 3},
		{"straight line: no knee", []float64{0, 1, 2}, []float64{0.2, 0.5, 0.8}, 2},
		{"two points", []float64{100, 800}, []float64{0.4, 0.7}, 1},
		{"one point", []float64{100}, []float64{0.4}, 0},
		{"equal x", []float64{100, 100, 100}, []float64{0.4, 0.6, 0.5}, 1},
		{"empty", nil, nil, -1},
		{"length mismatch", []float64{1, 2}, []float64{1}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Knee(tt.x, tt.y); got != tt.want {
				t.Errorf("Knee = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestFindKneeConfirmed: the fallbacks (no diminishing returns, flat,
// equal x) are not reported as knees Kneedle confirmed.
func TestFindKneeConfirmed(t *testing.T) {
	tests := []struct {
		name      string
		x, y      []float64
		want      int
		confirmed bool
	}{
		{"piecewise linear", []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
			[]float64{0, 1, 2, 3, 3.1, 3.2, 3.3, 3.4, 3.5, 3.6, 3.7}, 3, true},
		{"declines after its peak", []float64{100, 300, 600, 1200, 2400, 4800},
			[]float64{0.30, 0.60, 0.75, 0.78, 0.74, 0.70}, 2, true},
		{"peaks at the first point", []float64{50, 400, 900}, []float64{0.92, 0.90, 0.85}, 0, true},
		{"noisy and still rising", []float64{183, 439, 694, 1172, 1931, 2757},
			[]float64{0.30, 0.45, 0.408, 0.575, 0.625, 0.808}, 5, false},
		{"convex", []float64{0, 1, 2, 3}, []float64{0, 0.1, 0.4, 0.9}, 3, false},
		{"two points", []float64{100, 800}, []float64{0.4, 0.7}, 1, false},
		{"flat", []float64{50, 400, 900}, []float64{0.5, 0.5, 0.5}, 0, false},
		{"equal x", []float64{100, 100, 100}, []float64{0.4, 0.6, 0.5}, 1, false},
		{"empty", nil, nil, -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, confirmed := FindKnee(tt.x, tt.y)
			if got != tt.want || confirmed != tt.confirmed {
				t.Errorf("FindKnee = %d, %v; want %d, %v", got, confirmed, tt.want, tt.confirmed)
			}
		})
	}
}

// TestKneeOrderFree: the knee is a point, not a position; shuffling the
// input finds the same point.
func TestKneeOrderFree(t *testing.T) {
	x := []float64{100, 300, 600, 1200, 2400, 4800}
	y := []float64{0.30, 0.60, 0.75, 0.78, 0.74, 0.70}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 50 {
		perm := rng.Perm(len(x))
		px, py := make([]float64, len(x)), make([]float64, len(y))
		for i, j := range perm {
			px[i], py[i] = x[j], y[j]
		}
		if k := Knee(px, py); px[k] != 600 {
			t.Fatalf("shuffled %v: knee at x=%v, want 600", px, px[k])
		}
	}
}

func TestConfirmedKnee(t *testing.T) {
	tests := []struct {
		name string
		d    []float64
		drop float64
		want int
	}{
		{"falls after its maximum", []float64{0, 0.5, 0.2, 0}, 0.25, 1},
		{"does not fall far enough", []float64{0, 0.5, 0.4, 0.3}, 0.25, -1},
		// The first maximum is reset by the second before falling enough.
		{"reset by a later maximum", []float64{0, 0.3, 0.25, 0.28, 0}, 0.25, 3},
		{"two confirmed: the higher", []float64{0, 0.2, -0.1, 0.4, 0}, 0.25, 3},
		{"plateau: its first point", []float64{0, 0.5, 0.5, 0}, 0.25, 1},
		{"below the diagonal", []float64{0, -0.1, -0.5, 0}, 0.25, -1},
		{"at the start", []float64{1, 0.3, -1}, 0.5, 0},
	}
	for _, tt := range tests {
		if got := confirmedKnee(tt.d, tt.drop); got != tt.want {
			t.Errorf("%s: confirmedKnee(%v, %v) = %d, want %d", tt.name, tt.d, tt.drop, got, tt.want)
		}
	}
}
