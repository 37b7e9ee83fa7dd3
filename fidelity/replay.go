package fidelity

import (
	"fmt"
	"github.com/thinkcap/thinkcap/calibrate"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// defaultPrompts is how many requests a replay sends: the source's number,
// or ten per concurrent stream when it does not say (as InferenceX and
// `vllm bench` sweeps commonly run), at least 200. A steady state needs no
// more, so a closed loop sends at most max(10 × concurrency, 50) and an
// open loop at a rate at most 1,000 (a long run at one concurrency repeats
// the same steps); a burst (every prompt at once) sends them all, the load
// being the number.
func defaultPrompts(r *Record) int {
	n := r.Workload.NumPrompts
	if n <= 0 {
		n = max(10*r.Concurrency, 200)
	}
	switch {
	case r.ClosedLoop():
		return min(n, max(10*r.Concurrency, 50))
	case r.RequestRate > 0:
		return min(n, 1000)
	}
	return n
}

// Predicted is what the simulator says the client would have measured at
// a load point, with the statistics `vllm bench serve` prints, in
// milliseconds and tokens/s.
type Predicted = calibrate.Aggregates

// requests draws the record's workload: the lengths its source defines,
// seeded by the record's id so a replay is the same every time. All
// output is answer (benchmark models are not asked to think, and
// --ignore-eos makes the length exact).
func requests(r *Record) ([]workload.Request, error) {
	in, err := lengthDist(r.Workload.InputLen)
	if err != nil {
		return nil, fmt.Errorf("workload.input_len: %w", err)
	}
	out, err := outputDist(r)
	if err != nil {
		return nil, fmt.Errorf("workload.output_len: %w", err)
	}
	sharegpt, filtered := shareGPTFilter(r)
	h := fnv.New64a()
	h.Write([]byte(r.ID))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x7468696e6b636170))
	n := defaultPrompts(r)
	reqs := make([]workload.Request, n)
	t := 0.0
	distinct := r.Workload.DistinctPrompts
	for i := range reqs {
		if r.RequestRate > 0 {
			t += rng.ExpFloat64() / r.RequestRate // vLLM bench's Poisson arrivals (burstiness 1)
		}
		reqs[i] = workload.Request{ArrivalS: t}
		if filtered {
			reqs[i].PromptTokens, reqs[i].AnswerTokens = sharegpt.sample(rng)
		} else {
			reqs[i].PromptTokens, reqs[i].AnswerTokens = max(in.Sample(rng), 1), max(out.Sample(rng), 1)
		}
		if p := r.Workload.PrefixLen; p > 0 {
			reqs[i].PrefixID, reqs[i].PrefixTokens = "shared", p
			reqs[i].PromptTokens += p
		}
		if distinct > 0 && i >= distinct {
			// A prompt seen before: the same tokens, the whole of it a
			// prefix (the cache may still hold it).
			first := &reqs[i%distinct]
			reqs[i].PromptTokens = first.PromptTokens
			reqs[i].PrefixID, reqs[i].PrefixTokens = first.PrefixID, first.PrefixTokens
		}
		if distinct > 0 && i < distinct {
			reqs[i].PrefixID, reqs[i].PrefixTokens = fmt.Sprintf("prompt-%d", i), reqs[i].PromptTokens
		}
	}
	return reqs, nil
}

// outputDist is the output lengths the record's requests generated: the
// source's, or, when the source did not set --ignore-eos and its client
// counted fewer tokens than it asked for (total_output_tokens /
// completed under the requested mean: the model stopped early), an
// exponential stopping length clamped at the requested maximum whose mean
// is the one counted. A constant chance to stop at each token is the
// least-informed model of where a model ends text of random tokens; the
// requests that do not stop by the maximum end there, as max_tokens makes
// them.
func outputDist(r *Record) (workload.Dist, error) {
	l := r.Workload.OutputLen
	m := r.Measured
	asked := meanLen(l)
	if r.Workload.IgnoreEOS != nil && *r.Workload.IgnoreEOS || l.Max <= 0 || asked <= 0 || m.Completed <= 0 || m.TotalOutputTokens <= 0 {
		return lengthDist(l)
	}
	got := float64(m.TotalOutputTokens) / float64(m.Completed)
	if got >= earlyStopShare*asked {
		return lengthDist(l)
	}
	mu := stoppingMean(got, l.Max)
	return workload.ParseDist(fmt.Sprintf("exponential:mean=%g,min=1,max=%d", mu, int(math.Round(l.Max))))
}

// earlyStopShare is the share of the asked output under which a run's
// requests count as stopping early (above it, the few short ones change
// nothing a replay can see).
const earlyStopShare = 0.97

// stoppingMean is the mean μ of an exponential whose draws clamped at max
// average mean: μ(1 − e^(−max/μ)) = mean, by bisection (the left side
// grows with μ from 0 towards max).
func stoppingMean(mean, max float64) float64 {
	lo, hi := 1e-9, 1e9
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if mid*(-math.Expm1(-max/mid)) < mean {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// lengthDist is a Length as a workload distribution.
func lengthDist(l Length) (workload.Dist, error) {
	bounds := ""
	if l.Min > 0 {
		bounds += fmt.Sprintf(",min=%d", int(math.Round(l.Min)))
	}
	if l.Max > 0 {
		bounds += fmt.Sprintf(",max=%d", int(math.Round(l.Max)))
	}
	switch l.Dist {
	case "normal":
		return workload.ParseDist(fmt.Sprintf("normal:mean=%g,sd=%g%s", l.Mean, max(l.SD, 1e-9), bounds))
	case "lognormal":
		sigma := math.Sqrt(math.Log1p(l.SD * l.SD / (l.Mean * l.Mean)))
		return workload.ParseDist(fmt.Sprintf("lognormal:mean=%g,sigma=%g%s", l.Mean, max(sigma, 1e-6), bounds))
	case "exponential":
		return workload.ParseDist(fmt.Sprintf("exponential:mean=%g%s", l.Mean, bounds))
	}
	if l.Max > 0 {
		lo, hi := int(math.Round(l.Min)), int(math.Round(l.Max))
		if lo == hi {
			return workload.Constant(hi), nil
		}
		return workload.ParseDist(fmt.Sprintf("uniform:%d..%d", lo, hi))
	}
	// Only a mean (a dataset such as ShareGPT, whose conversations vary
	// widely): a lognormal of that mean with a coefficient of variation of
	// 1, clamped to [4, 8 × mean], rather than every request at the mean,
	// which would end every request of a burst together.
	return workload.ParseDist(fmt.Sprintf("lognormal:mean=%g,sigma=%g,min=4,max=%d", l.Mean, math.Sqrt(math.Ln2), int(8*l.Mean)))
}

// replay simulates one load point on cfg and summarises it as the client
// would have.
func replay(cfg sim.Config, r *Record) (Predicted, error) {
	reqs, err := requests(r)
	if err != nil {
		return Predicted{}, err
	}
	cfg.Seed = 1
	rep, err := sim.Run(cfg, reqs, sim.Options{Concurrency: r.Concurrency})
	if err != nil {
		return Predicted{}, err
	}
	return summarise(rep), nil
}

// summarise computes `vllm bench serve`'s statistics from the simulated
// results: TPOT over requests with more than one output token, ITL as the
// decode time over the tokens after the first, throughput over the span
// from the first arrival to the last completion.
func summarise(rep *sim.Report) Predicted {
	var tpot, ttft, e2e []float64
	var outTok, decodeS float64
	var decodeTok int
	first, last := math.Inf(1), 0.0
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Status != "ok" {
			continue
		}
		n := res.OutputTokens()
		ttft = append(ttft, res.TTFTS*1e3)
		e2e = append(e2e, res.E2ES*1e3)
		outTok += float64(n)
		first, last = min(first, res.ArrivalS), max(last, res.ArrivalS+res.E2ES)
		if n > 1 {
			tpot = append(tpot, res.TPOTS*1e3)
			decodeS += res.E2ES - res.TTFTS
			decodeTok += n - 1
		}
	}
	p := Predicted{TPOT: stat(tpot), TTFT: stat(ttft), E2EL: stat(e2e), Preemptions: rep.Preemptions}
	if decodeTok > 0 {
		p.ITL = Stat{Mean: decodeS / float64(decodeTok) * 1e3, Median: rep.ITL.P50 * 1e3, P90: rep.ITL.P90 * 1e3, P99: rep.ITL.P99 * 1e3}
	}
	if last > first {
		p.DurationS = last - first
		p.OutputThroughput = outTok / p.DurationS
	}
	return p
}

func stat(v []float64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	slices.Sort(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	q := func(p float64) float64 {
		pos := p * float64(len(v)-1)
		i := int(pos)
		if i+1 >= len(v) {
			return v[len(v)-1]
		}
		return v[i] + (pos-float64(i))*(v[i+1]-v[i])
	}
	return Stat{Mean: sum / float64(len(v)), Median: q(0.5), P90: q(0.9), P99: q(0.99)}
}
