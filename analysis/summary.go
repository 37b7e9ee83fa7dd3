package analysis

import "github.com/thinkcap/thinkcap/workload"

// Summary is the summary JSON (docs/formats.md), printed by `simulate -o json` and
// `loadtest`, and read back by `verify`. Keys may be added, never renamed.
type Summary struct {
	Kind       string        `json:"kind"` // "simulation" or "loadtest"
	Config     Config        `json:"config"`
	Capacity   Capacity      `json:"capacity"`
	Requests   RequestCounts `json:"requests"`
	DurationS  float64       `json:"duration_s"`
	Throughput Throughput    `json:"throughput"`
	LatencyS   Latencies     `json:"latency_s"`
	Tokens     TokenStats    `json:"tokens"`
	// Preemptions is nil when unknown (a load test that never scraped
	// vllm:num_preemptions_total): null in JSON, "-" in tables.
	Preemptions *int64    `json:"preemptions"`
	KVUsage     KVUsage   `json:"kv_usage"`
	Running     Occupancy `json:"running"`
	Waiting     Occupancy `json:"waiting"`
	// Transforms reports the what-if transforms applied to the traffic.
	Transforms []workload.TransformReport `json:"transforms,omitempty"`
	// Pools holds one summary per pool when traffic is routed to several;
	// the top level then summarises every request together.
	Pools []Summary `json:"pools,omitempty"`
	// Pool names this summary's pool inside Pools.
	Pool string `json:"pool,omitempty"`
	// Load tests only: latencies measured from when each request was
	// actually sent (LatencyS measures from when it was scheduled; the
	// difference is coordinated omission), how late sends were, and what
	// the server's counters said about speculative decoding and the
	// prefix cache.
	LatencyFromSentS   *Latencies       `json:"latency_from_sent_s,omitempty"`
	ScheduleLagS       *ScheduleLag     `json:"schedule_lag_s,omitempty"`
	SpecDecode         *SpecDecodeStats `json:"spec_decode,omitempty"`
	PrefixCacheHitRate *float64         `json:"prefix_cache_hit_rate,omitempty"`
	// Goodput counts the user requests that met every per-request SLO
	// (goodput.go); nil unless SLOs were given.
	Goodput *Goodput `json:"goodput,omitempty"`
	// SLOs are the SLOs asked of a simulation (simulate --slo), each with
	// the value and verdict; absent unless SLOs were given.
	SLOs []SLOResult `json:"slos,omitempty"`
	// Errors says what failed (summary_errors.go); nil when nothing did.
	Errors *ErrorBreakdown `json:"errors,omitempty"`
	// Scrape counts a load test's /metrics scrapes and failures.
	Scrape *ScrapeCounts `json:"scrape,omitempty"`
	// Intervals are a simulation's figures as ranges over seeds
	// (simulate --seeds); nil for one run.
	Intervals *Intervals `json:"intervals,omitempty"`
	// OutsideCorpus is what of a simulated deployment the measurement
	// corpus has no measurement behind; nil when it lies inside.
	OutsideCorpus *Caveats `json:"outside_corpus,omitempty"`
}

// ScheduleLag is how late a load generator sent requests after their
// scheduled times, in seconds, and how many were later than its threshold.
type ScheduleLag struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Late int     `json:"late"`
}

// SpecDecodeStats is speculative decoding's acceptance as vLLM's counters
// show it: mean acceptance length 1 + accepted/drafts, the fraction of
// draft tokens accepted, and per-position acceptance rates.
type SpecDecodeStats struct {
	AcceptanceLength float64   `json:"acceptance_length"`
	AcceptanceRate   float64   `json:"acceptance_rate"`
	PerPosition      []float64 `json:"per_position,omitempty"`
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

	// PipelineParallelSize is the stages per replica (0: not recorded, as
	// in summaries from before it was; read as 1).
	PipelineParallelSize int `json:"pipeline_parallel_size,omitempty"`
	// VLLMVersion is the vLLM release the capacity was computed for (a
	// simulation's --vllm-version), so that verify compares like with like.
	VLLMVersion string `json:"vllm_version,omitempty"`
	// Kernels names the GEMM kernels a simulation priced the linear
	// layers and routed experts with ("linear … / experts …": sim.Kernels).
	Kernels string `json:"kernels,omitempty"`
	// Checkpoint says what a quantized checkpoint's id given as the model
	// resolved to (the base model's profile and the weight format), for
	// a simulation of one; "" otherwise.
	Checkpoint string `json:"checkpoint,omitempty"`
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

// Stat is the four-number summary every distribution gets. NoData marks a
// distribution with no sample: its JSON leaves are null (summary_nodata.go).
type Stat struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	// Dist is the spread at chosen percentiles (loadtest --percentiles);
	// nil unless asked for.
	Dist   *Distribution `json:"distribution,omitempty"`
	NoData bool          `json:"-"`
}

// Latencies are in seconds.
type Latencies struct {
	TTFT  Stat `json:"ttft"`
	TTFA  Stat `json:"ttfa"`
	TPOT  Stat `json:"tpot"`
	ITL   Stat `json:"itl"`
	E2E   Stat `json:"e2e"`
	Queue Stat `json:"queue"`
	// TTFTEngine is the engine's part of TTFT (vllm:time_to_first_token_seconds):
	// from the request reaching the engine, without the API server's time
	// and the network. A simulation's from its results; a load test's from
	// the server's histogram over the window (null when not scraped).
	TTFTEngine Stat `json:"ttft_engine"`
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
	Mean   float64 `json:"mean"`
	Peak   float64 `json:"peak"`
	NoData bool    `json:"-"` // never scraped: null leaves
}

// Occupancy is a time-weighted mean and the peak of a request count.
type Occupancy struct {
	Mean   float64 `json:"mean"`
	Peak   int     `json:"peak"`
	NoData bool    `json:"-"` // never scraped: null leaves
}
