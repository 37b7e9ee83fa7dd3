package workload

// Request is one request record: what a client asked and what the model
// generated, as logged in production or generated synthetically. It is the
// common currency of thinkcap (docs/formats.md).
type Request struct {
	ID string `json:"id,omitempty"`
	// ArrivalS is the arrival time in seconds from the start of the log.
	ArrivalS     float64 `json:"arrival_s"`
	PromptTokens int     `json:"prompt_tokens"`
	ThinkTokens  int     `json:"think_tokens"`
	AnswerTokens int     `json:"answer_tokens"`
	Mode         string  `json:"mode,omitempty"`
	Category     string  `json:"category,omitempty"`
	PrefixID     string  `json:"prefix_id,omitempty"`
	PrefixTokens int     `json:"prefix_tokens,omitempty"`
	FinishReason string  `json:"finish_reason,omitempty"`
	// Priority is vLLM's request priority (lower is served first) for
	// --scheduling-policy priority; 0 by default.
	Priority int `json:"priority,omitempty"`
	// Correct says whether the answer was judged correct (an eval or a
	// verifier), when the log knows; drift compares accuracy with it.
	Correct *bool `json:"correct,omitempty"`
	// After names the request (by ID) whose completion issues this one: a
	// gateway's follow-up call, such as phase 2 of a two-phase thinking
	// budget or an escalation retry. ArrivalS is then the delay after that
	// completion. A follow-up's prefix (PrefixTokens with no PrefixID) is
	// its predecessor's whole sequence, which the prefix cache may still
	// hold.
	After string `json:"after,omitempty"`
	// SessionID and Turn (from 1) place the request in a multi-turn
	// session (chat, an agent); ThinkTimeS is the user's or tool's time
	// after the previous turn's answer. A turn's PromptTokens is its new
	// input only: the history is added by the --history policy
	// (sessions.go).
	SessionID  string  `json:"session_id,omitempty"`
	Turn       int     `json:"turn,omitempty"`
	ThinkTimeS float64 `json:"think_time_s,omitempty"`
	// HistoryTokens is how many of PromptTokens the --history policy added
	// (ApplySessions): a load test sends them as the earlier messages, and
	// PromptTokens − HistoryTokens as the turn's new input.
	HistoryTokens int `json:"history_tokens,omitempty"`
}

// StartsUserRequest reports whether the request is what a user sent, not
// a gateway's follow-up call of it (After without a session): a session's
// turns are each a user's request, measured from when it was sent.
func (r *Request) StartsUserRequest() bool { return r.After == "" || r.SessionID != "" }

// OutputTokens is the number of generated tokens: thinking plus answer.
func (r *Request) OutputTokens() int { return r.ThinkTokens + r.AnswerTokens }

// TotalTokens is prompt plus output tokens: the sequence length at the end.
func (r *Request) TotalTokens() int { return r.PromptTokens + r.OutputTokens() }
