package splitmix

import "testing"

// TestReferenceStream: the first outputs for seed 1234567 are those of the
// reference implementation (Vigna's splitmix64.c), so every stream drawn
// from this package stays what it was.
func TestReferenceStream(t *testing.T) {
	state := uint64(1234567)
	for i, want := range []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821} {
		if got := Next(&state); got != want {
			t.Errorf("draw %d: %d, want %d", i, got, want)
		}
	}
}

// TestFloat64Range: draws lie in [0, 1) and allocate nothing.
func TestFloat64Range(t *testing.T) {
	state := uint64(0)
	for range 10_000 {
		if f := Float64(&state); f < 0 || f >= 1 {
			t.Fatalf("draw %g outside [0, 1)", f)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Float64(&state) }); n != 0 {
		t.Errorf("Float64 allocates %g times", n)
	}
}
