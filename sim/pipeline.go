package sim

import (
	"fmt"
	"math"
)

// This file is pipeline parallelism (--pipeline-parallel-size): the layers
// split over PP stages of TP GPUs each, in capacity and in the step time.

// resolvePipeline defaults --pipeline-parallel-size to 1 and checks it
// against vLLM's bounds: at least one stage, and no stage without a layer
// (vllm/distributed/utils.py get_pp_indices gives each stage
// num_layers // pp layers). Speculative decoding with PP is thinkcap's
// limit, not vLLM's: the drafter's place in the pipeline is not modelled.
func (c *Config) resolvePipeline(errs *[]error) {
	if c.PipelineParallelSize == 0 {
		c.PipelineParallelSize = 1
	}
	pp := c.PipelineParallelSize
	if err := CheckFlag("pipeline-parallel-size", float64(pp)); err != nil {
		*errs = append(*errs, err)
		return
	}
	if m := &c.Model; m.Layers > 0 && pp > m.Layers {
		*errs = append(*errs, fmt.Errorf("--pipeline-parallel-size %d exceeds the %d layers of %s", pp, m.Layers, m.Name))
	}
	if pp > 1 && c.Speculative != nil {
		*errs = append(*errs, fmt.Errorf("--pipeline-parallel-size %d with --speculative-config is not modelled by thinkcap", pp))
	}
}

// pipelineSize is the number of stages, 1 when unset.
func (c *Config) pipelineSize() int { return max(c.PipelineParallelSize, 1) }

// GPUsPerReplica is the GPUs one replica occupies: TP × PP
// (vllm/config/parallel.py world_size).
func (c *Config) GPUsPerReplica() int { return max(c.TensorParallelSize, 1) * c.pipelineSize() }

// maxConcurrentBatches is how many batches vLLM's engine keeps in flight:
// the PP size with pipeline parallelism (vllm/v1/executor/abstract.py
// max_concurrent_batches, vllm/v1/engine/core.py step_with_batch_queue),
// else 2 with async scheduling, 1 without.
func (c *Config) maxConcurrentBatches(async bool) int {
	switch {
	case c.pipelineSize() > 1:
		return c.pipelineSize()
	case async:
		return 2
	}
	return 1
}

// asyncScheduling reports whether the engine overlaps scheduling with the
// GPU's step: --async-scheduling when given, else the release's default
// (on from 0.14, vllm PR #27614), which vLLM turns off with pipeline
// parallelism and with ngram or suffix drafting (vllm/config/vllm.py; the
// 0.14 release notes: "Excludes ... pipeline parallel, ... non-MTP/Eagle
// spec decoding").
func (c *Config) asyncScheduling() bool {
	if c.AsyncScheduling != nil {
		return *c.AsyncScheduling
	}
	s := c.Speculative
	return c.memory().asyncScheduling && c.pipelineSize() == 1 &&
		(s == nil || (s.Method != SpecNgram && s.Method != SpecSuffix))
}

// stageLayers splits n layers over pp stages as vLLM's get_pp_indices does
// without VLLM_PP_LAYER_PARTITION: n // pp each, and the remainder one each
// to the stages before the last (the last holds the LM head).
func stageLayers(n, pp int) []int {
	out := make([]int, pp)
	for i := range out {
		out[i] = n / pp
	}
	for i := 2; i < n%pp+2; i++ {
		out[pp-i]++
	}
	return out
}

// pipelineCapacity refines a replica's capacity for PP > 1. Every stage is
// a worker of its own: it holds its layers' weights (plus the input
// embedding on the first stage and the LM head on the last: with tied
// embeddings the last stage loads its own copy, vllm/model_executor/models/
// qwen2.py), profiles its own activation peak (the dummy sampler runs on the
// last stage only, gpu_model_runner.py profile_run) and sizes its KV cache
// for its layers only. vLLM's engine then takes the smallest block count
// over the workers (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs:
// "Change the num_blocks of each rank to the smallest among all ranks"), so
// the replica's pool is the poorest stage's. cp comes in as if one worker
// held every layer; it leaves with that stage's memory terms. CUDA-graph and
// non-torch memory are taken as at one stage of the same TP.
func pipelineCapacity(c *Config, p paramSplit, pool kvPoolShape, cp *Capacity, total float64) error {
	pp, layers := c.pipelineSize(), c.Model.Layers
	tp := float64(c.TensorParallelSize)
	vocab := (p.embed + p.lmHead) * 2 / tp // bf16, vocab-parallel
	body := float64(cp.WeightBytesPerGPU) - vocab
	embed, head := p.embed*2/tp, p.embed*2/tp // the last stage's head is vocab × hidden, tied or not
	forwardOnly := *c
	forwardOnly.MaxNumSeqs = 0 // no sampler rows: the forward pass's peak alone
	fwd := int64(activationPeakBytes(&forwardOnly, p))
	best := -1
	var bestCap Capacity
	for i, n := range stageLayers(layers, pp) {
		s := *cp
		w := body * float64(n) / float64(layers)
		if i == 0 {
			w += embed
		}
		if i == pp-1 {
			w += head
		} else {
			s.ActivationBytes = fwd
		}
		s.WeightBytesPerGPU = int64(w)
		if c.KVCacheMemoryBytes <= 0 { // the one-worker budget, less what this stage does not hold
			s.AvailableKVBytes += cp.WeightBytesPerGPU - s.WeightBytesPerGPU + cp.ActivationBytes - s.ActivationBytes
		}
		sp := stagePool(pool, n, layers)
		if c.NumGPUBlocksOverride <= 0 {
			if err := s.checkMemory(c, sp, total); err != nil {
				return fmt.Errorf("pipeline stage %d of %d (%d layers): %w", i, pp, n, err)
			}
		}
		blocks := int(s.AvailableKVBytes / sp.blockBytes)
		s.KVBytesPerToken = sp.geom.fullTokenBytes()
		if best < 0 || blocks < best {
			best, bestCap = blocks, s
		}
	}
	*cp = bestCap
	cp.NumGPUBlocks = best
	return nil
}

// stagePool is the block pool's shape on a stage of n of the model's
// layers: a block id costs the page of each of its layers, so its bytes
// (and a request's need) scale by n / layers, exactly for one attention
// type; for full plus sliding-window layers the stage is taken to hold both
// types in the model's proportion (the profile does not say which layer is
// which), rounded up.
func stagePool(pool kvPoolShape, n, layers int) kvPoolShape {
	s := pool
	f := float64(n) / float64(layers)
	s.blockBytes = int64(math.Ceil(float64(pool.blockBytes) * f))
	g := &s.geom
	if g.slidingLayers == 0 {
		g.fullLayers = n
		s.blockBytes = int64(pool.layout.BlockSize) * g.fullTokenBytes()
		return s
	}
	g.slidingLayers = int(math.Round(float64(g.slidingLayers) * f))
	g.fullLayers = n - g.slidingLayers
	return s
}

// setPipeline prices the stage-to-stage transfer: between stages vLLM sends
// the hidden states and the residual of every token in the micro-batch
// (IntermediateTensors, vllm/v1/worker/gpu_model_runner.py), bf16, over one
// one-way link of the GPU's interconnect (its network card's where the
// replica spans servers: nodes.go), with AllReduceLatencyUs as the
// transfer's latency.
func (s *StepModel) setPipeline(c *Config) {
	s.pp = float64(c.pipelineSize())
	if s.pp <= 1 {
		return
	}
	k := c.Step
	oneWay, extraUs := c.stageLink()
	s.xferNsPerToken = 2 * float64(c.Model.HiddenSize) * 2 / oneWay * 1e9
	s.xferFixedNs = (k.AllReduceLatencyUs + extraUs) * 1e3
}

// pipelineStepNs is one engine step with PP stages: the time in which every
// scheduled request advances by its tokens. vLLM's engine keeps up to PP
// batches in flight (vllm/v1/engine/core.py step_with_batch_queue, with
// max_concurrent_batches = PP from vllm/v1/executor/abstract.py), each
// scheduled from requests not already in flight; thinkcap keeps its one
// batch per step and splits it into m = min(PP, requests) micro-batches.
// A request stays in one micro-batch, so the prefill chunks spread over at
// most as many micro-batches as there are prefilling requests, and the
// heaviest micro-batch carries prefill / min(m, prefilling requests) prompt
// tokens beside its 1/m of the decodes. A micro-batch passes every stage in
// turn (a stage holds 1/PP of the layers, so the stages' times sum to one
// pass of the whole model on it) with PP − 1 activation transfers; the m
// micro-batches overlap in the pipeline, so the step lasts the heaviest
// micro-batch's trip: at one request that is the sum of the stages (the
// bubbles: every stage but one idles), and with m = PP even micro-batches
// each stage is busy all the time and the replica delivers one micro-batch
// per stage time. The CPU's per-step overhead is charged once per step
// (scheduling the micro-batches overlaps the GPUs' work). Simplified: all
// micro-batches' tokens land at the step's end, the stages are even (the
// LM head's share on the last stage is spread), the context is split
// evenly, and the stages' link is the GPU's interconnect.
func (s *StepModel) pipelineStepNs(l stepLoad) float64 {
	m := max(min(s.pp, math.Floor(l.reqs)), 1)
	prefillReqs := max(l.reqs-l.decodeReqs, 0)
	pm := max(min(m, prefillReqs), 1) // micro-batches the prefill chunks spread over
	mb := stepLoad{
		prefill: l.prefill / pm, pairs: l.pairs / pm,
		decode: l.decode / m, decodeReqs: l.decodeReqs / m,
		reqs: max(prefillReqs/pm+l.decodeReqs/m, 1), ctx: l.ctx / m,
		logits: (l.logits-l.decode)/pm + l.decode/m,
	}
	mb.tokens = mb.prefill + mb.decode
	trip := s.passNs(mb) + s.draftNs(mb) + (s.pp-1)*(s.xferFixedNs+s.xferNsPerToken*mb.tokens)
	return s.overlap(trip, s.fixedNs+s.perReqNs*l.reqs)
}
