package profiles

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseCheckpoint(t *testing.T) {
	for _, c := range []struct {
		id, org, base, suffix, format, unmodelled string
	}{
		{"Qwen/Qwen3-8B-AWQ", "Qwen", "Qwen3-8B", "AWQ", "awq", ""},
		{"Qwen/Qwen3-8B", "Qwen", "Qwen3-8B", "", "", ""},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "Qwen", "Qwen3-30B-A3B", "GPTQ-Int4", "gptq", ""},
		{"Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8", "Qwen", "Qwen2.5-7B-Instruct", "GPTQ-Int8", "", "GPTQ INT8 weights"},
		{"neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "neuralmagic", "Meta-Llama-3.1-70B-Instruct", "FP8", "fp8", ""},
		{"RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic", "RedHatAI", "Llama-3.1-8B-Instruct", "FP8-dynamic", "fp8", ""},
		{"RedHatAI/Llama-3.1-8B-Instruct-FP8-Dynamic", "RedHatAI", "Llama-3.1-8B-Instruct", "FP8-Dynamic", "fp8", ""},
		{"RedHatAI/Qwen3-8B-FP8-block", "RedHatAI", "Qwen3-8B", "FP8-block", "fp8", ""},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16", "RedHatAI", "Meta-Llama-3.1-8B-Instruct", "quantized.w4a16", "gptq", ""},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8", "RedHatAI", "Meta-Llama-3.1-8B-Instruct", "quantized.w8a8", "", "INT8 weights and activations (W8A8)"},
		{"someone/Qwen3-8B-W4A16", "someone", "Qwen3-8B", "W4A16", "gptq", ""},
		{"someone/Qwen3-8B-W8A8", "someone", "Qwen3-8B", "W8A8", "", "INT8 weights and activations (W8A8)"},
		{"nvidia/Llama-3.3-70B-Instruct-FP4", "nvidia", "Llama-3.3-70B-Instruct", "FP4", "nvfp4", ""},
		{"nvidia/Kimi-K2.5-NVFP4", "nvidia", "Kimi-K2.5", "NVFP4", "nvfp4", ""},
		{"MiniMaxAI/MiniMax-M3-MXFP8", "MiniMaxAI", "MiniMax-M3", "MXFP8", "", "MXFP8 weights"},
		{"unsloth/gpt-oss-20b-MXFP4", "unsloth", "gpt-oss-20b", "MXFP4", "mxfp4", ""},
		{"TheBloke/Llama-2-7B-GPTQ", "TheBloke", "Llama-2-7B", "GPTQ", "gptq", ""},
		{"Qwen3-8B-AWQ", "", "Qwen3-8B", "AWQ", "awq", ""},
		{"qwen3-8b", "", "qwen3-8b", "", "", ""},
		// A suffix must follow a separator and leave a name.
		{"org/AWQ", "org", "AWQ", "", "", ""},
		{"org/NotAWQ", "org", "NotAWQ", "", "", ""},
		{"org/-AWQ", "org", "-AWQ", "", "", ""},
	} {
		got := ParseCheckpoint(c.id)
		if got.ID != c.id || got.Org != c.org || got.Base != c.base || got.Suffix != c.suffix ||
			got.Format != c.format || got.Unmodelled != c.unmodelled {
			t.Errorf("ParseCheckpoint(%q) = %+v; want org %q base %q suffix %q format %q unmodelled %q",
				c.id, got, c.org, c.base, c.suffix, c.format, c.unmodelled)
		}
	}
}

func TestCatalogModelResolvesQuantizedIDs(t *testing.T) {
	cat := embeddedCatalog(t)
	for _, c := range []struct {
		id, model, format string
		blockFP8          bool
	}{
		{"Qwen/Qwen3-8B-AWQ", "qwen3-8b", "awq", false},
		{"qwen/qwen3-8b-awq", "qwen3-8b", "awq", false},
		{"Qwen/Qwen2.5-7B-Instruct-AWQ", "qwen2-7b", "awq", false},
		{"Qwen/Qwen3-30B-A3B-GPTQ-Int4", "qwen3-30b-a3b", "gptq", false},
		{"neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "llama-3.1-70b", "fp8", false},
		{"RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8-dynamic", "llama-3.1-8b", "fp8", false},
		{"nvidia/Llama-3.3-70B-Instruct-FP4", "llama-3.1-70b", "nvfp4", false},
		{"nvidia/Llama-3.3-70B-Instruct-FP8", "llama-3.1-70b", "fp8", false},
		// The model's own FP8 checkpoint keeps the profile's block scales;
		// another publisher's does not, unless its suffix says so.
		{"Qwen/Qwen3-14B-FP8", "qwen3-14b", "fp8", true},
		{"RedHatAI/Qwen3-14B-FP8-dynamic", "qwen3-14b", "fp8", false},
		{"RedHatAI/Qwen3-32B-FP8-block", "qwen3-32b", "fp8", true},
		{"Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3-235b-a22b-instruct-2507", "fp8", true},
		{"nvidia/MiniMax-M2.5-NVFP4", "minimax-m2.5", "nvfp4", true},
		// gpt-oss ships MXFP4 experts: its -FP4 is that format.
		{"someone/gpt-oss-20b-FP4", "gpt-oss-20b", "mxfp4", false},
		// Another publisher's upload of an unquantized model.
		{"unsloth/Qwen3-8B", "qwen3-8b", "", false},
		{"openai/gpt-oss-120b", "gpt-oss-120b", "", false},
	} {
		m, err := cat.Model(c.id)
		if err != nil {
			t.Errorf("Model(%q): %v", c.id, err)
			continue
		}
		if m.Name != c.model || m.Checkpoint.Format != c.format || (c.format == "fp8" && m.FP8BlockScaled != c.blockFP8) {
			t.Errorf("Model(%q) = %s, format %q, block FP8 %v; want %s, %q, %v",
				c.id, m.Name, m.Checkpoint.Format, m.FP8BlockScaled, c.model, c.format, c.blockFP8)
		}
	}
	// The catalog's own profile is not changed by a resolution.
	if m, _ := cat.Model("qwen3-14b"); m.Checkpoint.Format != "" || !m.FP8BlockScaled {
		t.Errorf("qwen3-14b after resolving its checkpoints: %+v", m.Checkpoint)
	}
}

func TestCatalogModelRefusesUnknownAndUnmodelled(t *testing.T) {
	cat := embeddedCatalog(t)
	var unmodelled *UnmodelledFormatError
	if _, err := cat.Model("Qwen/Qwen3-8B-GPTQ-Int8"); !errors.As(err, &unmodelled) ||
		unmodelled.Model != "qwen3-8b" || !strings.Contains(err.Error(), "GPTQ INT8") {
		t.Errorf("GPTQ-Int8: %v; want an UnmodelledFormatError naming qwen3-8b", err)
	}
	var unknown *UnknownError
	for _, id := range []string{"Qwen/Qwen9-8B-AWQ", "MiniMaxAI/MiniMax-M3-MXFP8", "deepseek-ai/DeepSeek-V3.2", "AWQ"} {
		if _, err := cat.Model(id); !errors.As(err, &unknown) {
			t.Errorf("Model(%q): %v; want an UnknownError", id, err)
		}
	}
}

func TestCheckpointDescribe(t *testing.T) {
	ck := ParseCheckpoint("Qwen/Qwen3-8B-AWQ")
	if got := ck.Describe("qwen3-8b", ""); !strings.HasPrefix(got, "Qwen/Qwen3-8B-AWQ resolved to qwen3-8b with awq weights (") {
		t.Errorf("Describe = %q", got)
	}
	fp4 := ParseCheckpoint("nvidia/Llama-3.3-70B-Instruct-FP4")
	if got := fp4.Describe("llama-3.1-70b", "mxfp4"); !strings.Contains(got, "with mxfp4 weights") {
		t.Errorf("Describe with the flag's format = %q", got)
	}
	if got := ParseCheckpoint("Qwen/Qwen3-8B").Describe("qwen3-8b", ""); got != "" {
		t.Errorf("Describe of an unquantized id = %q; want empty", got)
	}
}

func TestGPUNameWithSpaces(t *testing.T) {
	cat := embeddedCatalog(t)
	for _, name := range []string{"H100 NVL", "h100  nvl", "H100-NVL"} {
		if g, err := cat.GPU(name); err != nil || g.Name != "h100-nvl" {
			t.Errorf("GPU(%q) = %q, %v; want h100-nvl", name, g.Name, err)
		}
	}
}

// FuzzParseCheckpoint checks the parser's invariants on any id: the parts
// put back together are the (trimmed) id, a format is always one the
// suffix accepts, and the catalog's lookup of the id never panics.
func FuzzParseCheckpoint(f *testing.F) {
	for _, id := range []string{
		"Qwen/Qwen3-8B-AWQ", "RedHatAI/Llama-3.1-8B-Instruct-FP8-dynamic", "x/-fp8", "a/b/c-NVFP4",
		"quantized.w8a8", "m-quantized.w4a16", "  Qwen/Qwen3-8B ", "", "/", "é-FP8", "x_FP4", "x.gptq-int4",
	} {
		f.Add(id)
	}
	cat, err := Embedded()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, id string) {
		c := ParseCheckpoint(id)
		trimmed := strings.TrimSpace(id)
		if c.ID != trimmed {
			t.Fatalf("ID %q, want %q", c.ID, trimmed)
		}
		name := c.Base
		if c.Suffix != "" {
			if c.Base == "" {
				t.Fatalf("%q: a suffix with no base name", id)
			}
			name = c.Base + c.ID[len(c.ID)-len(c.Suffix)-1:len(c.ID)-len(c.Suffix)] + c.Suffix
		}
		rebuilt := name
		if c.Org != "" || strings.Contains(c.ID, "/") {
			rebuilt = c.Org + "/" + name
		}
		if rebuilt != c.ID {
			t.Fatalf("%q: parts %+v rebuild %q", id, c, rebuilt)
		}
		if c.Format != "" && (c.Unmodelled != "" || !slices.Contains(c.Accepts, c.Format) || c.Scheme == "") {
			t.Fatalf("%q: format %q, accepts %v, unmodelled %q, scheme %q", id, c.Format, c.Accepts, c.Unmodelled, c.Scheme)
		}
		if c.Quantized() != (c.Suffix != "") {
			t.Fatalf("%q: suffix %q but quantized %v", id, c.Suffix, c.Quantized())
		}
		if utf8.ValidString(id) && !utf8.ValidString(c.Base) {
			t.Fatalf("%q: base %q is not valid UTF-8", id, c.Base)
		}
		m, err := cat.Model(id)
		if err == nil && c.Format != "" && m.Checkpoint.Format == "" {
			t.Fatalf("%q resolved to %s without the format %q", id, m.Name, c.Format)
		}
	})
}

// An id of an architecture thinkcap does not model says which, quantized
// or not, with the vLLM file that implements it.
func TestUnknownModelSaysWhyNotModelled(t *testing.T) {
	cat := embeddedCatalog(t)
	for id, want := range map[string]string{
		"Qwen/Qwen3-Next-80B-A3B-Instruct-FP8":      "Gated DeltaNet",
		"Qwen/Qwen3.5-35B-A3B":                      "qwen3_5.py",
		"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8": "Mamba-2",
		"deepseek-ai/DeepSeek-V3.2":                 "DeepSeek Sparse Attention",
		"deepseek-ai/DeepSeek-V4-Pro":               "deepseek_v4.py",
	} {
		var unknown *UnknownError
		if _, err := cat.Model(id); !errors.As(err, &unknown) || !strings.Contains(unknown.Why, want) ||
			!strings.Contains(err.Error(), "which thinkcap does not model") {
			t.Errorf("Model(%q): %v; want an UnknownError saying %q", id, err, want)
		}
	}
	var unknown *UnknownError
	if _, err := cat.Model("MiniMaxAI/MiniMax-M3-MXFP8"); !errors.As(err, &unknown) || unknown.Why != "" {
		t.Errorf("an architecture thinkcap has no word on: %v; want no reason given", err)
	}
}
