// Package splitmix is Steele, Lea and Flood's SplitMix64 ("Fast splittable
// pseudorandom number generators", OOPSLA 2014): a 64-bit state stepped by a
// fixed odd constant and a finaliser that mixes it. It takes a few
// nanoseconds and no memory, is well mixed even for consecutive seeds, and
// is reproducible across Go versions, which is why the simulator, the load
// generator and the workload seeding use it instead of math/rand where a
// draw is on a hot path or must never change.
package splitmix

// Gamma is the step added to the state at each draw (2^64 / φ, odd).
const Gamma = 0x9e3779b97f4a7c15

// Mix is SplitMix64's finaliser: a bijection of 64-bit words that spreads
// nearby inputs over the whole range.
func Mix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// Next steps *state and returns the next number of its stream.
func Next(state *uint64) uint64 {
	*state += Gamma
	return Mix(*state)
}

// Float64 steps *state and returns the next number of its stream in
// [0, 1), from its top 53 bits.
func Float64(state *uint64) float64 { return float64(Next(state)>>11) / (1 << 53) }
