package size

import (
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

func TestSplitOutsideBraces(t *testing.T) {
	got := splitOutsideBraces(`off, {"method":"ngram","num_speculative_tokens":3},{"method":"eagle3","num_speculative_tokens":2}`)
	if len(got) != 3 || got[0] != "off" || !strings.HasPrefix(got[2], `{"method":"eagle3"`) {
		t.Errorf("got %q", got)
	}
}

// TestQueryNamesTheFlag: each malformed query is refused with the flag at
// fault in the message, as thinkcap size prints it.
func TestQueryNamesTheFlag(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	valid := func() Query {
		return Query{Models: []string{"qwen3-8b"}, GPUs: []string{"h100-sxm"}, TP: []int{1},
			KVCacheDtypes: []string{"auto"}, Speculative: "off", SLO: "ttft_p99=1s", MaxReplicas: 4}
	}
	// field is the option field the error names (the command shows its
	// flag); text what its message says.
	tests := []struct {
		name        string
		edit        func(*Query)
		field, text string
	}{
		{"no slo", func(q *Query) { q.SLO = "" }, "SLO", "no SLO given"},
		{"replicas", func(q *Query) { q.MaxReplicas = 0 }, "MaxReplicas", "must be at least 1"},
		{"price", func(q *Query) { q.Prices = []string{"h100-sxm=free"} }, "Prices", "want gpu=USD"},
		{"preemption", func(q *Query) { q.MaxPreemptionRate = -1 }, "MaxPreemptionRate", "must be at least 0"},
		{"gpu", func(q *Query) { q.GPUs = []string{"nope"} }, "GPUs", "nope"},
		{"model", func(q *Query) { q.Models = []string{"nope"} }, "Models", "nope"},
		{"tp", func(q *Query) { q.TP = []int{0} }, "TP", "tensor-parallel-size"},
		{"spec", func(q *Query) { q.Speculative = "off,{bad" }, "", "--speculative-config"},
		{"draft", func(q *Query) { q.Speculative = `{"method":"draft_model","model":"nope","num_speculative_tokens":2}` }, "Speculative", "draft model"},
		{"acceptance", func(q *Query) {
			q.Speculative, q.Shared.Acceptance = `{"method":"ngram","num_speculative_tokens":2}`, "x"
		}, "Acceptance", "not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := valid()
			tt.edit(&q)
			_, err := q.Options()
			if err == nil {
				_, err = q.Candidates(cat)
			}
			if err == nil || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("got %v, want an error saying %s", err, tt.text)
			}
			if tt.field != "" && !slices.Contains(inputerr.Fields(err), tt.field) {
				t.Errorf("got %v (fields %v), want one naming %s", err, inputerr.Fields(err), tt.field)
			}
		})
	}
	q := valid()
	if _, err := q.Options(); err != nil {
		t.Fatal(err)
	}
	if c, err := q.Candidates(cat); err != nil || len(c) != 1 {
		t.Fatalf("valid query: %d candidates, %v", len(c), err)
	}
}

// TestQueryReportsEveryProblem: Options reports each bad field at once, not
// the first, and a --slo that does not parse is not also reported missing.
func TestQueryReportsEveryProblem(t *testing.T) {
	q := Query{SLO: "ttft_p99", MaxReplicas: 0, MaxPreemptionRate: -1, Prices: []string{"h100-sxm=free"}}
	_, err := q.Options()
	want := []string{"MaxReplicas", "SLO", "Prices", "MaxPreemptionRate"}
	if got := inputerr.Fields(err); !slices.Equal(got, want) {
		t.Fatalf("fields %v, want %v: %v", got, want, err)
	}
	if strings.Contains(err.Error(), "at least one SLO") {
		t.Errorf("a bad --slo also reported missing: %v", err)
	}
}

// A quantized checkpoint and its base model are two candidates, named
// apart, each simulated with its own weights.
func TestQuantizedCheckpointCandidates(t *testing.T) {
	q := Query{Models: []string{"Qwen/Qwen3-8B", "Qwen/Qwen3-8B-AWQ"}, GPUs: []string{"h100-sxm"}}
	cands, err := q.Candidates(simtest.Catalog(t))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, c := range cands {
		if c.Err != nil {
			t.Fatalf("%s: %v", c.Name(), c.Err)
		}
		names[c.Name()] = c.Config.Quantization
	}
	if len(names) != len(cands) || len(cands) < 2 {
		t.Fatalf("candidates %v: want the base model and the AWQ checkpoint named apart", names)
	}
	for name, quant := range names {
		if strings.HasPrefix(name, "qwen3-8b(awq) ") != (quant == "awq") {
			t.Errorf("candidate %q runs quantization %q", name, quant)
		}
	}
}
