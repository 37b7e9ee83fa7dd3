package profiles

import "strings"

// unmodelledArchitectures are model lines whose attention thinkcap's KV
// cache and step model do not have, matched by the start of the model's
// name (its Hugging Face name without the publisher): an id of one gets no
// profile, and the error says why rather than only that none exists.
// Each cites the vLLM model file that implements the architecture.
var unmodelledArchitectures = []struct{ prefix, why string }{
	{"Qwen3-Next-", "hybrid linear attention: Gated DeltaNet layers beside full-attention ones, a recurrent state per request instead of a KV cache in most layers (vllm/model_executor/models/qwen3_next.py)"},
	{"Qwen3.5-", "hybrid linear attention: Gated DeltaNet layers beside gated full-attention ones (vllm/model_executor/models/qwen3_5.py, qwen3_5_moe.py)"},
	{"NVIDIA-Nemotron-3-", "hybrid Mamba-2 and attention layers (NemotronHForCausalLM, vllm/model_executor/models/nemotron_h.py)"},
	{"Nemotron-H-", "hybrid Mamba-2 and attention layers (NemotronHForCausalLM, vllm/model_executor/models/nemotron_h.py)"},
	{"DeepSeek-V3.2", "DeepSeek Sparse Attention: an indexer picks the cached tokens each query attends to (vllm/model_executor/models/deepseek_v2.py Indexer)"},
	{"DeepSeek-V4-", "sparse attention over a compressed KV cache: a compressor and an indexer (vllm/model_executor/models/deepseek_v4.py)"},
}

// unmodelledArchitecture says why the model id names has no profile when
// its line is one thinkcap knows it does not model; "" otherwise.
func unmodelledArchitecture(id string) string {
	name := ParseCheckpoint(id).Base
	for _, a := range unmodelledArchitectures {
		if len(name) >= len(a.prefix) && strings.EqualFold(name[:len(a.prefix)], a.prefix) {
			return a.why
		}
	}
	return ""
}
