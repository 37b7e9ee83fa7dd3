package size

import "github.com/thinkcap/thinkcap/analysis"

// Outcome is one candidate's result, as `-o json` prints it. Seconds and
// fractions, as in the summary JSON (docs/formats.md).
type Outcome struct {
	Name               string `json:"name"`
	Model              string `json:"model"`
	GPU                string `json:"gpu"`
	TensorParallelSize int    `json:"tensor_parallel_size"`
	// PipelineParallelSize is the stages per replica: a replica takes
	// TP × PP GPUs.
	PipelineParallelSize int     `json:"pipeline_parallel_size"`
	KVCacheDtype         string  `json:"kv_cache_dtype"`
	Speculative          string  `json:"speculative"`
	MaxNumSeqs           int     `json:"max_num_seqs"`
	Replicas             int     `json:"replicas"`
	GPUs                 int     `json:"gpus"`
	CostPerHour          float64 `json:"cost_per_hour"`
	// CostPerMillionOutputTokens is at the traffic's output token rate
	// (thinking included: it is paid for).
	CostPerMillionOutputTokens float64  `json:"cost_per_million_output_tokens"`
	Passes                     bool     `json:"passes"`
	FailedSLOs                 []string `json:"failed_slos"`
	// Error is why the candidate could not be deployed or simulated.
	Error string `json:"error,omitempty"`

	TTFTP99S    float64 `json:"ttft_p99_s"`
	TTFAP99S    float64 `json:"ttfa_p99_s"`
	TPOTP99S    float64 `json:"tpot_p99_s"`
	E2EP99S     float64 `json:"e2e_p99_s"`
	KVUsagePeak float64 `json:"kv_usage_peak"`
	Preemptions int64   `json:"preemptions"`
	// Complete is false when the figures come from a run stopped at its
	// first certain failure (failing candidates only).
	Complete bool `json:"complete"`

	NumGPUBlocks      int     `json:"num_gpu_blocks"`
	KVCacheTokens     int64   `json:"kv_cache_tokens"`
	MaxRatePerReplica float64 `json:"max_rate_per_replica"`

	// Baseline is the candidate with the same model, GPU, TP and
	// max_num_seqs but auto KV and no speculative decoding; CostVsBaseline
	// is this one's cost per hour relative to it (−0.5: half the cost), set
	// when both pass.
	Baseline       string   `json:"baseline,omitempty"`
	CostVsBaseline *float64 `json:"cost_vs_baseline,omitempty"`

	Curve []CurvePoint `json:"curve,omitempty"`

	// With a confidence (Options.Confidence): the replicas the point
	// estimate alone would have bought, each SLO's interval at the
	// replicas chosen, and what the confidence costs per hour over the
	// point estimate's replicas.
	PointReplicas         *int     `json:"point_replicas,omitempty"`
	Edges                 []Edge   `json:"slo_intervals,omitempty"`
	ConfidenceCostPerHour *float64 `json:"confidence_cost_per_hour,omitempty"`

	// OutsideCorpus says how the candidate lies outside the measurement
	// corpus (sim.Config.Caveats, load aside): its figures rest on
	// coefficients fitted on other deployments.
	OutsideCorpus *analysis.Caveats `json:"outside_corpus,omitempty"`

	// Failed is FailedSLOs while the outcome is built.
	Failed []string `json:"-"`
	cand   Candidate
}

func newOutcome(c Candidate) Outcome {
	cfg := &c.Config
	return Outcome{
		Name: c.Name(), Model: modelName(&cfg.Model), GPU: cfg.GPU.Name,
		TensorParallelSize: cfg.TensorParallelSize, PipelineParallelSize: max(cfg.PipelineParallelSize, 1), KVCacheDtype: kvName(cfg.KVCacheDtype),
		Speculative: c.speculative().Name(), MaxNumSeqs: cfg.MaxNumSeqs,
		FailedSLOs: []string{}, cand: c, OutsideCorpus: cfg.Caveats(0),
	}
}

// setMeasurement records the run at r replicas.
func (o *Outcome) setMeasurement(r int, m Measurement) {
	o.Replicas = r
	o.GPUs = r * o.TensorParallelSize * max(o.PipelineParallelSize, 1)
	o.Failed = m.Failed
	o.Passes = m.Passes()
	o.TTFTP99S, o.TTFAP99S = m.Latencies.TTFT.P99, m.Latencies.TTFA.P99
	o.TPOTP99S, o.E2EP99S = m.Latencies.TPOT.P99, m.Latencies.E2E.P99
	o.KVUsagePeak, o.Preemptions, o.Complete = m.KVUsagePeak, m.Preemptions, m.Complete
}

// cost prices the replicas: GPUs × price per GPU-hour, and per million
// output tokens at the traffic's rate.
func (o *Outcome) cost(pricePerGPUHour, outputTokensPerS float64) {
	o.CostPerHour = float64(o.GPUs) * pricePerGPUHour
	if outputTokensPerS > 0 {
		o.CostPerMillionOutputTokens = o.CostPerHour / (outputTokensPerS * 3600) * 1e6
	}
}
