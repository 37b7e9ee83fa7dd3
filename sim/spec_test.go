package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestParseSpeculativeConfig parses the examples of vLLM's speculative
// decoding docs (vLLM's docs/features/spec_decode.md) and the method inference rules.
func TestParseSpeculativeConfig(t *testing.T) {
	cases := []struct {
		in   string
		want *SpeculativeConfig
	}{
		{"", nil},
		{"off", nil},
		{`{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 2, "prompt_lookup_max": 5}`,
			&SpeculativeConfig{Method: SpecNgram, NumSpeculativeTokens: 4}},
		{`{"model": "Qwen/Qwen3-0.6B", "num_speculative_tokens": 5, "method": "draft_model"}`,
			&SpeculativeConfig{Method: SpecDraftModel, Model: "Qwen/Qwen3-0.6B", NumSpeculativeTokens: 5}},
		{`{"method":"mtp","num_speculative_tokens":1}`, &SpeculativeConfig{Method: SpecMTP, NumSpeculativeTokens: 1}},
		{`{"method":"eagle3","model":"RedHatAI/Qwen3-8B-speculator.eagle3","num_speculative_tokens":3}`,
			&SpeculativeConfig{Method: SpecEagle3, Model: "RedHatAI/Qwen3-8B-speculator.eagle3", NumSpeculativeTokens: 3}},
		{`{"method":"suffix","num_speculative_tokens":8,"suffix_decoding_max_tree_depth":24}`,
			&SpeculativeConfig{Method: SpecSuffix, NumSpeculativeTokens: 8}},
		// No method: model "ngram" gives ngram, any other model draft_model.
		{`{"model":"ngram","num_speculative_tokens":3}`, &SpeculativeConfig{Method: SpecNgram, NumSpeculativeTokens: 3}},
		{`{"model":"Qwen/Qwen3-0.6B","num_speculative_tokens":2}`,
			&SpeculativeConfig{Method: SpecDraftModel, Model: "Qwen/Qwen3-0.6B", NumSpeculativeTokens: 2}},
		// Deprecated model-specific MTP names.
		{`{"method":"deepseek_mtp","num_speculative_tokens":1}`, &SpeculativeConfig{Method: SpecMTP, NumSpeculativeTokens: 1}},
		{`{"method":"qwen3_next_mtp","num_speculative_tokens":2}`, &SpeculativeConfig{Method: SpecMTP, NumSpeculativeTokens: 2}},
		{` {"method":"eagle","model":null,"num_speculative_tokens":2,"model":"h"} `,
			&SpeculativeConfig{Method: SpecEagle, Model: "h", NumSpeculativeTokens: 2}},
	}
	for _, tc := range cases {
		got, err := ParseSpeculativeConfig(tc.in)
		if err != nil {
			t.Errorf("ParseSpeculativeConfig(%q): %v", tc.in, err)
			continue
		}
		if (got == nil) != (tc.want == nil) || got != nil && (got.Method != tc.want.Method || got.Model != tc.want.Model ||
			got.NumSpeculativeTokens != tc.want.NumSpeculativeTokens || got.AcceptanceRates != nil) {
			t.Errorf("ParseSpeculativeConfig(%q) = %+v; want %+v", tc.in, got, tc.want)
		}
	}
}

func TestParseSpeculativeConfigErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"method":"ngram","num_speculative_tokens":3,"lookahead":2,"foo":1}`, "unknown field(s) foo, lookahead"},
		{`{"method":"medusa","model":"m","num_speculative_tokens":3}`, `method "medusa" is not modelled; use one of ngram, suffix, eagle, eagle3, mtp, draft_model`},
		{`{"method":"ngram"}`, "num_speculative_tokens is required"},
		{`{"method":"ngram","num_speculative_tokens":0}`, "num_speculative_tokens 0 must be > 0"},
		{`{"method":"ngram","num_speculative_tokens":2.5}`, "num_speculative_tokens 2.5 is not an integer"},
		{`{"method":"ngram","num_speculative_tokens":"3"}`, "is not an integer"},
		{`{"method":3,"num_speculative_tokens":3}`, "method must be a string"},
		{`{"num_speculative_tokens":3}`, "give a method or a model"},
		{`{"method":"eagle3","num_speculative_tokens":3}`, "method eagle3 needs a model"},
		{`{"method":"ngram",`, "invalid JSON"},
		{`[1,2]`, "invalid JSON"},
		{`{"method":"ngram","num_speculative_tokens":3} {}`, "trailing data"},
	}
	for _, tc := range cases {
		_, err := ParseSpeculativeConfig(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseSpeculativeConfig(%q) error = %v; want %q", tc.in, err, tc.want)
		}
	}
}

func TestSlots(t *testing.T) {
	for _, tc := range []struct {
		method          string
		lookahead, slot int
		eagle           bool
	}{
		{SpecNgram, 0, 0, false}, {SpecSuffix, 0, 0, false}, {SpecEagle, 4, 0, true}, {SpecEagle3, 4, 0, true},
		{SpecMTP, 4, 0, true}, {SpecDraftModel, 4, 1, false},
	} {
		s := &SpeculativeConfig{Method: tc.method, NumSpeculativeTokens: 4}
		if s.LookaheadSlots() != tc.lookahead || s.DraftSlots() != tc.slot || s.usesEagle() != tc.eagle {
			t.Errorf("%s: lookahead %d, draft slots %d, eagle %v", tc.method, s.LookaheadSlots(), s.DraftSlots(), s.usesEagle())
		}
	}
	var off *SpeculativeConfig
	if off.LookaheadSlots() != 0 || off.DraftSlots() != 0 || off.usesEagle() || off.Validate() != nil {
		t.Error("nil config has slots")
	}
}

func TestParseAcceptance(t *testing.T) {
	rates, err := ParseAcceptance("2.0", 3)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := NewAcceptanceSampler(rates)
	if al := a.MeanAcceptanceLength(); math.Abs(al-2) > 1e-9 {
		t.Errorf("AL 2.0 → rates %v with AL %v", rates, al)
	}
	alpha := rates[0]
	for i, r := range rates {
		if want := math.Pow(alpha, float64(i+1)); math.Abs(r-want) > 1e-12 {
			t.Errorf("rates %v are not a geometric chain", rates)
		}
	}
	for _, tc := range []struct {
		in   string
		k    int
		want []float64
	}{
		{"1", 3, []float64{0, 0, 0}},
		{"4", 3, []float64{1, 1, 1}},
		{"0.8, 0.6,0.3", 3, []float64{0.8, 0.6, 0.3}},
		{"0.7", 1, []float64{0.7}},
		{"1.7", 1, []float64{0.7}},
	} {
		got, err := ParseAcceptance(tc.in, tc.k)
		if err != nil {
			t.Errorf("ParseAcceptance(%q, %d): %v", tc.in, tc.k, err)
			continue
		}
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-9 {
				t.Errorf("ParseAcceptance(%q, %d) = %v; want %v", tc.in, tc.k, got, tc.want)
				break
			}
		}
	}
	for _, tc := range []struct {
		in   string
		k    int
		want string
	}{
		{"5", 3, "mean acceptance length, which must be in [1, 4]"},
		{"0.5", 3, "must be in [1, 4]"},
		{"0.5,0.7", 2, "non-increasing"},
		{"0.5,0.4", 3, "2 per-position rates given, want 3"},
		{"1.2,0.4", 2, "outside [0, 1]"},
		{"fast", 2, `"fast" is not a number`},
		{"NaN", 2, "is not a number"},
		{"2", 0, "num_speculative_tokens > 0"},
	} {
		_, err := ParseAcceptance(tc.in, tc.k)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--acceptance") {
			t.Errorf("ParseAcceptance(%q, %d) error = %v; want %q", tc.in, tc.k, err, tc.want)
		}
	}
}

func TestDefaultAcceptance(t *testing.T) {
	for method, want := range map[string]float64{SpecEagle: 2.0, SpecEagle3: 2.0, SpecDraftModel: 2.2, SpecNgram: 1.5, SpecSuffix: 1.5} {
		a, err := NewAcceptanceSampler(DefaultAcceptance(method, 3))
		if err != nil {
			t.Fatal(err)
		}
		if al := a.MeanAcceptanceLength(); math.Abs(al-want) > 1e-6 {
			t.Errorf("%s at K=3: AL %v; want %v", method, al, want)
		}
	}
	if r := DefaultAcceptance(SpecMTP, 2); math.Abs(r[0]-0.8) > 1e-12 || math.Abs(r[1]-0.64) > 1e-12 {
		t.Errorf("mtp rates %v; want [0.8 0.64]", r)
	}
	if r := DefaultAcceptance(SpecEagle3, 7); len(r) != 7 || checkRates(r, 7) != nil {
		t.Errorf("eagle3 K=7 rates %v", r)
	}
	if DefaultAcceptance("medusa", 3) != nil || DefaultAcceptance(SpecNgram, 0) != nil {
		t.Error("defaults for an unknown method or K=0")
	}
}

// TestAcceptanceSamplerMatchesRates: over 1e6 draws with a fixed seed the
// mean acceptance length is within 1 % of the rates', and each position is
// accepted at its rate.
func TestAcceptanceSamplerMatchesRates(t *testing.T) {
	for _, in := range []string{"2.0", "3.3", "1.4"} {
		rates, err := ParseAcceptance(in, 4)
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewAcceptanceSampler(rates)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		const n = 1_000_000
		atLeast := make([]int, a.K()+1)
		sum := 0
		for range n {
			k := a.Sample(r)
			if k < 0 || k > a.K() {
				t.Fatalf("Sample() = %d outside 0..%d", k, a.K())
			}
			sum += k
			for i := 1; i <= k; i++ {
				atLeast[i]++
			}
		}
		al := 1 + float64(sum)/n
		if e := refRelErr(al, a.MeanAcceptanceLength()); math.Abs(e) > 0.01 {
			t.Errorf("AL %s: empirical %v; want %v ± 1%%", in, al, a.MeanAcceptanceLength())
		}
		for i, rate := range rates {
			if got := float64(atLeast[i+1]) / n; math.Abs(got-rate) > 0.005 {
				t.Errorf("AL %s: position %d accepted %.4f of the time; want %.4f", in, i, got, rate)
			}
		}
	}
	a, _ := NewAcceptanceSampler([]float64{0.9, 0.5, 0.1})
	r := rand.New(rand.NewPCG(3, 4))
	if allocs := testing.AllocsPerRun(1000, func() { a.Sample(r) }); allocs != 0 {
		t.Errorf("Sample allocates %v times", allocs)
	}
	if _, err := NewAcceptanceSampler(nil); err == nil {
		t.Error("NewAcceptanceSampler(nil) succeeded")
	}
	if _, err := NewAcceptanceSampler([]float64{0.2, 0.5}); err == nil {
		t.Error("NewAcceptanceSampler accepted increasing rates")
	}
}

func FuzzParseSpeculativeConfig(f *testing.F) {
	for _, s := range []string{`{"method":"ngram","num_speculative_tokens":3}`, `{"model":"x","num_speculative_tokens":1}`,
		`{"method":"deepseek_mtp","num_speculative_tokens":2,"prompt_lookup_max":3}`, "off", `{`, `{"a":1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sc, err := ParseSpeculativeConfig(s)
		if err != nil {
			return
		}
		if sc != nil && (sc.Validate() != nil || sc.NumSpeculativeTokens <= 0 || !slices.Contains(specMethods, sc.Method)) {
			t.Fatalf("ParseSpeculativeConfig(%q) = %+v, which does not validate", s, sc)
		}
	})
}

func FuzzParseAcceptance(f *testing.F) {
	for _, s := range []string{"2.0", "0.8,0.5,0.2", "1", "4", "0.5,0.6", "x"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, k int) {
		k = k%16 + 1
		if k <= 0 {
			k += 16
		}
		rates, err := ParseAcceptance(s, k)
		if err != nil {
			return
		}
		if _, err := NewAcceptanceSampler(rates); err != nil || len(rates) != k {
			t.Fatalf("ParseAcceptance(%q, %d) = %v, which is not a valid rate list: %v", s, k, rates, err)
		}
	})
}
