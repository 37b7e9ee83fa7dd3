package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/workload"
)

// TestAPIJobsOrder: requests leave the API server in the order they are
// done, whatever the order they entered or were cancelled.
func TestAPIJobsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var h apiJobs
	var want []float64
	for i := range 500 {
		done := float64(r.Int64N(1000))
		h.push(apiJob{done: done, s: &seq{idx: i}})
		want = append(want, done)
		if i%7 == 0 {
			x := h.remove(r.IntN(len(h)))
			for j, w := range want {
				if w == x.done {
					want = append(want[:j], want[j+1:]...)
					break
				}
			}
		}
	}
	sort.Float64s(want)
	for i, w := range want {
		if got := h.remove(0).done; got != w {
			t.Fatalf("departure %d done at %g, want %g", i, got, w)
		}
	}
	if len(h) != 0 {
		t.Fatalf("%d left in the heap", len(h))
	}
}

// drain runs an API server until it is empty and returns each request's
// departure time by its index.
func drain(a *apiServer, n int) []int64 {
	out := make([]int64, n)
	for len(a.jobs) > 0 {
		t := a.next()
		out[a.take(0, t).s.idx] = t
	}
	return out
}

// TestAPIServerSharesItsProcess: a burst of requests on one process
// leaves as processor sharing has it: the k-th smallest work w(k) leaves at
// w(1) + … + w(k−1) + (n − k + 1) × w(k); on as many processes as
// requests each leaves after its own work; requests arriving while the
// server is busy end its busy period at the sum of all the work.
func TestAPIServerSharesItsProcess(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 50 {
		n := 1 + r.IntN(40)
		work := make([]float64, n)
		for i := range work {
			work[i] = float64(1e5 + r.Int64N(1e8))
		}
		// A burst on one process.
		a := apiServer{processes: 1}
		for i, w := range work {
			a.add(apiJob{s: &seq{idx: i}}, w, 0)
		}
		got := drain(&a, n)
		sorted := slices.Clone(work)
		sort.Float64s(sorted)
		before := 0.0
		for k, w := range sorted {
			want := before + float64(n-k)*w
			before += w
			i := slices.Index(work, w)
			if math.Abs(float64(got[i])-want) > float64(n)+1 {
				t.Fatalf("trial %d: request of work %g left at %d, want %.0f", trial, w, got[i], want)
			}
		}
		// The same burst on n processes.
		a = apiServer{processes: float64(n)}
		for i, w := range work {
			a.add(apiJob{s: &seq{idx: i}}, w, 0)
		}
		for i, d := range drain(&a, n) {
			if math.Abs(float64(d)-work[i]) > 1 {
				t.Fatalf("trial %d: alone on a process, work %g left at %d", trial, work[i], d)
			}
		}
		// Staggered arrivals within the first request's work: the server
		// is never idle, so the last leaves when all the work is done.
		a = apiServer{processes: 1}
		total, at, last := 0.0, int64(0), int64(0)
		for i, w := range work {
			for a.next() <= at { // those done before this one arrives
				last = a.next()
				a.take(0, last)
			}
			a.add(apiJob{s: &seq{idx: i}}, w, at)
			total += w
			at += r.Int64N(int64(work[0]) / int64(n))
		}
		last = max(last, slices.Max(drain(&a, n)))
		if math.Abs(float64(last)-total) > float64(n)+1 {
			t.Fatalf("trial %d: busy period ends at %d, want the total work %.0f", trial, last, total)
		}
	}
}

// frontEndBurst is 300 requests of 1,000-token prompts given at once, and
// a deployment whose API server takes 20 ms a request, 10 µs a prompt
// token and 30 ms of work.
func frontEndBurst(t *testing.T) (Config, []workload.Request) {
	cfg := benchConfig(t)
	cfg.Step = cfg.GPU.Step
	cfg.Step.APIRequestOverheadMs, cfg.Step.APIPromptTokenUs, cfg.Step.APIServerCPUMs = 20, 10, 30
	reqs := make([]workload.Request, 300)
	for i := range reqs {
		reqs[i] = workload.Request{PromptTokens: 1000, AnswerTokens: 4}
	}
	return cfg, reqs
}

// TestABurstQueuesInTheAPIServer: a burst of requests waits for the whole
// burst's work on one API server process (GPUStack measured every TTFT of
// a 1,000-request burst of 128-token prompts to DeepSeek-R1 on vLLM 0.11
// near 19 s, far beyond the engine's time); with --api-server-count as
// large as the burst, each waits only for its own latency.
func TestABurstQueuesInTheAPIServer(t *testing.T) {
	cfg, reqs := frontEndBurst(t)
	front := func(processes int) (mean, last float64) {
		c := cfg
		c.APIServerCount = processes
		rep, err := Run(c, reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			d := r.TTFTS - r.TTFTEngineS
			mean += d / float64(len(rep.Results))
			last = max(last, d)
		}
		return mean, last
	}
	// 300 requests of 30 ms each on average: 9 s of work.
	if mean, last := front(1); math.Abs(last-9) > 0.5 || mean < 0.5*last {
		t.Errorf("one process: the last request leaves the API server after %.2f s (want ~9), mean %.2f s", last, mean)
	}
	if _, last := front(300); last > 0.045+1e-9 {
		t.Errorf("300 processes: a request spends up to %.3f s in the API server, want at most 1.5 × 30 ms", last)
	}
}

// TestAPIServerTime: the API server's time is in the client's TTFT and
// E2E, not in the engine's TTFT or the queue time; on average it is the
// profile's per request and per prompt token, and a request alone in the
// server does its work within that latency.
func TestAPIServerTime(t *testing.T) {
	cfg := benchConfig(t)
	cfg.Step = cfg.GPU.Step
	cfg.Step.APIRequestOverheadMs, cfg.Step.APIPromptTokenUs, cfg.Step.APIServerCPUMs = 20, 10, 5
	reqs := make([]workload.Request, 200)
	for i := range reqs {
		reqs[i] = workload.Request{ArrivalS: float64(i), PromptTokens: 1000, AnswerTokens: 20}
	}
	rep, err := Run(cfg, reqs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var api float64
	for _, r := range rep.Results {
		d := r.TTFTS - r.TTFTEngineS
		if d < 0.5*0.030-1e-9 || d > 1.5*0.030+1e-9 {
			t.Fatalf("request alone: API time %.4f s, want within [0.015, 0.045]", d)
		}
		if r.QueueS > r.TTFTEngineS {
			t.Fatalf("queue %.4f s longer than the engine's TTFT %.4f", r.QueueS, r.TTFTEngineS)
		}
		api += d / float64(len(rep.Results))
	}
	if math.Abs(api-0.030) > 0.003 {
		t.Errorf("mean API time %.4f s, want 0.030 (20 ms + 1,000 × 10 µs)", api)
	}
}

// TestLLMClassTokenisesInTurn: the LLM class (--entry-point llm) has no
// API server: a burst of prompts given at once pays none of its
// per-request latency or work, only the tokenizer's time, prompt after
// prompt, so the k-th request reaches the engine after k prompts'
// tokenisation and the last after the whole burst's; the API server's
// front end holds the same burst far longer.
func TestLLMClassTokenisesInTurn(t *testing.T) {
	cfg, reqs := frontEndBurst(t)
	front := func(entry string) []float64 {
		c := cfg
		c.EntryPoint = entry
		rep, err := Run(c, reqs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := make([]float64, len(rep.Results))
		for i, r := range rep.Results {
			d[i] = r.TTFTS - r.TTFTEngineS
		}
		return d
	}
	llm := front("llm")
	const tokenise = 1000 * 10e-6 // s a prompt
	for i, d := range llm {
		if want := float64(i+1) * tokenise; math.Abs(d-want) > 1e-6 {
			t.Fatalf("llm: request %d reaches the engine %.6f s after it was given, want %d prompts' tokenisation, %.6f s", i, d, i+1, want)
		}
	}
	api := front("api_server")
	if last := slices.Max(api); last < 2*slices.Max(llm) {
		t.Errorf("api_server: the burst's last request leaves the front end after %.2f s, want the API server's work (~9 s) well beyond the LLM class's %.2f s", last, slices.Max(llm))
	}
	c := cfg
	c.EntryPoint = "llm"
	if got := c.APIServerCPUMs(); got != 0 {
		t.Errorf("llm: %v ms of API-server work a request, want none", got)
	}
	if got, want := c.APIDelayS(1000), tokenise; math.Abs(got-want) > 1e-12 {
		t.Errorf("llm: front-end latency %v s for 1,000 tokens, want tokenisation alone, %v", got, want)
	}
}

// gpt-oss's chat is rendered by the Harmony library, every other model's
// by its Jinja template: each takes its own API-server work per request,
// and a profile without the Harmony figure falls back to the common one.
func TestHarmonyAPIServerWork(t *testing.T) {
	step := simtest.GPU(t, "h100-sxm").Step
	step.APIServerCPUMs, step.HarmonyAPIServerCPUMs = 9, 3
	gptOSS := Config{Model: simtest.Model(t, "gpt-oss-20b"), Step: step}
	qwen := Config{Model: simtest.Model(t, "qwen3-8b"), Step: step}
	if got := gptOSS.APIServerCPUMs(); got != 3 {
		t.Errorf("gpt-oss-20b: %v ms of API-server work; want the Harmony figure, 3", got)
	}
	if got := qwen.APIServerCPUMs(); got != 9 {
		t.Errorf("qwen3-8b: %v ms; want the Jinja figure, 9", got)
	}
	gptOSS.Step.HarmonyAPIServerCPUMs = 0
	if got := gptOSS.APIServerCPUMs(); got != 9 {
		t.Errorf("gpt-oss-20b without a Harmony figure: %v ms; want the common 9", got)
	}
}
