package loadgen

import "strings"

// Engines are the servers a load test knows: vLLM (its /metrics, its
// request fields) and SGLang (its /metrics under its own names, read by
// the same scraper: scrape_sglang.go).
var Engines = []string{EngineVLLM, EngineSGLang}

// DetectEngine names the server from what it answered: the owned_by of its
// /v1/models cards ("vllm", "sglang"), else the prefix of its /metrics
// families; "" when neither says (an OpenAI-compatible server of another
// kind, or one that hides both).
func DetectEngine(models ModelsInfo, families []string) string {
	for _, c := range models.Models {
		switch strings.ToLower(c.OwnedBy) {
		case EngineVLLM:
			return EngineVLLM
		case EngineSGLang:
			return EngineSGLang
		}
	}
	for _, f := range families {
		switch {
		case strings.HasPrefix(f, "vllm:"):
			return EngineVLLM
		case isSGLang(f):
			return EngineSGLang
		}
	}
	return ""
}
