package profiles

import (
	"slices"
	"strings"
)

// dtypeBytes is the storage cost of one weight, in bytes, for each weight
// dtype a model profile may name. Block-scaled 4-bit formats include their
// scales: mxfp4 stores one 8-bit scale per 32 values (4.25 bits), nvfp4 one
// 8-bit scale per 16 values (4.5 bits); awq is AutoAWQ's 4-bit weights with
// an fp16 scale and a 4-bit zero point per group of 128 (4 + 20/128 bits,
// vllm/model_executor/layers/quantization/awq.py); int4 is
// compressed-tensors' W4A16 as Moonshot ships Kimi-K2's experts, a bf16
// scale per group of 32 (4.5 bits; the checkpoint's quantization_config).
// gptq is GPTQ's 4-bit weights as vLLM's gptq_marlin loads them, an fp16
// scale and a packed 4-bit zero point per group of 128, the same bits as
// awq (vllm/model_executor/layers/quantization/gptq_marlin.py).
// int8 ignores its (small, checkpoint-specific) scales.
var dtypeBytes = map[string]float64{
	"fp32":  4,
	"bf16":  2,
	"fp16":  2,
	"fp8":   1,
	"int8":  1,
	"int4":  (4 + 16.0/32) / 8,
	"mxfp4": 4.25 / 8,
	"nvfp4": 4.5 / 8,
	"awq":   (4 + 20.0/128) / 8,
	"gptq":  (4 + 20.0/128) / 8,
}

// DtypeBytes returns the bytes one weight of dtype takes in memory, and
// whether dtype is known (see Model.WeightDtype).
func DtypeBytes(dtype string) (float64, bool) {
	b, ok := dtypeBytes[dtype]
	return b, ok
}

// dtypeList is the sorted, comma-separated list of known dtypes, for errors.
func dtypeList() string {
	names := make([]string, 0, len(dtypeBytes))
	for n := range dtypeBytes {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
