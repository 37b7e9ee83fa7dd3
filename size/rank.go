package size

import (
	"cmp"
	"slices"
)

// Rank orders outcomes: passing ones by cost per hour, then cost per
// million output tokens, then the most requests a second one replica
// sustains (at one cost, the deployment with the most headroom before it
// needs another replica), then name; then failing ones by name. A failing
// candidate never ranks above a passing one, however cheap. It also links
// each FP8 KV or speculative variant to its baseline (same model, GPU, TP
// and max_num_seqs) so the table can show what the variant buys. The input
// is not modified.
func Rank(outs []Outcome) []Outcome {
	ranked := slices.Clone(outs)
	for i := range ranked {
		ranked[i].FailedSLOs = append([]string{}, ranked[i].Failed...)
	}
	linkBaselines(ranked)
	slices.SortStableFunc(ranked, func(a, b Outcome) int {
		if a.Passes != b.Passes {
			if a.Passes {
				return -1
			}
			return 1
		}
		if a.Passes {
			if c := cmp.Compare(a.CostPerHour, b.CostPerHour); c != 0 {
				return c
			}
			if c := cmp.Compare(a.CostPerMillionOutputTokens, b.CostPerMillionOutputTokens); c != 0 {
				return c
			}
			if c := cmp.Compare(b.MaxRatePerReplica, a.MaxRatePerReplica); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return ranked
}

func linkBaselines(outs []Outcome) {
	base := map[string]int{}
	for i := range outs {
		if outs[i].cand.isBaseline() {
			base[outs[i].cand.baselineKey()] = i
		}
	}
	for i := range outs {
		o := &outs[i]
		b, ok := base[o.cand.baselineKey()]
		if !ok || b == i {
			continue
		}
		o.Baseline = outs[b].Name
		if o.Passes && outs[b].Passes && outs[b].CostPerHour > 0 {
			d := o.CostPerHour/outs[b].CostPerHour - 1
			o.CostVsBaseline = &d
		}
	}
}
