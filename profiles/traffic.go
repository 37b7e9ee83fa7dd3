package profiles

// Traffic is a traffic profile: a mix of request classes (effort mode ×
// task category), each with its share of the requests and the distributions
// of its prompt, think and answer lengths. Distributions are written as
// workload distribution specs ("lognormal:p50=400,p99=8000", "uniform:10..20",
// "0"); the workload package parses them.
type Traffic struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Classes     []TrafficClass `yaml:"classes"`
	// Sessions, when set, groups the requests into multi-turn sessions:
	// Turns per session and ThinkTime (seconds after a turn's answer), as
	// distribution specs (thinkcap fit of a log with sessions writes them).
	Sessions *TrafficSessions `yaml:"sessions,omitempty"`
}

// TrafficSessions are a traffic profile's multi-turn sessions.
type TrafficSessions struct {
	Turns     string `yaml:"turns"`
	ThinkTime string `yaml:"think_time"`
}

// TrafficClass is one class of a traffic profile.
type TrafficClass struct {
	Name         string  `yaml:"name"`
	Mode         string  `yaml:"mode"`     // low, medium, high, or empty
	Category     string  `yaml:"category"` // task category, or empty
	Share        float64 `yaml:"share"`    // fraction of requests; shares are normalised
	PromptTokens string  `yaml:"prompt_tokens"`
	ThinkTokens  string  `yaml:"think_tokens"`
	AnswerTokens string  `yaml:"answer_tokens"`
	// PrefixID and PrefixTokens give the class a shared prompt prefix (system
	// prompt) of PrefixTokens tokens, for prefix caching.
	PrefixID     string `yaml:"prefix_id"`
	PrefixTokens int    `yaml:"prefix_tokens"`
}
