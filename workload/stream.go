package workload

import (
	"hash/fnv"
	"math/rand/v2"

	"github.com/thinkcap/thinkcap/internal/splitmix"
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
	lo := splitmix64(hi ^ splitmix.Gamma)
	return rand.New(rand.NewPCG(hi, lo))
}

// splitmix64 is SplitMix64's first draw from state x.
func splitmix64(x uint64) uint64 { return splitmix.Next(&x) }
