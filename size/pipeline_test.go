package size

import (
	"slices"
	"testing"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/simtest"
)

// TestPipelineGrid: --pp is a list like --tp, expanded after it; a
// candidate's name shows TP×PP when PP > 1, and a replica costs TP × PP
// GPUs.
func TestPipelineGrid(t *testing.T) {
	cat := simtest.Catalog(t)
	q := Query{Models: []string{"qwen3-8b"}, GPUs: []string{"h100-sxm"}, TP: []int{1, 2}, PP: []int{1, 2},
		KVCacheDtypes: []string{"auto"}, Speculative: "off"}
	cands, err := q.Candidates(cat)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cands {
		if c.Err != nil {
			t.Fatalf("%s: %v", c.Name(), c.Err)
		}
		names = append(names, c.Name())
	}
	want := []string{
		"qwen3-8b h100-sxm×1 kv=auto spec=off seqs=1024",
		"qwen3-8b h100-sxm×1×2 kv=auto spec=off seqs=1024",
		"qwen3-8b h100-sxm×2 kv=auto spec=off seqs=1024",
		"qwen3-8b h100-sxm×2×2 kv=auto spec=off seqs=1024",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("candidates %q; want %q", names, want)
	}
	for i, wantGPUs := range []int{1, 2, 2, 4} {
		o := newOutcome(cands[i])
		o.setMeasurement(3, Measurement{})
		if o.GPUs != 3*wantGPUs || o.PipelineParallelSize != cands[i].Config.PipelineParallelSize {
			t.Errorf("%s: %d GPUs for 3 replicas (PP %d); want %d", names[i], o.GPUs, o.PipelineParallelSize, 3*wantGPUs)
		}
		if cands[i].Config.GPUsPerReplica() != wantGPUs {
			t.Errorf("%s: GPUsPerReplica %d; want %d", names[i], cands[i].Config.GPUsPerReplica(), wantGPUs)
		}
	}
	// PP and TP variants are their own baselines.
	if cands[0].baselineKey() == cands[1].baselineKey() {
		t.Error("PP 1 and 2 share a baseline key")
	}

	q.PP = []int{0}
	if _, err := q.Candidates(cat); !slices.Contains(inputerr.Fields(err), "PP") {
		t.Errorf("--pp 0: %v; want an error naming PP (--pp)", err)
	}
	// More stages than layers is a failed candidate, not an error.
	q.PP = []int{64}
	cands, err = q.Candidates(cat)
	if err != nil || len(cands) != 2 || cands[0].Err == nil {
		t.Errorf("--pp 64 on 36 layers: %v, %+v", err, cands)
	}
}
