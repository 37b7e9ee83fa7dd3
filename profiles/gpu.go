package profiles

// GPU describes one accelerator as the capacity and step-time models need it.
// Memory is what the device reports to the framework (torch's total_memory),
// not the marketing figure: an "80 GB" H100 shows about 79.2 GiB.
type GPU struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Generation is the GPU architecture whose kernels it runs (ampere,
	// ada, hopper, blackwell, cdna3): the fidelity corpus fits step-time
	// coefficients per generation, and a GPU without measurements of its
	// own takes its generation's.
	Generation string `yaml:"generation"`
	// MemoryGiB is the device memory visible to vLLM, in GiB (2^30 bytes).
	MemoryGiB float64 `yaml:"memory_gib"`
	// MemoryBandwidthGBps is the peak HBM/GDDR bandwidth in GB/s (10^9 bytes/s).
	MemoryBandwidthGBps float64 `yaml:"memory_bandwidth_gbps"`
	// Dense tensor-core throughput in TFLOP/s (10^12), without 2:4 sparsity.
	BF16TFLOPS float64 `yaml:"bf16_tflops"`
	FP8TFLOPS  float64 `yaml:"fp8_tflops"` // 0 when the GPU has no FP8 tensor cores
	FP4TFLOPS  float64 `yaml:"fp4_tflops"` // 0 when the GPU has no FP4 tensor cores
	// InterconnectGBps is the per-GPU aggregate GPU-to-GPU bandwidth, both
	// directions together (NVLink 4: 900 GB/s, i.e. 450 GB/s each way).
	InterconnectGBps float64 `yaml:"interconnect_gbps"`
	// GPUsPerNode is how many of these GPUs one server's NVLink (or PCIe)
	// domain holds (an HGX board's 8, a quad-GH200 node's 4); 0: unknown,
	// every replica taken to fit one server. A replica of more GPUs spans
	// servers and its collectives cross NetworkGBps (sim/nodes.go).
	GPUsPerNode int `yaml:"gpus_per_node,omitempty"`
	// NetworkGBps is one GPU's share of its server's network (its
	// InfiniBand, RoCE or Slingshot card's line rate), one direction, in
	// GB/s: 400 Gb/s is 50.
	NetworkGBps float64 `yaml:"network_gbps,omitempty"`
	// AllReduceViaHost: the GPUs of a server cannot reach each other's
	// memory (no GPU peer-to-peer), so vLLM disables its custom all-reduce
	// ("your platform lacks GPU P2P capability", vllm/distributed/
	// device_communicators/custom_all_reduce.py) and NCCL stages every
	// all-reduce through host memory: the step model prices it with
	// host_all_reduce_efficiency instead of interconnect_efficiency.
	AllReduceViaHost bool `yaml:"all_reduce_via_host,omitempty"`
	// PricePerHour is the default on-demand price of one GPU-hour in USD.
	PricePerHour float64 `yaml:"price_per_hour"`
	// Step holds this GPU's default step-time coefficients; a --step-model
	// file overrides any of them.
	Step StepCoefficients `yaml:"step"`
	// StepPrior is the profile's own step block when a corpus fit replaced
	// it (Catalog's step fits), and StepSource says where Step came from.
	StepPrior  StepCoefficients `yaml:"-"`
	StepSource string           `yaml:"-"`
	// Measured is what the measurement corpus holds behind Step (nil: no
	// step fit governs it).
	Measured *Measured `yaml:"-"`
	// fitGoverned: the step fits set Step (an embedded GPU, or a user's
	// without a step block of its own).
	fitGoverned bool
}

// DefaultEagerLaunchUs is eager_launch_us where a profile gives none:
// vLLM's own measurement when it added CUDA graphs, Llama-2-7B at batch 1
// decoding 100 tokens in 1.2 s eager and 1.05 s replaying a graph of the
// forward pass (vllm-project/vllm PR 1440), is 1.5 ms a step over 32
// layers of ten kernels: 4.7 µs a launch, the few microseconds a CUDA
// launch takes on the host with PyTorch's dispatch in front of it.
const DefaultEagerLaunchUs = 4.7

// StepCoefficients are the named, documented knobs of the roofline step-time
// model. A zero field means "use the GPU profile's value" when merging a
// user's --step-model file over a profile (see Merge).
type StepCoefficients struct {
	// WeightBandwidthEfficiency is the fraction of peak memory bandwidth
	// reached when streaming weights in a decode step.
	// Range: 0.5 to 0.95 of the datasheet: a streaming read (a GEMV, a
	// memcpy) reaches 90-95% of HBM peak on Hopper and Blackwell, and a
	// decode that read its weights at under half of it would be bound by
	// something other than its bytes, which the other terms price.
	WeightBandwidthEfficiency float64 `yaml:"weight_bandwidth_efficiency" json:"weight_bandwidth_efficiency" coef:"efficiency,range=0.5:0.95"`
	// KVBandwidthEfficiency is the fraction of peak memory bandwidth reached by
	// the attention kernel when reading the KV cache.
	// Range: 0.3 to 0.95: a paged KV read streams blocks of 16 tokens or
	// more, at most a streaming read's 95%; below 0.3 the kernel would be
	// latency-bound, which per_request_gpu_us prices.
	KVBandwidthEfficiency float64 `yaml:"kv_bandwidth_efficiency" json:"kv_bandwidth_efficiency" coef:"efficiency,range=0.3:0.95"`
	// FP8KVReadPenalty multiplies the time to read fp8 KV bytes (dequantisation
	// costs the kernel some of the bandwidth it saves).
	FP8KVReadPenalty float64 `yaml:"fp8_kv_read_penalty" json:"fp8_kv_read_penalty" coef:"positive,fixed"`
	// KVScatterUsPerGB2 is the KV read's loss of streaming efficiency with
	// the batch's KV working set: microseconds per step per GB² of KV read,
	// so that a step reading W GB spends W × (1/(BW × efficiency) + W ×
	// this). Many requests' pages lie scattered over HBM, and the more of
	// them a step reads the fewer of its reads stay in an open DRAM row.
	// Range: 0 to 5: at 5, an 80 GB working set on a 3.35 TB/s GPU reads at
	// about half its small-batch efficiency, the least a paged decode kernel
	// reaches of a streaming read.
	KVScatterUsPerGB2 float64 `yaml:"kv_scatter_us_per_gb2,omitempty" json:"kv_scatter_us_per_gb2,omitempty" coef:"overhead,scale=1,range=0:5"`
	// ComputeEfficiency is the fraction of dense tensor-core peak reached by
	// the linear layers (GEMMs) in prefill-heavy steps (MFU).
	// Range: 0.2 to 0.85: cuBLAS and CUTLASS reach 70-85% of the dense peak
	// on large GEMMs; a prefill step's GEMMs have thousands of rows, and
	// below 20% a kernel is launch-bound, which the kernel floors price.
	ComputeEfficiency float64 `yaml:"compute_efficiency" json:"compute_efficiency" coef:"efficiency,range=0.2:0.85"`
	// AttentionComputeEfficiency is the MFU of the attention kernel's FLOPs:
	// of the BF16 peak, or of the FP8 peak where the KV cache is fp8 on
	// Hopper or Blackwell, whose attention backends then quantise the query
	// and multiply in FP8 (sim.attentionPeak).
	// Range: 0.15 to 0.8: FlashAttention 2 reaches at most 73% of an A100's
	// BF16 peak and FlashAttention 3 75% of an H100's (their papers' forward
	// passes), the best attention kernels there are.
	AttentionComputeEfficiency float64 `yaml:"attention_compute_efficiency" json:"attention_compute_efficiency" coef:"efficiency,range=0.15:0.8"`
	// TritonAttentionComputeEfficiency is the MFU of vLLM's Triton attention
	// kernel, which serves a model with attention sinks (Model.AttentionSinks)
	// on a GPU without FlashAttention 3 or 4 (before Hopper); 0 means
	// AttentionComputeEfficiency.
	// Range: 0.05 to 0.8, attention_compute_efficiency's ceiling; Triton's
	// kernel reaches a fraction of FlashAttention's, so its floor is lower.
	TritonAttentionComputeEfficiency float64 `yaml:"triton_attention_compute_efficiency,omitempty" json:"triton_attention_compute_efficiency,omitempty" coef:"efficiency,optional,range=0.05:0.8"`
	// BlockFP8ComputeEfficiency is ComputeEfficiency for block-scaled FP8
	// linear layers (128×128 weight scales, Model.FP8BlockScaled), whose
	// GEMMs apply a scale per block inside the main loop (CUTLASS's
	// blockwise kernels or vLLM's Triton w8a8_block_fp8_matmul,
	// vllm/model_executor/layers/quantization/utils/fp8_utils.py) where
	// per-tensor FP8 runs plain FP8 GEMMs; 0 means ComputeEfficiency.
	// Range: 0.1 to 0.85, compute_efficiency's ceiling (the per-block
	// scales cost a blockwise kernel some of the plain one's rate).
	BlockFP8ComputeEfficiency float64 `yaml:"block_fp8_compute_efficiency,omitempty" json:"block_fp8_compute_efficiency,omitempty" coef:"efficiency,optional,range=0.1:0.85"`
	// StepOverheadMs is the fixed cost of one engine step (launches, sampling,
	// scheduling) in milliseconds.
	// Range: 0.1 to 10 ms: a Python engine step (schedule, prepare inputs,
	// process outputs) costs at least 100 µs of interpreter, and over 10 ms
	// a step would be slower than vLLM's own concurrency-1 decodes.
	StepOverheadMs float64 `yaml:"step_overhead_ms" json:"step_overhead_ms" coef:"overhead,scale=1,range=0.1:10"`
	// PerRequestOverheadUs is the CPU cost per scheduled request per step, in
	// microseconds (input preparation, detokenisation, output processing).
	// Range: 5 to 300 µs: the engine's per-request Python (input ids,
	// block tables, detokenisation, the output's Python objects) costs at
	// least a few µs, and at 300 µs 256 requests would cost 77 ms a step,
	// far beyond any measured large-batch decode.
	PerRequestOverheadUs float64 `yaml:"per_request_overhead_us" json:"per_request_overhead_us" coef:"overhead,scale=20,range=5:300"`
	// PerRequestGPUUs is the GPU time per scheduled request per step, in
	// microseconds: the attention kernels' per-sequence work (page tables,
	// split-KV partial results and their reduction) and the sampler's per
	// row, which the bytes and FLOPs of a batch of many short sequences
	// leave out.
	// Range: 0 to 30 µs: a sequence's page-table walk and split-KV
	// reduction are a few thread blocks of work, never a kernel launch's.
	PerRequestGPUUs float64 `yaml:"per_request_gpu_us" json:"per_request_gpu_us" coef:"overhead,scale=5,range=0:30"`
	// InterconnectEfficiency is the fraction of the one-way link bandwidth an
	// all-reduce reaches.
	// Range: 0.1 to 0.9: NCCL's and vLLM's custom all-reduce reach at most
	// ~80-90% of NVLink's one-way rate (nccl-tests bus bandwidth); a decode
	// step's small all-reduces reach far less, but above a tenth.
	InterconnectEfficiency float64 `yaml:"interconnect_efficiency" json:"interconnect_efficiency" coef:"efficiency,range=0.1:0.9"`
	// HostAllReduceEfficiency is the same fraction for an all-reduce that
	// NCCL stages through host memory (GPU.AllReduceViaHost); 0 means
	// InterconnectEfficiency.
	// Range: 0.05 to 0.9 of the PCIe link, interconnect_efficiency's
	// ceiling; the copies through host memory halve the best case.
	HostAllReduceEfficiency float64 `yaml:"host_all_reduce_efficiency,omitempty" json:"host_all_reduce_efficiency,omitempty" coef:"efficiency,optional,range=0.05:0.9"`
	// NetworkEfficiency is the fraction of a GPU's network card line rate
	// (GPU.NetworkGBps) an all-reduce or a pipeline transfer between
	// servers reaches (NCCL over InfiniBand, RoCE or Slingshot); 0 means
	// InterconnectEfficiency.
	// Range: 0.1 to 1 of the card's line rate (NCCL over InfiniBand reaches
	// 90-97% of it in nccl-tests). The corpus sees it through two GH200
	// points alone (a replica over two quad-GH200 nodes), where the network
	// is a small part of the step: the fit sets it at its ceiling, which
	// says only that those points ask for no more network time.
	NetworkEfficiency float64 `yaml:"network_efficiency,omitempty" json:"network_efficiency,omitempty" coef:"efficiency,optional,range=0.1:1"`
	// AllReduceLatencyUs is the fixed latency of one tensor-parallel
	// all-reduce, in microseconds (two per layer per step).
	// Range: 3 to 60 µs: vLLM's one-shot custom all-reduce over NVLink takes
	// a few µs, NCCL's ring tens of µs on 8 GPUs.
	AllReduceLatencyUs float64 `yaml:"all_reduce_latency_us" json:"all_reduce_latency_us" coef:"overhead,scale=10,range=3:60"`
	// HostAllReduceLatencyUs is that latency for an all-reduce NCCL stages
	// through host memory (GPU.AllReduceViaHost): without GPU peer-to-peer
	// vLLM's custom all-reduce is off and NCCL's shared-memory transport
	// copies each chunk to the host and back, a path with its own fixed
	// cost; 0 means AllReduceLatencyUs.
	// Range: 3 to 200 µs: a round trip through host memory adds PCIe's
	// latency twice to each of a ring's steps.
	HostAllReduceLatencyUs float64 `yaml:"host_all_reduce_latency_us,omitempty" json:"host_all_reduce_latency_us,omitempty" coef:"overhead,scale=10,range=3:200"`
	// HostSmallAllReduceEfficiency and HostSmallAllReduceLatencyUs are
	// NCCL's other protocol through host memory: for every call NCCL picks
	// the protocol its cost model says is fastest (nccl src/graph/tuning.cc),
	// and its low-latency protocols (LL, LL128: flag-carrying stores the
	// peer polls) start sooner but move each byte slower than the Simple
	// protocol that the two fields above price. A decode step's small
	// all-reduces take the first, a prefill's megabytes the second, so an
	// all-reduce costs the cheaper of the two. 0 leaves one protocol.
	// Range: efficiency 0.005 to 0.9 of the link (the low-latency protocols
	// move each byte with a flag, a fraction of Simple's rate), latency 1 to
	// 100 µs.
	HostSmallAllReduceEfficiency float64 `yaml:"host_small_all_reduce_efficiency,omitempty" json:"host_small_all_reduce_efficiency,omitempty" coef:"efficiency,optional,range=0.005:0.9"`
	HostSmallAllReduceLatencyUs  float64 `yaml:"host_small_all_reduce_latency_us,omitempty" json:"host_small_all_reduce_latency_us,omitempty" coef:"overhead,scale=10,range=1:100"`
	// PerLayerOverheadUs is the GPU time each decoder layer adds to a step
	// beyond its bytes and FLOPs, in microseconds: the floor of its dozen
	// kernels (norms, rotary embedding, activation quantisation, the
	// attention kernel's own setup), which a small shard cannot hide.
	// Range: 10 to 150 µs: a layer runs about a dozen kernels and even
	// under CUDA graphs each small one takes 1-3 µs on the GPU (a launch's
	// floor), so at least 10 µs; 150 µs would be a dozen unhidden CPU
	// launches, which graphs remove.
	PerLayerOverheadUs float64 `yaml:"per_layer_overhead_us" json:"per_layer_overhead_us" coef:"overhead,scale=30,range=10:150"`
	// MoELayerOverheadUs is what a layer with routed experts adds to
	// PerLayerOverheadUs, in microseconds: the router, top-k, the
	// permutation of tokens to experts and back, and the grouped GEMMs'
	// own launch.
	// Range: 0 to 150 µs, per_layer_overhead_us's ceiling; 0 where the MoE
	// kernels fuse the routing into the grouped GEMMs.
	MoELayerOverheadUs float64 `yaml:"moe_layer_overhead_us" json:"moe_layer_overhead_us" coef:"overhead,scale=30,range=0:150"`
	// MLALayerOverheadUs is what a multi-head latent attention layer
	// (DeepSeek-V3, Kimi-K2) adds to PerLayerOverheadUs, in microseconds:
	// the kernels its attention runs beyond GQA's projection, rotary and
	// attention kernel: the low-rank query and KV projections and their
	// norms, and the two batched GEMMs that absorb the up-projections into
	// the query and the output (vllm/model_executor/layers/mla.py,
	// vllm/v1/attention/backends/mla/common.py _forward_decode).
	// Range: 0 to 150 µs, per_layer_overhead_us's ceiling.
	MLALayerOverheadUs float64 `yaml:"mla_layer_overhead_us,omitempty" json:"mla_layer_overhead_us,omitempty" coef:"overhead,scale=30,range=0:150"`
	// EagerLaunchUs is the host's time to launch one kernel without a CUDA
	// graph, in microseconds (PyTorch's dispatch and the CUDA driver's
	// launch call): a step that runs eager (--enforce-eager, or more tokens
	// than the largest captured graph) pays it for every kernel of every
	// layer, where a graph's replay is one launch (sim/cudagraph.go). A few
	// microseconds on any host; 0 takes DefaultEagerLaunchUs. The corpus
	// fit holds it (calibrate.DefaultHold): no corpus point runs eager.
	// Range: 1 to 30 µs (a launch through PyTorch and the driver takes a
	// microsecond or more on any host, tens on a slow one).
	EagerLaunchUs float64 `yaml:"eager_launch_us,omitempty" json:"eager_launch_us,omitempty" coef:"overhead,scale=5,range=1:30"`
	// ExpertBandwidthEfficiency is the fraction of peak memory bandwidth
	// the MoE grouped GEMMs reach streaming expert weights; 0 means
	// WeightBandwidthEfficiency's.
	// Range: 0.2 to 0.95, weight_bandwidth_efficiency's ceiling. The fit
	// can reach the ceiling: the bytes it divides are the experts a step
	// touches under uniform routing, an upper bound (a trained router sends
	// a batch's tokens to fewer distinct experts), so the efficiency also
	// carries how many fewer experts real routing reads.
	ExpertBandwidthEfficiency float64 `yaml:"expert_bandwidth_efficiency,omitempty" json:"expert_bandwidth_efficiency,omitempty" coef:"efficiency,optional,range=0.2:0.95"`
	// ExpertComputeEfficiency is the MFU of the MoE grouped GEMMs (few
	// tokens per expert, weight-only dequantising kernels such as Marlin);
	// 0 means ComputeEfficiency's.
	// Range: 0.05 to 0.85, compute_efficiency's ceiling; a grouped GEMM of a
	// few tokens per expert runs small tiles, so its floor is lower.
	ExpertComputeEfficiency float64 `yaml:"expert_compute_efficiency,omitempty" json:"expert_compute_efficiency,omitempty" coef:"efficiency,optional,range=0.05:0.85"`
	// FP8ExpertBandwidthEfficiency and FP8ExpertComputeEfficiency are the
	// same for fp8 experts, whose grouped GEMMs are other kernels (block-
	// scaled FP8, Triton or DeepGEMM) than 4-bit experts' (Marlin,
	// FlashInfer's TRT-LLM MoE) and bf16 experts'; 0 means the expert
	// efficiencies above.
	FP8ExpertBandwidthEfficiency float64 `yaml:"fp8_expert_bandwidth_efficiency,omitempty" json:"fp8_expert_bandwidth_efficiency,omitempty" coef:"efficiency,optional,range=0.2:0.95,parent=expert_bandwidth_efficiency"`
	// Range: the expert efficiencies' above.
	FP8ExpertComputeEfficiency float64 `yaml:"fp8_expert_compute_efficiency,omitempty" json:"fp8_expert_compute_efficiency,omitempty" coef:"efficiency,optional,range=0.05:0.85,parent=expert_compute_efficiency"`
	// INT4ExpertBandwidthEfficiency and INT4ExpertComputeEfficiency are the
	// same for INT4 weight-only experts (compressed-tensors W4A16, Kimi-K2),
	// whose grouped GEMMs dequantise in the kernel and multiply in bf16
	// (Marlin MoE, vllm/model_executor/layers/fused_moe/fused_marlin_moe.py;
	// FlashInfer's W4A16 MoE on Blackwell, VLLM_USE_FLASHINFER_MOE_INT4);
	// 0 means the expert efficiencies above.
	INT4ExpertBandwidthEfficiency float64 `yaml:"int4_expert_bandwidth_efficiency,omitempty" json:"int4_expert_bandwidth_efficiency,omitempty" coef:"efficiency,optional,range=0.2:0.95"`
	// Range: the expert efficiencies' above.
	INT4ExpertComputeEfficiency float64 `yaml:"int4_expert_compute_efficiency,omitempty" json:"int4_expert_compute_efficiency,omitempty" coef:"efficiency,optional,range=0.05:0.85"`
	// ActivationIOPerLayer is how many times a layer's element-wise work
	// (norms, rotary, activation, residual adds, quantisation of
	// activations) reads or writes each token's hidden state: memory
	// traffic of ActivationIOPerLayer × hidden × 2 bytes a token a layer,
	// priced at the datasheet's bandwidth (passes at peak: what the
	// element-wise kernels lose of it counts as more passes).
	// Range: 2 to 30: a layer's two fused add-and-norm kernels read and
	// write the hidden state at least once each, and 30 would be every
	// element-wise operation unfused (norms, rotary, activation, residuals,
	// quantisation, each a read and a write).
	ActivationIOPerLayer float64 `yaml:"activation_io_per_layer" json:"activation_io_per_layer" coef:"overhead,scale=10,range=2:30"`
	// APIRequestOverheadMs is the API server's own time per request, in
	// milliseconds: HTTP, request processing, and streaming the first and
	// last chunks; the client's TTFT and E2E include it, the engine's do not.
	// Range: 0 to 100 ms (an HTTP request's handling on localhost takes
	// well under 100 ms).
	APIRequestOverheadMs float64 `yaml:"api_request_overhead_ms" json:"api_request_overhead_ms" coef:"overhead,api,scale=10,range=0:100"`
	// APIPromptTokenUs is the API server's time per prompt token before the
	// engine sees the request (tokenisation), in microseconds.
	// Range: 0 to 50 µs a token (a fast tokenizer does a few µs a token).
	APIPromptTokenUs float64 `yaml:"api_prompt_token_us" json:"api_prompt_token_us" coef:"overhead,api,scale=5,range=0:50"`
	// APIServerCPUMs is the API server process's own work per request, in
	// milliseconds of one process (chat template, request validation, the
	// Python side of tokenisation and of streaming): the requests in the
	// server share its processes (--api-server-count), so a burst waits for
	// the whole burst's work. Alone, a request's work overlaps the two
	// latencies above; it shows only when requests queue.
	// Range: 0.5 to 50 ms of one process a request (a chat template and a
	// request's validation cost at least half a millisecond of Python).
	APIServerCPUMs float64 `yaml:"api_server_cpu_ms" json:"api_server_cpu_ms" coef:"overhead,api,scale=10,range=0.5:50"`
	// HarmonyAPIServerCPUMs is the same for a model whose chat format is
	// OpenAI's Harmony (gpt-oss), which vLLM renders with the openai_harmony
	// library instead of the checkpoint's Jinja chat template
	// (vllm/entrypoints/openai/serving_chat.py use_harmony); 0 means
	// APIServerCPUMs.
	// Range: api_server_cpu_ms's.
	HarmonyAPIServerCPUMs float64 `yaml:"api_server_harmony_cpu_ms,omitempty" json:"api_server_harmony_cpu_ms,omitempty" coef:"overhead,api,scale=10,range=0.5:50"`
}
