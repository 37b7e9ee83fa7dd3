package profiles

// Model is a transformer's architecture as vLLM's KV-cache sizing and the
// step-time model need it; values come from the model's config.json.
type Model struct {
	Name   string `yaml:"name"`    // thinkcap's short name, e.g. qwen3-8b
	HFName string `yaml:"hf_name"` // Hugging Face id, e.g. Qwen/Qwen3-8B
	// Aliases are other Hugging Face ids of the same architecture (a later
	// release with the same config.json geometry, a quantized checkpoint:
	// its weight format still comes from --quantization).
	Aliases     []string `yaml:"aliases,omitempty"`
	Family      string   `yaml:"family"`      // qwen3, deepseek-r1-distill, llama, gpt-oss, magistral, deepseek-v3
	Description string   `yaml:"description"` // one line for `thinkcap profiles`
	Reasoning   bool     `yaml:"reasoning"`   // emits thinking tokens
	// ReasoningParser is vLLM's --reasoning-parser for this model, if any.
	ReasoningParser string `yaml:"reasoning_parser"`

	Layers           int  `yaml:"layers"` // decoder layers (num_hidden_layers)
	HiddenSize       int  `yaml:"hidden_size"`
	NumHeads         int  `yaml:"num_heads"`    // query heads
	NumKVHeads       int  `yaml:"num_kv_heads"` // key/value heads (GQA); ignored for MLA
	HeadDim          int  `yaml:"head_dim"`
	IntermediateSize int  `yaml:"intermediate_size"` // dense FFN width (0 for all-MoE models)
	VocabSize        int  `yaml:"vocab_size"`
	TiedEmbeddings   bool `yaml:"tied_embeddings"`

	// Parameters in billions (10^9): all of them, and those active per token.
	TotalParamsB  float64 `yaml:"total_params_b"`
	ActiveParamsB float64 `yaml:"active_params_b"`

	// Mixture of experts (zero for dense models).
	NumExperts          int `yaml:"num_experts"`       // routed experts per MoE layer
	ExpertsPerToken     int `yaml:"experts_per_token"` // top-k
	SharedExperts       int `yaml:"shared_experts"`
	MoEIntermediateSize int `yaml:"moe_intermediate_size"` // per-expert FFN width

	// Sliding-window attention: SlidingWindowLayers of Layers use a window of
	// SlidingWindow tokens (gpt-oss alternates sliding and full layers).
	SlidingWindow       int `yaml:"sliding_window"`
	SlidingWindowLayers int `yaml:"sliding_window_layers"`
	// AttentionSinks: every head has a learned sink logit (gpt-oss), which
	// vLLM's FlashAttention backend runs only with FA3 or FA4
	// (vllm/v1/attention/backends/fa_utils.py flash_attn_supports_sinks):
	// before Hopper the Triton backend serves it.
	AttentionSinks bool `yaml:"attention_sinks,omitempty"`

	// Multi-head latent attention (DeepSeek-V3/R1): the KV cache holds one
	// latent of KVLoraRank+QKRopeHeadDim values per token per layer.
	KVLoraRank    int `yaml:"kv_lora_rank"`
	QKRopeHeadDim int `yaml:"qk_rope_head_dim"`
	// MTPLayers is the number of multi-token-prediction layers in the checkpoint.
	MTPLayers int `yaml:"mtp_layers"`

	// MaxModelLen is the default context length (max_position_embeddings).
	MaxModelLen int `yaml:"max_model_len"`
	// WeightDtype is the checkpoint's dtype for dense weights: bf16, fp8.
	WeightDtype string `yaml:"weight_dtype"`
	// ExpertWeightDtype is the dtype of the MoE expert weights when it differs
	// (gpt-oss ships its experts in mxfp4); empty means WeightDtype.
	ExpertWeightDtype string `yaml:"expert_weight_dtype"`
	// FP8BlockScaled: the model's FP8 checkpoint (its own weights when
	// WeightDtype is fp8, else the FP8 alias --quantization fp8 names)
	// scales its weights per 128×128 block (config.json
	// quantization_config.weight_block_size), which runs other GEMMs than
	// per-tensor FP8 (block_fp8_compute_efficiency).
	FP8BlockScaled bool `yaml:"fp8_block_scaled,omitempty"`
	// NormAllReduces is the all-reduces a layer adds under tensor
	// parallelism, beyond the two every layer has, because a normalisation
	// spans the heads that TP shards: MiniMax-M2 normalises Q and K over
	// all its heads, so each rank's sums of squares are all-reduced, one
	// call of two fp32 values a token for both since vLLM PR #31493
	// (vllm/model_executor/models/minimax_m2.py MiniMaxText01RMSNormTP.forward_qk,
	// vllm/model_executor/layers/mamba/linear_attn.py).
	NormAllReduces int `yaml:"norm_all_reduces,omitempty"`

	// Checkpoint is the quantized checkpoint the name given to
	// Catalog.Model named (Qwen/Qwen3-8B-AWQ: awq weights), never read
	// from a profile file: a deployment takes its weight format from it
	// when --quantization is not given.
	Checkpoint Checkpoint `yaml:"-" json:"-"`
}

// IsMLA reports whether the model uses multi-head latent attention.
func (m *Model) IsMLA() bool { return m.KVLoraRank > 0 }

// IsMoE reports whether the model has routed experts.
func (m *Model) IsMoE() bool { return m.NumExperts > 0 }
