package size

import (
	"strings"
	"testing"

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
	tests := []struct {
		name string
		edit func(*Query)
		want string
	}{
		{"no slo", func(q *Query) { q.SLO = "" }, "--slo"},
		{"replicas", func(q *Query) { q.MaxReplicas = 0 }, "--max-replicas"},
		{"price", func(q *Query) { q.Prices = []string{"h100-sxm=free"} }, "--price"},
		{"preemption", func(q *Query) { q.MaxPreemptionRate = -1 }, "--max-preemption-rate"},
		{"gpu", func(q *Query) { q.GPUs = []string{"nope"} }, "--gpus"},
		{"model", func(q *Query) { q.Models = []string{"nope"} }, "--model"},
		{"tp", func(q *Query) { q.TP = []int{0} }, "--tp"},
		{"spec", func(q *Query) { q.Speculative = "off,{bad" }, "--speculative-config"},
		{"draft", func(q *Query) { q.Speculative = `{"method":"draft_model","model":"nope","num_speculative_tokens":2}` }, "--speculative-config: draft model"},
		{"acceptance", func(q *Query) {
			q.Speculative, q.Shared.Acceptance = `{"method":"ngram","num_speculative_tokens":2}`, "x"
		}, "--acceptance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := valid()
			tt.edit(&q)
			_, err := q.Options()
			if err == nil {
				_, err = q.Candidates(cat)
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error naming %s", err, tt.want)
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
