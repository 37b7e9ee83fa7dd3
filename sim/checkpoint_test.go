package sim

import (
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

// A quantized checkpoint's id brings its weight format when --quantization
// is not given; a given one chooses among the formats the id may mean and
// is refused, naming the flag, when it contradicts the id.
func TestResolveQuantizedCheckpoint(t *testing.T) {
	h100 := simtest.GPU(t, "h100-sxm")
	for _, c := range []struct {
		id, flag, want, err string
	}{
		{"Qwen/Qwen3-8B-AWQ", "", "awq", ""},
		{"Qwen/Qwen3-8B-AWQ", "awq", "awq", ""},
		{"Qwen/Qwen3-8B-AWQ", "fp8", "", "--quantization fp8 contradicts --model Qwen/Qwen3-8B-AWQ"},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "", "gptq", ""},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "", "fp8", ""},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "awq", "awq", ""},
		{"nvidia/Llama-3.3-70B-Instruct-FP4", "mxfp4", "mxfp4", ""},
		{"nvidia/Llama-3.3-70B-Instruct-FP4", "fp8", "", "--quantization fp8 contradicts"},
		{"Qwen/Qwen3-8B", "fp8", "fp8", ""},
	} {
		cfg := Config{Model: simtest.Model(t, c.id), GPU: h100, TensorParallelSize: 2, Quantization: c.flag}
		err := cfg.Resolve()
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s --quantization %q: %v; want %q", c.id, c.flag, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s --quantization %q: %v", c.id, c.flag, err)
		case c.err == "" && cfg.Quantization != c.want:
			t.Errorf("%s --quantization %q: resolved %q; want %q", c.id, c.flag, cfg.Quantization, c.want)
		}
	}
}

// An AWQ and a GPTQ INT4 checkpoint of one model hold the same bytes (4
// bits, an fp16 scale and a 4-bit zero per 128), less than bf16's.
func TestGPTQPricedAsAWQ(t *testing.T) {
	h100 := simtest.GPU(t, "h100-sxm")
	awq := Config{Model: simtest.Model(t, "Qwen/Qwen3-8B-AWQ"), GPU: h100}
	gptq := Config{Model: simtest.Model(t, "Qwen/Qwen3-8B-GPTQ-Int4"), GPU: h100}
	for _, c := range []*Config{&awq, &gptq} {
		if err := c.Resolve(); err != nil {
			t.Fatal(err)
		}
	}
	p := modelParams(&awq.Model)
	if a, g := weightBytesPerGPU(&awq, p), weightBytesPerGPU(&gptq, p); a != g || a >= weightBytesPerGPU(&Config{Model: awq.Model, GPU: h100, TensorParallelSize: 1}, p) {
		t.Errorf("weights: awq %.3g B, gptq %.3g B; want equal and below bf16", a, g)
	}
}
