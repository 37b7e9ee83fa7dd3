package fidelity

import (
	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/sim"
)

// The API server's parameters, by their place in calibrate.Params: its
// latencies (a request's, a prompt token's) and its work per request, the
// Jinja chat template's or the Harmony renderer's.
var (
	apiRequest     = calibrate.Index("api_request_overhead_ms")
	apiPromptToken = calibrate.Index("api_prompt_token_us")
	apiWork        = calibrate.Index("api_server_cpu_ms")
	apiHarmonyWork = calibrate.Index("api_server_harmony_cpu_ms")
)

// apiUnits are the API parameters' derivatives of a latency in seconds:
// api_request_overhead_ms adds 1 ms a request, api_prompt_token_us 1 µs a
// prompt token.
const apiRequestS, apiPromptTokenS = 1e-3, 1e-6

// gradientReuse is how many decode-only steps in a row share one priced
// sensitivity: consecutive decode steps differ by a token of context a
// request, so their sensitivities differ by far less than the fit's
// tolerance, and pricing every step's was most of a replay's time. A step
// with prefill, a change of batch or the first of a run is priced anew.
const gradientReuse = 4

// trace replays r on cfg and returns the prediction with its gradient.
//
// The gradient is accumulated as the engine steps, from each step's
// sensitivity g (grad.Add) weighted by who waits the step out:
//
//	TPOT: Σ g × Σ 1/(output − 1) over the decoding requests / requests
//	      (Batch.TPOTShare): the mean of each request's (last token −
//	      first) / (output − 1), in which a short output's steps weigh more
//	      than a long one's, as `vllm bench serve` computes it (the bursts
//	      of a thousand requests, whose short outputs live in the slow
//	      steps of the prefill, are where the two differ);
//	ITL:  Σ g × decoding requests / Σ (output − 1) tokens: the decode time
//	      per token, for a source that gives the ITL and no TPOT;
//	TTFT: Σ g × requests awaiting their first token (Batch.AwaitingFirst:
//	      prefilling or waiting, a request preempted after its first token
//	      not among them) / requests: every step a request waits for its
//	      first token in, without the part of the step under way when it
//	      arrived;
//	duration: Σ g (the steps back to back while requests are in).
//
// The API server's latencies add to TTFT directly (1 ms a request, 1 µs a
// prompt token). Its work (api_server_cpu_ms) shows only where requests
// queue in it: a request whose time there is beyond any latency draw left
// when its shared work was done, and that time grows in proportion to
// everyone's work (a burst's processor sharing is homogeneous in it).
func trace(cfg sim.Config, r *Record) (*calibrate.Trace, error) {
	reqs, err := requests(r)
	if err != nil {
		return nil, err
	}
	cfg.Seed = 1
	cpu := cfg.APIServerCPUMs()
	grad, err := sim.NewStepGradient(cfg)
	if err != nil {
		return nil, err
	}
	K := len(calibrate.Params)
	nStep := calibrate.NStep
	g := make([]float64, K)
	tpot, itl, ttft, busy := make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	var last sim.Batch
	reused := gradientReuse
	rep, err := sim.Run(cfg, reqs, sim.Options{Concurrency: r.Concurrency, OnStep: func(_ int, _, _ int64, b *sim.Batch) {
		decodeOnly := b.PrefillTokens == 0 && b.NumReqs == last.NumReqs && b.DecodeTokens == last.DecodeTokens
		if !decodeOnly || reused >= gradientReuse {
			clear(g)
			grad.Add(b, 1, g[:nStep])
			reused = 0
		}
		reused++
		last = *b
		dec, wait := float64(b.DecodeReqs), float64(b.AwaitingFirst)
		for k := range nStep {
			tpot[k] += g[k] * b.TPOTShare
			itl[k] += g[k] * dec
			ttft[k] += g[k] * wait
			busy[k] += g[k]
		}
	}})
	if err != nil {
		return nil, err
	}
	t := &calibrate.Trace{Pred: summarise(rep), Grad: map[string][]float64{}}
	var decodeTok, prompt, queued float64
	n, multi := 0, 0
	for i := range rep.Results {
		res := &rep.Results[i]
		if res.Status != "ok" {
			continue
		}
		n++
		prompt += float64(res.PromptTokens)
		decodeTok += float64(max(res.OutputTokens()-1, 0))
		if res.OutputTokens() > 1 {
			multi++
		}
		if front := res.TTFTS - res.TTFTEngineS; cpu > 0 && front > 1.5*cfg.APIDelayS(res.PromptTokens) {
			queued += front / cpu
		}
	}
	switch {
	case n > 0 && cfg.LLMClass():
		// No API server: a request's own tokenisation. The wait for the
		// prompts ahead of it in the tokenizer is not: an offline burst
		// keeps the engine's queue full, which absorbs it (a later
		// arrival waits less there).
		ttft[apiPromptToken] += apiPromptTokenS * prompt
		t.Grad[MetricTTFT] = scaled(ttft, 1e3/float64(n))
	case n > 0:
		ttft[apiRequest] += apiRequestS * float64(n)
		ttft[apiPromptToken] += apiPromptTokenS * prompt
		// The work's parameter: the Harmony renderer's where it is the one in use.
		work := apiWork
		if cfg.HarmonyAPIWork() {
			work = apiHarmonyWork
		}
		ttft[work] += queued
		t.Grad[MetricTTFT] = scaled(ttft, 1e3/float64(n))
	}
	if decodeTok > 0 {
		t.Grad[MetricTPOT] = scaled(tpot, 1e3/float64(multi))
		t.Grad[calibrate.GradITL] = scaled(itl, 1e3/decodeTok)
	}
	if d := t.Pred.DurationS; d > 0 {
		if !cfg.LLMClass() {
			busy[apiRequest] += apiRequestS
		}
		t.Grad[MetricThroughput] = scaled(busy, -t.Pred.OutputThroughput/d)
	}
	return t, nil
}

func scaled(v []float64, f float64) []float64 {
	for i := range v {
		v[i] *= f
	}
	return v
}
