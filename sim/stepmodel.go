package sim

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/thinkcap/thinkcap/profiles"
)

// Batch is one engine step's work, as the step-time model needs it. The
// engine fills it while scheduling (vllm/v1/core/sched/scheduler.py
// SchedulerOutput: num_scheduled_tokens per request).
type Batch struct {
	NumReqs       int   // requests scheduled this step
	PrefillTokens int   // tokens of prefill chunks (incl. recompute after preemption)
	DecodeTokens  int   // decode tokens scheduled: 1 + K per decoding request with K drafts
	DecodeReqs    int   // decoding requests
	ContextTokens int64 // Σ over scheduled requests of tokens already in the KV cache that attention reads (full-attention layers)
	// PrefillAttnPairs is Σ over prefill chunks of causal query-key pairs:
	// c*s + c*(c+1)/2 for a chunk of c tokens starting at s.
	PrefillAttnPairs int64
	DraftTokens      int // Σ K over decoding requests (speculative decoding)
	// TPOTShare is Σ 1/(output − 1) over the decoding requests: how much
	// of the step each one's time per output token takes, which makes
	// Σ over steps of step time × TPOTShare / requests the mean TPOT a
	// client computes, (last token − first) / (output − 1) per request
	// (calibration's gradient of it, fidelity/trace.go). Not priced.
	TPOTShare float64
	// AwaitingFirst is the requests that wait the step out for their first
	// token: prefilling, or left waiting, without a token yet (a request
	// preempted after its first token does not add to its TTFT by waiting
	// again). Calibration weighs TTFT's sensitivity by it. Not priced.
	AwaitingFirst int
}

// StepModel prices an engine step on one GPU's shard (tensor parallelism
// splits weights, heads and FLOPs evenly) as the kernels run it, one class
// after another, each class its own roofline:
//
//	gpu  = dense + experts + attention + activations + all-reduce + kernel floors + launches + drafting
//	cpu  = StepOverheadMs + PerRequestOverheadUs × NumReqs
//	step = max(gpu, cpu) with async scheduling, gpu + cpu without
//	dense      = max(dense weight bytes / (BW × WeightBandwidthEfficiency),
//	                 dense FLOPs / (peak × ComputeEfficiency))
//	experts    = groupedGEMM(expert bytes touched / (BW × ExpertBandwidthEfficiency),
//	                 expert FLOPs / (peak × ExpertComputeEfficiency))
//	             (the longer plus half the shorter: expertOverlapLoss)
//	             (the FP8Expert… pair for fp8 experts, other kernels; with
//	             expert parallelism the busiest rank's bytes and FLOPs: expertsEP)
//	attention  = max(KV bytes / (BW × KVBandwidthEfficiency) × (FP8KVReadPenalty with fp8 KV)
//	                 + KV bytes² × KVScatterUsPerGB2 (the working set's scattered pages),
//	                 attention FLOPs / (peak × AttentionComputeEfficiency))
//	             (the FP8 peak with an fp8 KV cache on Hopper and Blackwell,
//	             else BF16's: attentionPeak)
//	             (TritonAttentionComputeEfficiency for attention sinks before
//	             Hopper: attentionEfficiency)
//	activations = tokens × layers × ActivationIOPerLayer × hidden × 2 B / BW
//	kernel floors = PerLayerOverheadUs × layers + MoELayerOverheadUs × MoE layers
//	                + MLALayerOverheadUs × MLA layers + PerRequestGPUUs × NumReqs
//	launches   = kernels of every layer × EagerLaunchUs, in a step that no
//	             CUDA graph holds (--enforce-eager, or more tokens than the
//	             largest captured size: cudagraph.go)
//
// Summing per-class rooflines, rather than taking one roofline of the whole
// step, is what a mixed step does: its decode attention is bound by memory
// while its prefill GEMMs are bound by compute, and they do not overlap.
// The kernel floors are the fixed time of each layer's dozen small kernels
// (norms, rotary embedding, activation quantisation, the router and the
// token permutation of an MoE layer) that a small shard or a small batch
// cannot hide; the activation traffic is their bytes, which grow with the
// tokens. The coefficients are fitted per GPU generation on the fidelity
// corpus (profiles/data/step-fit.yaml, thinkcap calibrate --corpus).
//
// Dense weight bytes are the non-embedding layers outside the routed experts
// plus the LM head; MoE layers read only the experts the step's tokens route
// to: E × (1 − (1 − k/E)^tokens) per layer in expectation (uniform routing).
// KV bytes are
// ContextTokens × the full-attention layers' bytes per token, plus the
// sliding-window layers' bytes for min(ContextTokens, NumReqs × window)
// tokens (each request's context capped at the window, approximated on the
// batch's total), plus the new tokens' K and V written. Dense FLOPs are 2 ×
// the dense parameters × tokens, plus the LM head for the positions that get
// logits (every decode token, one per prefilling request); expert FLOPs are
// 2 × k experts' parameters × tokens. The peak is the FP8 (or FP4)
// tensor-core rate for fp8 (nvfp4) weights on GPUs that have it (mxfp4
// experts on Blackwell run W4A8 at the FP8 rate), else BF16 (weight-only
// kernels such as Marlin).
// Attention FLOPs are 2 × heads × (qk dim + v dim) per query-key pair and
// layer (MLA in its absorbed form: qk = kv_lora_rank + rope, v =
// kv_lora_rank): PrefillAttnPairs, plus ContextTokens × query tokens per
// request for decode. TP adds two ring all-reduces of tokens × hidden bf16
// values per layer over the one-way link bandwidth × InterconnectEfficiency
// (HostAllReduceEfficiency where NCCL stages them through host memory),
// each with AllReduceLatencyUs (HostAllReduceLatencyUs through the host,
// where NCCL's low-latency protocol may be the cheaper: allreduce.go).
//
// The CPU's part is the engine core's scheduling, input preparation and
// output processing. Without async scheduling the GPU waits for it every
// step (vllm/v1/engine/core.py step: schedule, execute_model,
// update_from_output in turn); with it (vllm/v1/core/sched/async_scheduler.py,
// the default from 0.14) the next step is scheduled while the GPU runs the
// current one, so the step lasts the longer of the two.
//
// Drafting (speculative decoding): ngram and suffix cost nothing on the GPU.
// eagle, eagle3 and mtp run K sequential passes of one decoder layer of the
// target's geometry plus the LM head on the decoding requests; draft_model
// runs K sequential decode passes of the draft model. Each pass is its own
// roofline (weights, its layers' KV of the decoding requests' context, its
// FLOPs) plus its all-reduces; the drafter also processes prefill tokens,
// which adds its FLOPs to the main pass.
type StepModel struct {
	fixedNs, perReqNs float64
	perReqGPUNs       float64 // the GPU's per scheduled request
	layerNs           float64 // PerLayerOverheadUs × layers: one pass's kernel floors
	async             bool    // the CPU's part overlaps the GPU's
	// eagerNs is the host's kernel launches of a pass without a CUDA
	// graph, which a step of more than graphTokens tokens runs
	// (cudagraph.go).
	eagerNs, graphTokens float64

	weightNsPerByte, kvNsPerByte float64
	// kvScatterNsPerByte2 is KVScatterUsPerGB2 in ns per byte²: a KV read
	// of W bytes takes W × (kvNsPerByte + W × kvScatterNsPerByte2).
	kvScatterNsPerByte2         float64
	expertNsPerByte             float64   // expert weights, through the MoE grouped GEMMs
	actNsPerToken               float64   // activation traffic of a token through every layer
	denseBytes                  float64   // weights read every step: non-expert layers + LM head
	expertBytes                 float64   // one expert in every MoE layer
	touched                     []float64 // expected distinct experts per layer, by token count (with EP: tp × the busiest rank's)
	epTokenSpread               float64   // with EP: the busiest rank's extra expert tokens over the mean, per √token
	kvFullBytes, kvSlidingBytes float64   // per context token
	window                      float64

	linearNsPerToken, lmHeadNsPerToken float64 // dense layers' FLOPs per token, the LM head's per logit
	expertNsPerToken                   float64 // the routed experts' FLOPs per token
	attnFullNsPerPair, attnSWNsPerPair float64
	ar                                 allReduce // every layer's all-reduces

	draftPasses                        float64
	draftLayerNs                       float64 // PerLayerOverheadUs × drafter layers, per pass
	draftBytes                         float64 // drafter weights read per pass (incl. LM head)
	draftExpertBytes                   float64 // MTP: one expert of its MoE layer
	draftKVBytes                       float64 // per context token, drafter layers
	draftNsPerToken, draftAttnNsPerCtx float64 // per pass
	draftPrefillNsPerToken             float64
	draftAR                            allReduce // per pass

	pp                          float64 // pipeline stages (pipeline.go)
	xferNsPerToken, xferFixedNs float64 // one stage-to-stage activation transfer
}

// NewStepModel builds the step model of a resolved Config; every
// coefficient comes from Config.Step (see profiles.StepCoefficients).
func NewStepModel(c *Config) (*StepModel, error) {
	if err := checkStepInputs(c); err != nil {
		return nil, err
	}
	m, g, k := &c.Model, &c.GPU, c.Step
	p := modelParams(m)
	geom := newKVGeometry(c)
	tp := float64(c.TensorParallelSize)
	h, vocab := float64(m.HiddenSize), float64(m.VocabSize)
	bw := g.MemoryBandwidthGBps * 1e9
	bf16 := g.BF16TFLOPS * 1e12
	linK, expK := linearKernel(c), expertKernel(c) // kernels.go
	linPeak := kernelPeak(linK.rate, g)
	bLin, bExp := dtypeBytes(linearDtype(c)), dtypeBytes(expertDtype(c))

	s := &StepModel{
		fixedNs:             k.StepOverheadMs * 1e6,
		perReqNs:            k.PerRequestOverheadUs * 1e3,
		perReqGPUNs:         k.PerRequestGPUUs * 1e3,
		layerNs:             (k.PerLayerOverheadUs*float64(m.Layers) + k.MoELayerOverheadUs*float64(p.moeLayers) + k.MLALayerOverheadUs*float64(mlaLayers(m))) * 1e3,
		async:               c.asyncScheduling(),
		eagerNs:             eagerLaunches(c) * k.EagerLaunchUs * 1e3,
		graphTokens:         float64(c.CUDAGraphMaxTokens()),
		weightNsPerByte:     1e9 / (bw * k.WeightBandwidthEfficiency),
		expertNsPerByte:     1e9 / (bw * k.WeightBandwidthEfficiency),
		kvNsPerByte:         1e9 / (bw * k.KVBandwidthEfficiency),
		kvScatterNsPerByte2: k.KVScatterUsPerGB2 * 1e3 / 1e18,
		denseBytes:          (p.dense*bLin + vocab*h*2) / tp,
		expertBytes:         float64(p.moeLayers) * p.expert * bExp / tp,
		kvFullBytes:         float64(geom.fullLayers * int(geom.layerBytes)),
		kvSlidingBytes:      float64(geom.slidingLayers * int(geom.layerBytes)),
		window:              float64(geom.window),
	}
	expertBW, expertEff := expertEfficiencies(c)
	if expertBW > 0 {
		s.expertNsPerByte = 1e9 / (bw * expertBW)
	}
	// Each layer's element-wise kernels move the token's hidden state
	// (bf16) ActivationIOPerLayer times, sharded by TP only where the
	// hidden state is (attention heads, MLP columns): taken as unsharded.
	// Priced at the datasheet bandwidth, so that ActivationIOPerLayer
	// counts passes at peak (what the element-wise kernels lose of it
	// included) and the term is one coefficient's: at the weights'
	// efficiency it was the product of two fitted ones, and the step time
	// no longer homogeneous of degree one in them (sim/stepparams.go).
	s.actNsPerToken = k.ActivationIOPerLayer * h * 2 * float64(m.Layers) * 1e9 / bw
	if kvDtypeBytes(c.KVCacheDtype) == 1 {
		s.kvNsPerByte *= k.FP8KVReadPenalty
	}
	switch {
	case m.IsMoE() && c.EnableExpertParallel && c.TensorParallelSize > 1:
		s.touched, s.epTokenSpread = expertsEP(m.NumExperts, m.ExpertsPerToken, c.TensorParallelSize, c.MaxNumBatchedTokens)
	case m.IsMoE():
		s.touched = expertsTouchedTable(m.NumExperts, m.ExpertsPerToken, c.MaxNumBatchedTokens)
	}
	linEff := k.ComputeEfficiency * linK.efficiency
	if c.BlockFP8Linear() && k.BlockFP8ComputeEfficiency > 0 {
		linEff = k.BlockFP8ComputeEfficiency
	}
	s.linearNsPerToken = 2 * p.dense / tp / (linPeak * linEff) * 1e9
	if expertEff <= 0 {
		expertEff = k.ComputeEfficiency
	}
	s.expertNsPerToken = 2 * float64(p.moeLayers*m.ExpertsPerToken) * p.expert / tp / (kernelPeak(expK.rate, g) * expertEff) * 1e9
	s.lmHeadNsPerToken = 2 * vocab * h / tp / (bf16 * k.ComputeEfficiency) * 1e9
	pair := attnFLOPsPerPair(m) / tp / (attentionPeak(c) * attentionEfficiency(c)) * 1e9
	s.attnFullNsPerPair = pair * float64(geom.fullLayers)
	s.attnSWNsPerPair = pair * float64(geom.slidingLayers)
	if c.TensorParallelSize > 1 {
		layer := layerAllReduce(c)
		s.ar = layer.scaled(float64(m.Layers), float64(m.Layers))
		s.draftAR = layer
	}
	s.setDrafter(c, p, geom, linPeak, pair)
	s.setPipeline(c)
	return s, nil
}

// attentionEfficiency is the MFU c's attention kernel reaches: the Triton
// backend's (triton_attention_compute_efficiency) for a model with
// attention sinks on a GPU before Hopper, which has no FlashAttention 3 to
// run them (vllm/v1/attention/backends/fa_utils.py
// flash_attn_supports_sinks; vllm/platforms/cuda.py then picks
// TRITON_ATTN), else attention_compute_efficiency.
func attentionEfficiency(c *Config) float64 {
	if c.TritonAttention() && c.Step.TritonAttentionComputeEfficiency > 0 {
		return c.Step.TritonAttentionComputeEfficiency
	}
	return c.Step.AttentionComputeEfficiency
}

// attentionPeak is the tensor-core peak (FLOP/s) c's attention runs its
// QKᵀ and PV products at: FP8 where the KV cache is fp8 and the backend
// takes a quantised query, BF16 otherwise. vLLM's attention layer
// quantises the query to FP8 when the KV cache is fp8 and the backend
// supports it (vllm/model_executor/layers/attention/attention.py
// query_quant, supports_quant_query_input): FlashAttention 3 on Hopper
// (vllm/v1/attention/backends/fa_utils.py
// flash_attn_supports_quant_query_input; "attention operations are also
// performed in the quantized (FP8) domain", docs/features/quantization/
// quantized_kvcache.md) and FlashInfer's TRT-LLM kernels on Blackwell.
// Triton attention (attention sinks before Hopper) and Ampere's
// FlashAttention 2 compute in BF16.
func attentionPeak(c *Config) float64 {
	g := &c.GPU
	if kvDtypeBytes(c.KVCacheDtype) == 1 && g.FP8TFLOPS > 0 && (g.Generation == "hopper" || g.Generation == "blackwell") {
		return g.FP8TFLOPS * 1e12
	}
	return g.BF16TFLOPS * 1e12
}

// TritonAttention reports whether vLLM serves c's attention with its
// Triton backend for want of FlashAttention 3 or 4: a model with attention
// sinks on a GPU before Hopper.
func (c *Config) TritonAttention() bool {
	g := c.GPU.Generation
	return c.Model.AttentionSinks && (g == "ampere" || g == "ada")
}

// setDrafter prices one drafting pass (see StepModel).
func (s *StepModel) setDrafter(c *Config, p paramSplit, geom kvGeometry, linPeak, pairNs float64) {
	sc := c.Speculative
	if sc == nil || sc.LookaheadSlots() == 0 {
		return // ngram, suffix: drafted on the CPU
	}
	m, k := &c.Model, c.Step
	tp := float64(c.TensorParallelSize)
	h, vocab, layers := float64(m.HiddenSize), float64(m.VocabSize), float64(m.Layers)
	lmHead := vocab * h
	flopNs := 2 / tp / (linPeak * k.ComputeEfficiency) * 1e9
	s.draftPasses = float64(sc.NumSpeculativeTokens)
	s.draftLayerNs = k.PerLayerOverheadUs * 1e3 // eagle, eagle3, mtp: one layer
	s.draftKVBytes = float64(int64(geom.draftLayers) * geom.draftLayerBytes)
	s.draftAttnNsPerCtx = pairNs * float64(geom.draftLayers)
	switch sc.Method {
	case SpecEagle, SpecEagle3:
		layer := p.activeNonEmbedding(m)/layers + 2*h*h
		if sc.Method == SpecEagle3 {
			layer += h * h
		}
		s.draftBytes = (layer + lmHead) * 2 / tp
		s.draftNsPerToken = (layer + lmHead) * flopNs
		s.draftPrefillNsPerToken = layer * flopNs
	case SpecMTP:
		layer := p.dense/layers + 2*h*h
		active := layer + float64(min(p.moeLayers, 1)*m.ExpertsPerToken)*p.expert
		s.draftBytes = (layer*dtypeBytes(linearDtype(c)) + lmHead*2) / tp
		s.draftExpertBytes = p.expert * dtypeBytes(expertDtype(c)) / tp
		if p.moeLayers == 0 {
			s.draftExpertBytes = 0
		}
		s.draftNsPerToken = (active + lmHead) * flopNs
		s.draftPrefillNsPerToken = active * flopNs
	case SpecDraftModel:
		d := c.DraftModel
		dc := &Config{Model: *d, TensorParallelSize: c.TensorParallelSize}
		dp := modelParams(d)
		dHead := float64(d.VocabSize * d.HiddenSize)
		// A draft model's MoE layers, if any, are charged k experts each, as
		// for one token (no expert-coverage model for the drafter).
		s.draftBytes = (dp.dense*dtypeBytes(linearDtype(dc)) + dHead*2 +
			float64(dp.moeLayers)*dp.expert*dtypeBytes(expertDtype(dc))*float64(d.ExpertsPerToken)) / tp
		dFlopNs := 2 / tp / (linearPeak(linearDtype(dc), &c.GPU) * k.ComputeEfficiency) * 1e9
		s.draftNsPerToken = (dp.activeNonEmbedding(d) + dHead) * dFlopNs
		s.draftPrefillNsPerToken = dp.activeNonEmbedding(d) * dFlopNs
		s.draftAttnNsPerCtx = attnFLOPsPerPair(d) / tp / (c.GPU.BF16TFLOPS * 1e12 * k.AttentionComputeEfficiency) * 1e9 * float64(d.Layers)
		s.draftAR = s.draftAR.scaled(float64(d.Layers), float64(d.Layers*d.HiddenSize)/h)
		s.draftLayerNs *= float64(d.Layers)
	}
}

// StepTime is the duration of one engine step in nanoseconds. It does a
// handful of float operations and table look-ups and does not allocate.
func (s *StepModel) StepTime(b *Batch) int64 { return int64(s.StepTimeNs(b)) }

// StepTimeNs is StepTime before rounding to whole nanoseconds: calibration
// differentiates it with steps far below a nanosecond.
func (s *StepModel) StepTimeNs(b *Batch) float64 {
	if b.PrefillTokens+b.DecodeTokens <= 0 {
		return 0
	}
	l := loadOf(b)
	if s.pp > 1 {
		return s.pipelineStepNs(l)
	}
	return s.overlap(s.passNs(l)+s.draftNs(l), s.fixedNs+s.perReqNs*l.reqs)
}

// overlap is a step of gpu and cpu nanoseconds: the longer of the two with
// async scheduling, their sum without.
func (s *StepModel) overlap(gpu, cpu float64) float64 {
	if s.async {
		return max(gpu, cpu)
	}
	return gpu + cpu
}

// stepLoad is a Batch's work as reals, so that a pipeline can split it
// into micro-batches (pipeline.go).
type stepLoad struct {
	tokens, reqs, ctx, decode, decodeReqs, prefill, pairs, logits float64
}

func loadOf(b *Batch) stepLoad {
	return stepLoad{
		tokens: float64(b.PrefillTokens + b.DecodeTokens), reqs: float64(max(b.NumReqs, 1)),
		ctx: float64(b.ContextTokens), decode: float64(b.DecodeTokens), decodeReqs: float64(b.DecodeReqs),
		prefill: float64(b.PrefillTokens), pairs: float64(b.PrefillAttnPairs),
		logits: float64(b.DecodeTokens + b.NumReqs - b.DecodeReqs),
	}
}

// passNs is the GPU time of one pass of the load through every layer (the
// roofline and the all-reduces), without the per-step overheads.
func (s *StepModel) passNs(l stepLoad) float64 {
	t, reqs, ctx := l.tokens, l.reqs, l.ctx
	swCtx := min(ctx, reqs*s.window)
	q := l.decode / reqs // decode query tokens per request
	prefill, pairs := l.prefill, l.pairs
	// Each class of kernels is its own roofline, run one after the other:
	// the dense linear layers (and the LM head), the experts' grouped
	// GEMMs, and attention.
	dense := max(s.denseBytes*s.weightNsPerByte,
		s.linearNsPerToken*t+s.draftPrefillNsPerToken*prefill+s.lmHeadNsPerToken*l.logits)
	experts := groupedGEMM(s.expertBytes*s.experts(int(math.Round(t)))*s.expertNsPerByte, s.expertNsPerToken*(t+s.epTokenSpread*math.Sqrt(t)))
	kvRead := s.kvFullBytes*(ctx+t) + s.kvSlidingBytes*(swCtx+t)
	attn := max(kvRead*(s.kvNsPerByte+kvRead*s.kvScatterNsPerByte2),
		s.attnFullNsPerPair*(pairs+ctx*q)+s.attnSWNsPerPair*(min(pairs, prefill*s.window)+swCtx*q))
	return dense + experts + attn + s.actNsPerToken*t + s.ar.ns(t) + s.layerNs + s.perReqGPUNs*reqs + s.launchNs(t)
}

// expertOverlapLoss is the fraction of the shorter of an MoE layer's
// weight reads and FLOPs that its grouped GEMMs do not hide under the
// longer. A grouped GEMM splits the step's tokens into a few per expert
// (MiniMax-M2's 256 experts at 256 decodes: 8 each), so each tile's weight
// load has little multiply to overlap it with, and the kernel sits between
// the roofline's perfect overlap (0) and none (1). No kernel profile
// separates the two, so the value is the corpus's: refitted with 0, 0.25,
// 0.5 and 1, every in-sample error fell from 0 to 0.5 and 1 cost TTFT
// (the figures: docs/fidelity-log.md).
// A constant, not a fitted coefficient: the step time stays homogeneous of
// degree one in the fitted ones (sim/stepparams.go).
const expertOverlapLoss = 0.5

// groupedGEMM is the MoE layers' time from their weight-read time and
// their compute time: the longer, plus expertOverlapLoss of the shorter.
func groupedGEMM(mem, compute float64) float64 {
	return max(mem, compute) + expertOverlapLoss*min(mem, compute)
}

// draftNs is the drafter's passes over the decoding requests (0 without a
// GPU drafter).
func (s *StepModel) draftNs(l stepLoad) float64 {
	if s.draftPasses <= 0 || l.decodeReqs <= 0 {
		return 0
	}
	n := l.decodeReqs
	dctx := l.ctx * n / l.reqs // the decoding requests' share of the context
	dmem := s.draftBytes*s.weightNsPerByte + s.draftExpertBytes*s.experts(int(n))*s.expertNsPerByte + s.draftKVBytes*dctx*s.kvNsPerByte
	dcomp := s.draftNsPerToken*n + s.draftAttnNsPerCtx*dctx
	return s.draftPasses * (max(dmem, dcomp) + s.draftAR.ns(n) + s.draftLayerNs)
}

// experts is the expected number of distinct experts n tokens route to in
// one MoE layer (0 for dense models).
func (s *StepModel) experts(n int) float64 {
	if len(s.touched) == 0 {
		return 0
	}
	return s.touched[min(n, len(s.touched)-1)]
}

// expertsTouchedTable tabulates E × (1 − (1 − k/E)^n) for n = 0..maxTokens,
// so StepTime needs no math.Pow.
func expertsTouchedTable(e, k, maxTokens int) []float64 {
	return touchTable(e, k, maxTokens, func(q float64) float64 { return float64(e) * q })
}

// touchTable tabulates f(q) for n = 0..maxTokens tokens, q = 1 − (1 − k/E)^n
// the chance that n tokens touch a given expert, stopping once q is
// within 1e-9/E of 1 (a step of more tokens looks the table's last entry up).
func touchTable(e, k, maxTokens int, f func(q float64) float64) []float64 {
	miss := 1 - float64(k)/float64(e)
	table := []float64{0}
	for n, p := 1, 1.0; n <= max(maxTokens, 1); n++ {
		p *= miss
		table = append(table, f(1-p))
		if float64(e)*p < 1e-9 {
			break
		}
	}
	return table
}

// expertsEP is expert parallelism's load on its busiest rank
// (--enable-expert-parallel with TP: vllm/model_executor/layers/fused_moe/
// layer.py places E/ep whole experts on each of ep = tp ranks, and the
// layer's all-reduce waits for the slowest). Under uniform routing each of
// a rank's n = E/ep experts is touched by a step of T tokens with
// probability q = 1 − (1 − k/E)^T; the busiest of ep ranks touches about
// nq + z·√(nq(1 − q)) of them, z the expected largest of ep standard
// normals. The table is ep times that (the unit touched counts are priced
// in: one expert's bytes over tp), so a small batch pays its imbalance and
// a large one, every expert touched everywhere, none. Likewise the busiest
// rank computes Tk/ep + z·√(Tk(1/ep)(1 − 1/ep)) token-expert products:
// spread is the extra, over the mean, per √T in units of T.
func expertsEP(e, k, ep, maxTokens int) (table []float64, spread float64) {
	z := expectedMaxNormal(ep)
	n := float64(e) / float64(ep)
	table = touchTable(e, k, maxTokens, func(q float64) float64 {
		return float64(ep) * min(n, n*q+z*math.Sqrt(n*q*(1-q)))
	})
	// Tk/ep + z√(Tk(ep−1))/ep, in units of the mean per token (k/ep).
	spread = z * math.Sqrt(float64(ep-1)/float64(k))
	return table, spread
}

// expectedMaxNormal is E[max of n independent standard normals], by the
// trapezoid rule on n·x·φ(x)·Φ(x)^(n−1) (0.564 for 2, 1.029 for 4, 1.424
// for 8). Each n is integrated once: every step model of an EP deployment
// asks (a fit builds one per parameter for each of thousands of replays,
// and the 4,000-point integral was 8% of `thinkcap fidelity`'s time).
func expectedMaxNormal(n int) float64 {
	if n < 2 {
		return 0
	}
	if z, ok := maxNormals.Load(n); ok {
		return z.(float64)
	}
	z := integrateMaxNormal(n)
	maxNormals.Store(n, z)
	return z
}

// maxNormals keeps expectedMaxNormal's integrals by n.
var maxNormals sync.Map // int → float64

func integrateMaxNormal(n int) float64 {
	const lo, hi, steps = -10.0, 10.0, 4000
	h := (hi - lo) / steps
	sum := 0.0
	for i := 0; i <= steps; i++ {
		x := lo + float64(i)*h
		phi := math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
		cdf := 0.5 * math.Erfc(-x/math.Sqrt2)
		f := float64(n) * x * phi * math.Pow(cdf, float64(n-1))
		if i == 0 || i == steps {
			f /= 2
		}
		sum += f
	}
	return sum * h
}

// attnFLOPsPerPair is the attention FLOPs of one query-key pair in one
// layer over all heads: QKᵀ and PV, 2 FLOPs per multiply-add.
func attnFLOPsPerPair(m *profiles.Model) float64 {
	if m.IsMLA() {
		return 2 * float64(m.NumHeads) * float64(2*m.KVLoraRank+m.QKRopeHeadDim)
	}
	return 4 * float64(m.NumHeads*m.HeadDim)
}

// expertEfficiencies are the bandwidth and compute efficiencies of c's
// routed experts' grouped GEMMs: block-scaled FP8 and INT4 weight-only
// experts run other kernels than native 4-bit and bf16 ones, with their
// own coefficients where the profile has them (0: the expert ones).
func expertEfficiencies(c *Config) (bw, compute float64) {
	k := &c.Step
	bw, compute = k.ExpertBandwidthEfficiency, k.ExpertComputeEfficiency
	own := func(b, e float64) {
		if b > 0 {
			bw = b
		}
		if e > 0 {
			compute = e
		}
	}
	switch expertDtype(c) {
	case "fp8":
		own(k.FP8ExpertBandwidthEfficiency, k.FP8ExpertComputeEfficiency)
	case "int4":
		own(k.INT4ExpertBandwidthEfficiency, k.INT4ExpertComputeEfficiency)
	}
	return bw, compute
}

// BlockFP8Linear reports whether c's linear layers outside the routed
// experts are block-scaled FP8: the model's own FP8 checkpoint or the FP8
// alias --quantization fp8 names, when the profile says it scales per
// block (an NVFP4 checkpoint keeps them in bf16).
func (c *Config) BlockFP8Linear() bool {
	return c.Model.FP8BlockScaled && linearDtype(c) == "fp8"
}

// mlaLayers is how many of m's layers are multi-head latent attention.
func mlaLayers(m *profiles.Model) int {
	if m.IsMLA() {
		return m.Layers
	}
	return 0
}

// ExpertDtype is the routed experts' weight format ("" for a dense model).
func (c *Config) ExpertDtype() string {
	if !c.Model.IsMoE() {
		return ""
	}
	return expertDtype(c)
}

// linearPeak is the tensor-core peak (FLOP/s) the linear layers run at: FP8
// for fp8 weights (W8A8) and FP4 for nvfp4 (W4A4) where the GPU has those
// units, else BF16 (weight-only kernels such as Marlin, and mxfp4's
// bf16-activation MoE kernels).
func linearPeak(dtype string, g *profiles.GPU) float64 {
	switch {
	case dtype == "nvfp4" && g.FP4TFLOPS > 0:
		return g.FP4TFLOPS * 1e12
	case (dtype == "fp8" || dtype == "nvfp4") && g.FP8TFLOPS > 0:
		return g.FP8TFLOPS * 1e12
	case dtype == "mxfp4" && g.FP4TFLOPS > 0 && g.FP8TFLOPS > 0:
		// Blackwell's MXFP4 MoE kernels quantise activations to MXFP8
		// (FlashInfer's TRT-LLM MoE, vLLM's VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8).
		return g.FP8TFLOPS * 1e12
	}
	return g.BF16TFLOPS * 1e12
}

// checkStepInputs reports every GPU figure or step coefficient the model
// needs that is missing or out of range.
func checkStepInputs(c *Config) error {
	g, k := &c.GPU, c.Step
	if c.TensorParallelSize <= 0 || c.MaxNumBatchedTokens <= 0 {
		return errors.New("step model: config is not resolved (call Resolve first)")
	}
	var errs []error
	if g.MemoryBandwidthGBps <= 0 || g.BF16TFLOPS <= 0 {
		errs = append(errs, fmt.Errorf("step model: gpu %q needs memory_bandwidth_gbps and bf16_tflops", g.Name))
	}
	if c.TensorParallelSize > 1 && g.InterconnectGBps <= 0 {
		errs = append(errs, fmt.Errorf("step model: --tensor-parallel-size %d needs gpu %q's interconnect_gbps", c.TensorParallelSize, g.Name))
	}
	if c.SpansNodes() && g.NetworkGBps <= 0 {
		errs = append(errs, fmt.Errorf("step model: %d GPUs a replica (TP %d × PP %d) span servers of %d %s GPUs, which needs gpu %q's network_gbps (its network card's bandwidth a GPU)",
			c.GPUsPerReplica(), c.TensorParallelSize, c.pipelineSize(), g.GPUsPerNode, g.Name, g.Name))
	}
	if c.pipelineSize() > 1 && g.InterconnectGBps <= 0 {
		errs = append(errs, fmt.Errorf("step model: --pipeline-parallel-size %d needs gpu %q's interconnect_gbps", c.PipelineParallelSize, g.Name))
	}
	coef := func(name string, v float64, ok bool, want string) {
		if !ok {
			errs = append(errs, fmt.Errorf("step model: %s %v must be %s (gpu %q's step block or a --step-model file)", name, v, want, g.Name))
		}
	}
	unit := func(v float64) bool { return v > 0 && v <= 1 }
	coef("weight_bandwidth_efficiency", k.WeightBandwidthEfficiency, unit(k.WeightBandwidthEfficiency), "in (0, 1]")
	coef("kv_bandwidth_efficiency", k.KVBandwidthEfficiency, unit(k.KVBandwidthEfficiency), "in (0, 1]")
	coef("compute_efficiency", k.ComputeEfficiency, unit(k.ComputeEfficiency), "in (0, 1]")
	coef("attention_compute_efficiency", k.AttentionComputeEfficiency, unit(k.AttentionComputeEfficiency), "in (0, 1]")
	if c.TensorParallelSize > 1 || c.pipelineSize() > 1 {
		coef("interconnect_efficiency", k.InterconnectEfficiency, unit(k.InterconnectEfficiency), "in (0, 1]")
	}
	if kvDtypeBytes(c.KVCacheDtype) == 1 {
		coef("fp8_kv_read_penalty", k.FP8KVReadPenalty, k.FP8KVReadPenalty > 0, "> 0 with an fp8 KV cache")
	}
	coef("step_overhead_ms", k.StepOverheadMs, k.StepOverheadMs >= 0, ">= 0")
	coef("per_request_overhead_us", k.PerRequestOverheadUs, k.PerRequestOverheadUs >= 0, ">= 0")
	coef("all_reduce_latency_us", k.AllReduceLatencyUs, k.AllReduceLatencyUs >= 0, ">= 0")
	coef("per_layer_overhead_us", k.PerLayerOverheadUs, k.PerLayerOverheadUs >= 0, ">= 0")
	return errors.Join(errs...)
}
