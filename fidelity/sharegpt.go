package fidelity

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/thinkcap/thinkcap/workload"
)

// ShareGPT's conversations as `vllm bench serve` samples them: a record
// gives only the mean prompt and output of the requests it sent, and vLLM's
// sampler keeps a conversation only when its lengths pass
// is_valid_sequence (vllm/benchmarks/datasets.py; workload.ValidLengths):
// prompt and output at least 4 tokens, the prompt at most 1,024 and the two
// together at most 2,048. The replay draws each length from a lognormal
// with a coefficient of variation of 1 (lengthDist's choice where only a
// mean is known) and skips the pairs vLLM would skip, the lognormals'
// means scaled so that the pairs kept average the record's means. Without
// the filter a replay sent prompts of up to 8 × the mean and pairs of over
// 3,000 tokens that no ShareGPT run contains.

// shareGPTSigma is the lognormal's σ for a coefficient of variation of 1.
var shareGPTSigma = math.Sqrt(math.Ln2)

// shareGPTLengths draws (prompt, output) pairs that pass vLLM's filter.
type shareGPTLengths struct {
	muIn, muOut float64 // the lognormals' log-medians
}

// newShareGPTLengths fits the lognormals' scales so that the pairs kept
// average meanIn and meanOut. It returns false when the filter cannot
// reach those means (a mean beyond its bounds).
func newShareGPTLengths(meanIn, meanOut float64) (shareGPTLengths, bool) {
	if !workload.ValidLengths(int(math.Ceil(meanIn)), int(math.Ceil(meanOut))) {
		return shareGPTLengths{}, false
	}
	// The log-median of a lognormal of mean m: ln m − σ²/2.
	l := shareGPTLengths{math.Log(meanIn) - shareGPTSigma*shareGPTSigma/2, math.Log(meanOut) - shareGPTSigma*shareGPTSigma/2}
	// Fixed-point on the kept means with common random numbers (the same
	// draws every round), so the correction converges without noise.
	const draws = 20000
	z := make([][2]float64, draws)
	rng := rand.New(rand.NewPCG(0x73686172, 0x65677074))
	for i := range z {
		z[i] = [2]float64{rng.NormFloat64(), rng.NormFloat64()}
	}
	for range 40 {
		var sumIn, sumOut float64
		kept := 0
		for _, d := range z {
			p, o := l.pair(d[0], d[1])
			if workload.ValidLengths(p, o) {
				sumIn += float64(p)
				sumOut += float64(o)
				kept++
			}
		}
		if kept < draws/100 {
			return shareGPTLengths{}, false
		}
		gotIn, gotOut := sumIn/float64(kept), sumOut/float64(kept)
		l.muIn += math.Log(meanIn / gotIn)
		l.muOut += math.Log(meanOut / gotOut)
		if math.Abs(gotIn/meanIn-1) < 1e-3 && math.Abs(gotOut/meanOut-1) < 1e-3 {
			return l, true
		}
	}
	return l, true
}

// pair is the lengths for standard normal draws zIn and zOut.
func (l shareGPTLengths) pair(zIn, zOut float64) (int, int) {
	return int(math.Round(math.Exp(l.muIn + shareGPTSigma*zIn))), int(math.Round(math.Exp(l.muOut + shareGPTSigma*zOut)))
}

// sample draws a pair that vLLM's sampler keeps.
func (l shareGPTLengths) sample(rng *rand.Rand) (int, int) {
	for {
		p, o := l.pair(rng.NormFloat64(), rng.NormFloat64())
		if workload.ValidLengths(p, o) {
			return p, o
		}
	}
}

// shareGPTFilter is the filtered sampler for a record that sent ShareGPT's
// conversations and gives only their mean lengths; false for any other.
func shareGPTFilter(r *Record) (shareGPTLengths, bool) {
	in, out := r.Workload.InputLen, r.Workload.OutputLen
	if r.Workload.Dataset != "sharegpt" || in.Dist != "" || in.Max > 0 || out.Dist != "" || out.Max > 0 {
		return shareGPTLengths{}, false
	}
	key := [2]float64{in.Mean, out.Mean}
	if f, ok := shareGPTFits.Load(key); ok {
		fit := f.(shareGPTFit)
		return fit.l, fit.ok
	}
	l, ok := newShareGPTLengths(in.Mean, out.Mean)
	shareGPTFits.Store(key, shareGPTFit{l, ok})
	return l, ok
}

// shareGPTFits keeps each pair of means' fit (a few milliseconds of
// draws), which every replay of a record would otherwise redo: a
// calibration replays each point a dozen times.
var shareGPTFits sync.Map // [2]float64 → shareGPTFit

type shareGPTFit struct {
	l  shareGPTLengths
	ok bool
}
