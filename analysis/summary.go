package analysis

import "github.com/thinkcap/thinkcap/workload"

// Summary is DESIGN.md's summary JSON, printed by `simulate -o json` and
// `loadtest`, and read back by `verify`. Keys may be added, never renamed.
type Summary struct {
	Kind        string        `json:"kind"` // "simulation" or "loadtest"
	Config      Config        `json:"config"`
	Capacity    Capacity      `json:"capacity"`
	Requests    RequestCounts `json:"requests"`
	DurationS   float64       `json:"duration_s"`
	Throughput  Throughput    `json:"throughput"`
	LatencyS    Latencies     `json:"latency_s"`
	Tokens      TokenStats    `json:"tokens"`
	Preemptions int64         `json:"preemptions"`
	KVUsage     KVUsage       `json:"kv_usage"`
	Running     Occupancy     `json:"running"`
	Waiting     Occupancy     `json:"waiting"`
	// Transforms reports the what-if transforms applied to the traffic.
	Transforms []workload.TransformReport `json:"transforms,omitempty"`
	// Pools holds one summary per pool when traffic is routed to several;
	// the top level then summarises every request together.
	Pools []Summary `json:"pools,omitempty"`
	// Pool names this summary's pool inside Pools.
	Pool string `json:"pool,omitempty"`
}

// Config is the deployment that produced the summary.
type Config struct {
	Model               string `json:"model"`
	GPU                 string `json:"gpu"`
	TensorParallelSize  int    `json:"tensor_parallel_size"`
	Replicas            int    `json:"replicas"`
	KVCacheDtype        string `json:"kv_cache_dtype"`
	MaxNumSeqs          int    `json:"max_num_seqs"`
	MaxNumBatchedTokens int    `json:"max_num_batched_tokens"`
	MaxModelLen         int    `json:"max_model_len,omitempty"`
	Speculative         string `json:"speculative,omitempty"`
}

// Capacity is the KV-cache capacity of one replica, as vLLM logs it.
type Capacity struct {
	NumGPUBlocks    int     `json:"num_gpu_blocks"`
	BlockSize       int     `json:"block_size"`
	KVBytesPerToken int64   `json:"kv_bytes_per_token"`
	KVCacheTokens   int64   `json:"kv_cache_tokens"`
	MaxConcurrency  float64 `json:"max_concurrency"`
}

// RequestCounts counts requests by outcome. Failed counts every request that
// did not end ok (rejected ones included).
type RequestCounts struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Rejected  int `json:"rejected"`
}

// Throughput is per second of the run's duration.
type Throughput struct {
	RequestsPerS     float64 `json:"requests_per_s"`
	OutputTokensPerS float64 `json:"output_tokens_per_s"`
	ThinkTokensPerS  float64 `json:"think_tokens_per_s"`
	AnswerTokensPerS float64 `json:"answer_tokens_per_s"`
	PromptTokensPerS float64 `json:"prompt_tokens_per_s"`
}

// Stat is the four-number summary every distribution gets.
type Stat struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// Latencies are in seconds.
type Latencies struct {
	TTFT  Stat `json:"ttft"`
	TTFA  Stat `json:"ttfa"`
	TPOT  Stat `json:"tpot"`
	ITL   Stat `json:"itl"`
	E2E   Stat `json:"e2e"`
	Queue Stat `json:"queue"`
}

// TokenStats are per-request token counts of completed requests.
type TokenStats struct {
	Think  Stat `json:"think"`
	Answer Stat `json:"answer"`
	Total  Stat `json:"total"`
}

// KVUsage is the fraction of KV blocks in use (vllm:kv_cache_usage_perc),
// time-weighted mean and peak.
type KVUsage struct {
	Mean float64 `json:"mean"`
	Peak float64 `json:"peak"`
}

// Occupancy is a time-weighted mean and the peak of a request count.
type Occupancy struct {
	Mean float64 `json:"mean"`
	Peak int     `json:"peak"`
}
