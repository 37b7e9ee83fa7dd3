package fidelity

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/thinkcap/thinkcap/profiles"
)

// ModelErrorLevels are the probability levels model-error.yaml keeps the
// residual quantiles at: any confidence from 0.5 to 0.98 interpolates
// between two of them.
var ModelErrorLevels = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.975, 0.99}

// residual is one point's cross-validated error on one metric,
// ln(measured/predicted), with the regime and deployment it belongs to.
type residual struct {
	metric, concurrency, phase, deployment, generation string
	r                                                  float64
}

// residualsOf are the points' cross-validated residuals: what the model
// gets wrong on a deployment it was not fitted on, as a new user's
// deployment is.
func residualsOf(points []*Point) []residual {
	var out []residual
	for _, p := range points {
		conc, phase, gen := p.regimeOf("concurrency"), p.regimeOf("phase"), p.regimeOf("generation")
		for _, m := range slices.Sorted(maps.Keys(p.CV)) {
			pr := p.CV[m]
			if pr.Measured > 0 && pr.Predicted > 0 {
				out = append(out, residual{m, conc, phase, p.Deployment, gen, math.Log(pr.Measured / pr.Predicted)})
			}
		}
	}
	return out
}

// modelErrorOf is the residuals' quantiles per metric and regime (both
// keys, each alone, and the whole corpus), leaving out one deployment's
// (none when exclude is empty).
func modelErrorOf(res []residual, exclude, source string) *profiles.ModelError {
	me := &profiles.ModelError{Source: source, Levels: ModelErrorLevels, Metrics: map[string][]profiles.ModelErrorCell{}}
	type key struct{ metric, conc, phase, gen string }
	vals := map[key][]float64{}
	deps := map[key]map[string]bool{}
	for _, r := range res {
		if r.deployment == exclude && exclude != "" {
			continue
		}
		for _, k := range []key{{r.metric, r.concurrency, r.phase, ""}, {r.metric, r.concurrency, "", ""}, {r.metric, "", r.phase, ""}, {r.metric, "", "", ""}, {r.metric, "", "", r.generation}} {
			vals[k] = append(vals[k], r.r)
			if deps[k] == nil {
				deps[k] = map[string]bool{}
			}
			deps[k][r.deployment] = true
		}
	}
	keys := slices.SortedFunc(maps.Keys(vals), func(a, b key) int {
		for _, c := range [][2]string{{a.metric, b.metric}, {a.gen, b.gen}, {a.conc, b.conc}, {a.phase, b.phase}} {
			if c[0] != c[1] {
				if c[0] < c[1] {
					return -1
				}
				return 1
			}
		}
		return 0
	})
	for _, k := range keys {
		v := vals[k]
		slices.Sort(v)
		q := make([]float64, len(ModelErrorLevels))
		for i, l := range ModelErrorLevels {
			q[i] = sortedQuantile(v, l)
		}
		me.Metrics[k.metric] = append(me.Metrics[k.metric], profiles.ModelErrorCell{
			Concurrency: k.conc, Phase: k.phase, Generation: k.gen, Points: len(v), Deployments: len(deps[k]), Q: q})
	}
	return me
}

// sortedQuantile is the p-quantile of sorted values, interpolated between
// order statistics (Hyndman and Fan's type 7, numpy's default).
func sortedQuantile(v []float64, p float64) float64 {
	h := p * float64(len(v)-1)
	i := int(math.Floor(h))
	if i+1 >= len(v) {
		return v[len(v)-1]
	}
	return v[i] + (h-float64(i))*(v[i+1]-v[i])
}

// Coverage is how often the model interval held the measured value, each
// deployment's interval built from the other deployments' residuals only
// (leave-one-deployment-out), per metric and regime.
type Coverage struct {
	Metric     string  `json:"metric"`
	Kind       string  `json:"kind"` // "all", "concurrency" or "phase"
	Name       string  `json:"name"`
	Points     int     `json:"points"`
	Confidence float64 `json:"confidence"`
	Covered    float64 `json:"covered"` // the share of points inside
}

// CoverageConfidence is the interval the scoreboard checks: the default
// of simulate's --confidence.
const CoverageConfidence = 0.9

// coverageOf is the leave-one-deployment-out coverage of the model
// intervals at confidence.
func coverageOf(res []residual, confidence float64) []Coverage {
	byDep := map[string]*profiles.ModelError{}
	type key struct{ metric, kind, name string }
	in, n := map[key]int{}, map[key]int{}
	for _, r := range res {
		me, ok := byDep[r.deployment]
		if !ok {
			me = modelErrorOf(res, r.deployment, "")
			byDep[r.deployment] = me
		}
		lo, _, hi, _, ok := me.Band(r.metric, profiles.ErrorRegime{Concurrency: r.concurrency, Phase: r.phase, Generation: r.generation}, confidence)
		if !ok {
			continue // no other deployment measured the metric
		}
		for _, k := range []key{{r.metric, "all", ""}, {r.metric, "concurrency", r.concurrency}, {r.metric, "phase", r.phase}, {r.metric, "generation", r.generation}} {
			n[k]++
			if lo <= r.r && r.r <= hi {
				in[k]++
			}
		}
	}
	order := map[string]int{"all": 0, "concurrency": 1, "phase": 2, "generation": 3, "1": 0, "2-32": 1, "33-63": 2, "64-255": 3, "256+": 4}
	keys := slices.SortedFunc(maps.Keys(n), func(a, b key) int {
		if a.metric != b.metric {
			return slices.Index(Metrics3, a.metric) - slices.Index(Metrics3, b.metric)
		}
		if a.kind != b.kind {
			return order[a.kind] - order[b.kind]
		}
		if order[a.name] != order[b.name] {
			return order[a.name] - order[b.name]
		}
		if a.name < b.name {
			return -1
		}
		return 1
	})
	var out []Coverage
	for _, k := range keys {
		out = append(out, Coverage{Metric: k.metric, Kind: k.kind, Name: k.name, Points: n[k],
			Confidence: confidence, Covered: float64(in[k]) / float64(n[k])})
	}
	return out
}

// modelErrorSource is the provenance model-error.yaml records.
func modelErrorSource(points, records int) string {
	return fmt.Sprintf("thinkcap fidelity --model-error: leave-one-deployment-out residuals, ln(measured/predicted), of %d replayed points of the measurement corpus (%d records, testdata/measured)", points, records)
}
