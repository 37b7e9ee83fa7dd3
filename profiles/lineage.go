package profiles

import "strings"

// lineages are the model profiles whose family is not their profile's
// family field, by profile-name prefix: Llama's generations differ in
// architecture (Llama 2 7B has no GQA, Llama 3 a 128k vocabulary) and
// CodeLlama is a Llama 2 checkpoint; DeepSeek's R1 distills are
// fine-tuned Qwen2.5 and Llama 3 checkpoints; Kimi K2 has DeepSeek V3's
// architecture but its own pretraining.
var lineages = []struct{ prefix, family string }{
	{"codellama", "llama-2"},
	{"llama-2", "llama-2"},
	{"llama-3", "llama-3"},
	{"deepseek-r1-distill-qwen", "qwen2"},
	{"deepseek-r1-distill-llama", "llama-3"},
	{"kimi", "kimi-k2"},
}

// splitMoE are the families that hold dense and mixture-of-experts
// architectures under one name (Qwen3 8B and Qwen3 235B-A22B): their MoE
// models are a family of their own, "<family>-moe".
var splitMoE = map[string]bool{"qwen2": true, "qwen3": true}

// Lineage is the model's family as the fidelity corpus groups it
// (leave-one-family-out holds a lineage out at once, and simulate and
// size warn of one the corpus has no point of): architecture and
// checkpoint lineage, whatever the size, quantization, TP or GPU. It is
// the profile's family field (every size of qwen3, gpt-oss; DeepSeek R1
// and V3 share deepseek-v3), or the lineages table's by the profile's
// name, with MoE models of a family that also has dense ones apart
// (qwen3-moe). A model without a family field is its own family.
func (m *Model) Lineage() string {
	f := m.Family
	for _, l := range lineages {
		if strings.HasPrefix(m.Name, l.prefix) {
			f = l.family
			break
		}
	}
	if f == "" {
		f = m.Name
	}
	if splitMoE[f] && m.IsMoE() {
		f += "-moe"
	}
	return f
}
