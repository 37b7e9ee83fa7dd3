package size

import (
	"fmt"
	"sync"

	"github.com/thinkcap/thinkcap/sim"
)

// memo shares runs between candidates that differ only in max_num_seqs.
// vLLM's cap only matters when it binds: a run whose replicas never ran
// more requests than either cap is the very same run under both (the
// scheduler's admission is the only place the cap acts once the KV pool is
// the same size), so the sibling takes its measurement instead of
// simulating again. Which sibling runs first depends on the workers, but
// not what the measurement is: the output stays the same bytes.
type memo struct {
	mu   sync.Mutex
	runs map[memoKey][]memoRun
}

type memoKey struct {
	deployment string  // everything but max_num_seqs
	blocks     int     // the KV pool, which max_num_seqs can change
	replicas   int     // replicas of the run
	ratePerS   float64 // 0: the traffic as given; else its rescaled rate
}

type memoRun struct {
	maxNumSeqs  int
	peakRunning int // the most requests any replica ran at once
	m           Measurement
}

func newMemo() *memo { return &memo{runs: map[memoKey][]memoRun{}} }

func newMemoKey(cfg *sim.Config, blocks int, ratePerS float64) memoKey {
	spec := "off"
	if sc := cfg.Speculative; sc != nil {
		spec = fmt.Sprintf("%s|%s|%d|%v", sc.Method, sc.Model, sc.NumSpeculativeTokens, sc.AcceptanceRates)
	}
	return memoKey{
		deployment: fmt.Sprintf("%s|%s|%s|%d|%d|%s|%s", modelName(&cfg.Model), cfg.Quantization, cfg.GPU.Name, cfg.TensorParallelSize, cfg.PipelineParallelSize, cfg.KVCacheDtype, spec),
		blocks:     blocks, replicas: cfg.Replicas, ratePerS: ratePerS,
	}
}

// get returns a run equivalent to one at maxNumSeqs: neither cap bound.
func (c *memo) get(k memoKey, maxNumSeqs int) (Measurement, bool) {
	if c == nil {
		return Measurement{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.runs[k] {
		if r.peakRunning <= maxNumSeqs && (r.peakRunning < r.maxNumSeqs || maxNumSeqs <= r.maxNumSeqs) {
			return r.m, true
		}
	}
	return Measurement{}, false
}

func (c *memo) put(k memoKey, maxNumSeqs, peakRunning int, m Measurement) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs[k] = append(c.runs[k], memoRun{maxNumSeqs: maxNumSeqs, peakRunning: peakRunning, m: m})
}
