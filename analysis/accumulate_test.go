package analysis

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// randomResults draws results of every kind Summarize distinguishes:
// failures, rejections, follow-ups, continued calls, no answer, one token,
// zero queue times and latencies over six orders of magnitude.
func randomResults(r *rand.Rand, n int) []workload.Result {
	out := make([]workload.Result, n)
	for i := range out {
		res := &out[i]
		res.Status = workload.StatusOK
		switch r.IntN(20) {
		case 0:
			res.Status = workload.StatusRejected
		case 1:
			res.Status = workload.StatusTimeout
		}
		res.PromptTokens = r.IntN(5000)
		res.ThinkTokens = r.IntN(3) * r.IntN(20000)
		res.AnswerTokens = r.IntN(4) * r.IntN(800)
		if r.IntN(50) == 0 {
			res.ThinkTokens = 300_000 + r.IntN(10) // beyond the dense counts
		}
		scale := math.Pow(10, float64(r.IntN(6))-3)
		res.TTFTS = scale * r.ExpFloat64()
		res.TTFAS = res.TTFTS + r.ExpFloat64()
		res.TPOTS = 0.001 + 0.05*r.Float64()
		res.E2ES = res.TTFAS + 10*r.Float64()
		if r.IntN(3) > 0 {
			res.QueueS = scale * r.Float64()
		}
		if r.IntN(2) == 0 {
			res.TTFTEngineS = res.TTFTS / 2
		}
		if r.IntN(10) == 0 {
			res.After = "x"
		}
		if r.IntN(10) == 0 {
			res.Continued = true
		}
	}
	return out
}

// TestAccumulatorMatchesSummarize: the streaming summary is Summarize's:
// counts, throughputs and token statistics equal, latency means equal to
// rounding, latency quantiles within SketchRelativeError; and merging two
// halves gives the whole.
func TestAccumulatorMatchesSummarize(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, n := range []int{0, 1, 2, 7, 100, 5000} {
		results := randomResults(r, n)
		want := Summarize("simulation", results, 123.4)
		var whole, a, b Accumulator
		for i := range results {
			whole.Add(&results[i])
			if i < n/2 {
				a.Add(&results[i])
			} else {
				b.Add(&results[i])
			}
		}
		a.Merge(&b)
		for name, acc := range map[string]*Accumulator{"whole": &whole, "merged": &a} {
			got := acc.Summary("simulation", 123.4)
			if got.Requests != want.Requests || !closeThroughput(got.Throughput, want.Throughput) {
				t.Errorf("n=%d %s: requests %+v throughput %+v, Summarize %+v %+v", n, name, got.Requests, got.Throughput, want.Requests, want.Throughput)
			}
			for _, x := range []struct {
				what      string
				got, want Stat
			}{{"think", got.Tokens.Think, want.Tokens.Think}, {"answer", got.Tokens.Answer, want.Tokens.Answer}, {"total", got.Tokens.Total, want.Tokens.Total}} {
				if !sameStat(x.got, x.want, 0) {
					t.Errorf("n=%d %s tokens %s: %+v, Summarize %+v", n, name, x.what, x.got, x.want)
				}
			}
			for _, x := range []struct {
				what      string
				got, want Stat
			}{
				{"ttft", got.LatencyS.TTFT, want.LatencyS.TTFT}, {"ttfa", got.LatencyS.TTFA, want.LatencyS.TTFA},
				{"tpot", got.LatencyS.TPOT, want.LatencyS.TPOT}, {"e2e", got.LatencyS.E2E, want.LatencyS.E2E},
				{"queue", got.LatencyS.Queue, want.LatencyS.Queue}, {"ttft engine", got.LatencyS.TTFTEngine, want.LatencyS.TTFTEngine},
			} {
				if !sameStat(x.got, x.want, SketchRelativeError) {
					t.Errorf("n=%d %s latency %s: %+v, Summarize %+v", n, name, x.what, x.got, x.want)
				}
			}
		}
	}
}

func closeThroughput(a, b Throughput) bool {
	return close(a.RequestsPerS, b.RequestsPerS, 1e-12) && close(a.OutputTokensPerS, b.OutputTokensPerS, 1e-12) &&
		close(a.ThinkTokensPerS, b.ThinkTokensPerS, 1e-12) && close(a.PromptTokensPerS, b.PromptTokensPerS, 1e-12)
}

// sameStat: the mean to rounding, each quantile within rel of the exact one.
func sameStat(got, want Stat, rel float64) bool {
	if got.NoData || want.NoData {
		return got.NoData == want.NoData
	}
	return close(got.Mean, want.Mean, 1e-12) && close(got.P50, want.P50, rel) && close(got.P90, want.P90, rel) && close(got.P99, want.P99, rel)
}

func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Abs(b)+1e-15
}

// BenchmarkAccumulatorAdd: the cost a finished request adds to a run.
func BenchmarkAccumulatorAdd(b *testing.B) {
	results := randomResults(rand.New(rand.NewPCG(3, 4)), 10_000)
	var a Accumulator
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		a.Add(&results[i%len(results)])
	}
}
