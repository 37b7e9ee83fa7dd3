package workload

import (
	"hash/fnv"
	"math/rand/v2"
)

// NewStream returns the random stream called name under seed: a PCG
// generator whose state is derived from both. Each consumer of randomness
// draws from its own named stream, so adding draws to one (a new
// distribution, another class) leaves every other stream, and thus the rest
// of a run, unchanged.
func NewStream(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name))
	// splitmix64 spreads nearby seeds and names over the whole state space,
	// so that streams for seed 1 and seed 2 are unrelated.
	hi := splitmix64(seed ^ splitmix64(h.Sum64()))
	lo := splitmix64(hi ^ 0x9e3779b97f4a7c15)
	return rand.New(rand.NewPCG(hi, lo))
}

// splitmix64 is the finaliser of Steele, Lea and Flood's SplitMix64.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
