package profiles

import (
	"fmt"
	"strings"
)

// Checkpoint is what a Hugging Face id says beyond its base model: who
// published it and the weight format its name ends in, as quantizers name
// their uploads (Qwen/Qwen3-8B-AWQ, neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8,
// RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic, nvidia/Llama-3.3-70B-Instruct-FP4).
type Checkpoint struct {
	ID   string // the id as given
	Org  string // the publisher before the slash ("" when none)
	Base string // the name without the publisher and the format suffix
	// Suffix is the format suffix as written ("FP8-dynamic"); "" when the
	// name carries none.
	Suffix string
	// Format is thinkcap's --quantization value for the weights ("" for
	// an unquantized name, or a format thinkcap does not model: Unmodelled
	// then says which).
	Format string
	// Accepts are the --quantization values that describe the same
	// checkpoint: Format, and for a suffix that names a family of formats
	// the others it may be (FP4: nvfp4 or mxfp4), so that the flag can
	// choose among them.
	Accepts []string
	// Scheme says, in a few words, what the suffix means and how thinkcap
	// prices it.
	Scheme string
	// Unmodelled names the format when the suffix is a known one that
	// thinkcap has no kernels for (GPTQ INT8, INT8 W8A8, MXFP8).
	Unmodelled string
	// FP8Block says how the checkpoint's FP8 weights are scaled when the
	// suffix decides it: "block" (128×128 blocks), "channel" or "tensor";
	// "" leaves it to the model profile.
	FP8Block string
}

// checkpointSuffix is one weight-format suffix quantizers append to a
// model's name.
type checkpointSuffix struct {
	suffix     string
	format     string
	also       []string // other --quantization values the suffix may mean
	fp8Scale   string
	scheme     string
	unmodelled string
}

// checkpointSuffixes are the suffixes ParseCheckpoint recognises, longest
// first so that "-FP8-dynamic" is not read as "-dynamic" after "-FP8". The
// kernels each format runs on are sim's kernel table's (sim/kernels.go).
var checkpointSuffixes = []checkpointSuffix{
	// compressed-tensors' FP8_DYNAMIC scheme (llm-compressor, as RedHatAI
	// and neuralmagic publish it): per-channel weight scales, activation
	// scales computed per token at run time
	// (vllm/model_executor/layers/quantization/compressed_tensors/schemes/compressed_tensors_w8a8_fp8.py).
	// thinkcap prices it as the FP8 GEMMs of a per-tensor checkpoint: the
	// per-token scale pass over the activations is not priced (it reads
	// the activations once, small beside the weights a step streams).
	{suffix: "fp8-dynamic", format: "fp8", fp8Scale: "channel",
		scheme: "FP8 weights scaled per channel, activations per token at run time; priced as W8A8 FP8 GEMMs without the per-token scale pass"},
	{suffix: "w8a8-fp8", format: "fp8", fp8Scale: "channel",
		scheme: "FP8 weights and activations (compressed-tensors); priced as W8A8 FP8 GEMMs"},
	{suffix: "fp8-block", format: "fp8", fp8Scale: "block",
		scheme: "FP8 weights scaled per 128×128 block; priced as block-scaled FP8 GEMMs"},
	{suffix: "quantized.w4a16", format: "gptq", also: []string{"awq"},
		scheme: "INT4 weights (compressed-tensors W4A16), 16-bit activations; priced as GPTQ INT4"},
	{suffix: "quantized.w8a8", unmodelled: "INT8 weights and activations (W8A8)"},
	{suffix: "gptq-int4", format: "gptq",
		scheme: "GPTQ INT4 weights, 16-bit activations"},
	{suffix: "gptq-int8", unmodelled: "GPTQ INT8 weights"},
	{suffix: "nvfp4", format: "nvfp4",
		scheme: "NVFP4 weights (ModelOpt)"},
	{suffix: "mxfp4", format: "mxfp4",
		scheme: "MXFP4 weights"},
	{suffix: "mxfp8", unmodelled: "MXFP8 weights"},
	{suffix: "w4a16", format: "gptq", also: []string{"awq"},
		scheme: "INT4 weights (compressed-tensors W4A16), 16-bit activations; priced as GPTQ INT4"},
	{suffix: "w8a8", unmodelled: "INT8 weights and activations (W8A8)"},
	// A bare -GPTQ names no width: GPTQ's usual 4 bits are assumed.
	{suffix: "gptq", format: "gptq",
		scheme: "GPTQ weights, taken as INT4, 16-bit activations"},
	// NVIDIA's -FP4 uploads are NVFP4 (ModelOpt's hf_quant_config.json);
	// gpt-oss's 4-bit experts are MXFP4, which --quantization may name.
	{suffix: "fp4", format: "nvfp4", also: []string{"mxfp4"},
		scheme: "NVFP4 weights (ModelOpt)"},
	{suffix: "fp8", format: "fp8",
		scheme: "FP8 weights and activations"},
	{suffix: "awq", format: "awq",
		scheme: "AWQ INT4 weights, 16-bit activations"},
}

// ParseCheckpoint splits a Hugging Face id into its publisher, its base
// name and the weight format its last suffix names. The suffix is matched
// case-insensitively after a '-', '_' or '.' and must leave a base name;
// an id without one parses with Base the whole name.
func ParseCheckpoint(id string) Checkpoint {
	id = strings.TrimSpace(id)
	c := Checkpoint{ID: id, Base: id}
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		c.Org, c.Base = id[:i], id[i+1:]
	}
	for _, s := range checkpointSuffixes {
		// The suffixes are ASCII: their bytes compare one for one.
		n := len(c.Base) - len(s.suffix)
		if n < 2 || !strings.EqualFold(c.Base[n:], s.suffix) || !strings.ContainsRune("-_.", rune(c.Base[n-1])) {
			continue
		}
		c.Suffix, c.Base = c.Base[n:], c.Base[:n-1]
		c.Format, c.Scheme, c.Unmodelled, c.FP8Block = s.format, s.scheme, s.unmodelled, s.fp8Scale
		if s.format != "" {
			c.Accepts = append([]string{s.format}, s.also...)
		}
		break
	}
	return c
}

// Quantized reports whether the id names a weight format.
func (c Checkpoint) Quantized() bool { return c.Format != "" || c.Unmodelled != "" }

// Describe is one line saying what the id resolved to, for a command's
// output: "Qwen/Qwen3-8B-AWQ resolved to qwen3-8b with awq weights (AWQ
// INT4 ...)", format being the one the deployment runs (the id's, or the
// --quantization that chose among those it may mean); "" when the id named
// no format.
func (c Checkpoint) Describe(model, format string) string {
	if c.Format == "" {
		return ""
	}
	if format == "" {
		format = c.Format
	}
	return fmt.Sprintf("%s resolved to %s with %s weights (%s)", c.ID, model, format, c.Scheme)
}

// UnmodelledFormatError reports a checkpoint of a known model whose weight
// format thinkcap does not model.
type UnmodelledFormatError struct {
	Checkpoint Checkpoint
	Model      string // the base model's profile
}

func (e *UnmodelledFormatError) Error() string {
	return fmt.Sprintf("model %q is a checkpoint of %s with %s, which thinkcap does not model (it models bf16, fp8, awq, gptq INT4, nvfp4 and mxfp4 weights)",
		e.Checkpoint.ID, e.Model, e.Checkpoint.Unmodelled)
}
