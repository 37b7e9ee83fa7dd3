package workload

// Status values of a Result.
const (
	StatusOK          = "ok"
	StatusRejected    = "rejected"
	StatusHTTPError   = "http_error"
	StatusStreamError = "stream_error"
	StatusTimeout     = "timeout"
	StatusTruncated   = "truncated"
	StatusCancelled   = "cancelled"
	// StatusConnectError is a load-test request that never reached the
	// server: the connection was refused or could not be opened (dial,
	// DNS). A 429 is StatusRejected; other HTTP errors StatusHTTPError.
	StatusConnectError = "connect_error"
)

// Result is the outcome of one request, the same schema from `simulate
// --results` and from `loadtest` (docs/formats.md). Times are in
// seconds; TTFT and friends are measured from the request's arrival.
type Result struct {
	Request
	Status string `json:"status"`
	// TTFTS is the time to the first generated token of any kind.
	TTFTS float64 `json:"ttft_s"`
	// TTFTEngineS is the engine's part of TTFT: from the request reaching
	// the engine, after the API server's own time, to its first token
	// (vllm:time_to_first_token_seconds). Simulation only; 0 when unknown.
	TTFTEngineS float64 `json:"ttft_engine_s,omitempty"`
	// TTFAS is the time to the first answer token, what a user sees when
	// thinking is hidden; omitted when the request produced no answer token.
	TTFAS float64 `json:"ttfa_s,omitempty"`
	// ThinkS is how long the thinking lasted: from the first token to the first
	// answer token (to the last token when there is no answer).
	ThinkS float64 `json:"think_s"`
	// TPOTS is the mean time per output token after the first.
	TPOTS float64 `json:"tpot_s"`
	E2ES  float64 `json:"e2e_s"`
	// QueueS is the time from arrival to first being scheduled.
	QueueS      float64 `json:"queue_s"`
	Preemptions int     `json:"preemptions"`
	// Continued marks a request whose user-visible answer comes from a
	// follow-up request (one whose After names it). For a follow-up, TTFT,
	// TTFA and E2E are measured from the arrival of the first request of the
	// chain: what the user waited.
	Continued bool `json:"continued,omitempty"`
	// CachedTokens is the prompt's prefix-cache hit when first scheduled
	// (vLLM's usage.prompt_tokens_details.cached_tokens).
	CachedTokens int `json:"cached_tokens,omitempty"`
	// RecomputedTokens counts tokens computed again after preemptions.
	RecomputedTokens int `json:"recomputed_tokens,omitempty"`
	Replica          int `json:"replica"`
	// Pool names the pool that served the request when traffic is routed
	// to several (simulate --route); empty for the main pool.
	Pool string `json:"pool,omitempty"`
	// Load-test only. ITLMeanS and ITLP99S summarise the request's own
	// inter-token gaps.
	ITLMeanS    float64 `json:"itl_mean_s,omitempty"`
	ITLP99S     float64 `json:"itl_p99_s,omitempty"`
	ScheduledS  float64 `json:"scheduled_s,omitempty"`
	SentS       float64 `json:"sent_s,omitempty"`
	TokenSource string  `json:"token_source,omitempty"`
	HTTPStatus  int     `json:"http_status,omitempty"`
	Error       string  `json:"error,omitempty"`
	// ConnectS is the time spent opening a new connection (DNS, TCP, TLS)
	// before the request could be written: present only when the warmed
	// pool had no idle connection mid-run. TTFT from the scheduled time
	// includes it.
	ConnectS float64 `json:"connect_s,omitempty"`
}

// OK reports whether the request completed successfully.
func (r *Result) OK() bool { return r.Status == StatusOK }
