package profiles

import "testing"

// TestLineage: every size and quantized checkpoint of a lineage is
// one family, and architectures apart are apart (Qwen3 dense and MoE,
// Llama 2 and Llama 3).
func TestLineage(t *testing.T) {
	cat, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	family := func(name string) string {
		m, err := cat.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		return m.Lineage()
	}
	for _, same := range [][]string{
		{"qwen3-8b", "qwen3-14b", "qwen3-32b", "Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-14B-AWQ"},
		{"qwen3-30b-a3b", "qwen3-235b-a22b", "qwen3-235b-a22b-instruct-2507"},
		{"llama-3.1-8b", "llama-3.1-70b", "deepseek-r1-distill-llama-8b"},
		{"llama-2-7b", "llama-2-70b", "codellama-34b"},
		{"gpt-oss-20b", "gpt-oss-120b"},
	} {
		for _, m := range same[1:] {
			if family(m) != family(same[0]) {
				t.Errorf("%s is family %q, %s %q: one lineage", m, family(m), same[0], family(same[0]))
			}
		}
	}
	for _, apart := range [][2]string{{"qwen3-8b", "qwen3-30b-a3b"}, {"llama-2-7b", "llama-3.1-8b"}, {"qwen3-8b", "llama-3.1-8b"}, {"deepseek-r1", "kimi-k2.5"}} {
		if family(apart[0]) == family(apart[1]) {
			t.Errorf("%s and %s are both family %q", apart[0], apart[1], family(apart[0]))
		}
	}
}
