package fidelity

import (
	"fmt"

	"github.com/thinkcap/thinkcap/profiles"
	"maps"
	"math"
	"slices"
	"sort"
)

// Scoreboard is the corpus replayed: errors per metric overall, per
// regime and per deployment, in-sample and cross-validated, and every
// point. Errors are fractions (0.1 = 10 %).
type Scoreboard struct {
	Records int `json:"records"` // corpus records read
	Points  int `json:"points"`  // records replayed
	Sources int `json:"sources"` // source families among the points
	// MAPE is the mean absolute relative error per metric with the
	// coefficients the simulator uses; CVMAPE the same with each
	// deployment predicted by coefficients fitted without it.
	MAPE   map[string]float64 `json:"mape"`
	CVMAPE map[string]float64 `json:"cv_mape"`
	// CVFamilyMAPE and CVSourceMAPE are CVMAPE with every point of the
	// model's family (profiles.Model.Lineage), or of the record's source, predicted
	// by coefficients fitted without any of them.
	CVFamilyMAPE map[string]float64 `json:"cv_family_mape"`
	CVSourceMAPE map[string]float64 `json:"cv_source_mape"`
	// Bias is the median signed relative error (predicted/measured - 1)
	// per metric, in-sample; OptimisticShare the share of saturated
	// throughput points predicted more than OptimisticMargin above the
	// measurement.
	Bias            map[string]float64 `json:"bias"`
	OptimisticShare float64            `json:"optimistic_share"`
	// MAPECountingExcluded is MAPE with the figures an exclusion rule
	// leaves out (Excluded's below-prefill-floor and test-run-cached)
	// counted as well: what the rules take off the error.
	MAPECountingExcluded map[string]float64 `json:"mape_counting_excluded"`
	Regimes              []Regime           `json:"regimes"`
	// Deployments are the per-deployment rows (model, GPU, TP,
	// quantization, KV dtype).
	Deployments []Regime     `json:"deployments"`
	Skipped     []SkipReason `json:"skipped"`
	// Excluded is every record not replayed and every metric of a
	// replayed point not scored, counted by rule (Exclusion).
	Excluded []Exclusion        `json:"excluded"`
	Fits     []profiles.StepFit `json:"fits,omitempty"`
	Rows     []Row              `json:"rows"`
	Notes    []string           `json:"notes,omitempty"`
	// ModelError is the cross-validated residuals' quantiles per metric
	// and regime (what --model-error writes); Coverage is how often its
	// intervals held the measured value, leave-one-deployment-out.
	ModelError *profiles.ModelError `json:"model_error"`
	Coverage   []Coverage           `json:"coverage"`
	byMetric   map[string]counts    // points per metric
}

type counts struct{ n, cv int }

// Regime is the errors of one slice of the corpus (kind "concurrency"
// and name "64-255", kind "deployment" and its key, ...).
type Regime struct {
	Kind   string             `json:"kind"`
	Name   string             `json:"name"`
	Points int                `json:"points"`
	MAPE   map[string]float64 `json:"mape"`
	CVMAPE map[string]float64 `json:"cv_mape"`
	// CVFamilyMAPE and CVSourceMAPE are the slice's points predicted
	// without their model family, or without their source; Bias is the
	// median of predicted/measured - 1, in-sample.
	CVFamilyMAPE map[string]float64 `json:"cv_family_mape"`
	CVSourceMAPE map[string]float64 `json:"cv_source_mape"`
	Bias         map[string]float64 `json:"bias"`
	// N is how many points each metric's error is over.
	N map[string]int `json:"n"`
}

// SkipReason is why some records were not replayed, with their count.
type SkipReason struct {
	Reason  string `json:"reason"`
	Records int    `json:"records"`
}

// Row is one point: measured beside predicted per metric.
type Row struct {
	ID          string              `json:"id"`
	Source      string              `json:"source"`
	Deployment  string              `json:"deployment"`
	GPU         string              `json:"gpu"`
	TP          int                 `json:"tp"`
	Concurrency float64             `json:"concurrency"` // closed loop's, or the open loop's mean in flight
	Metrics     map[string]RowValue `json:"metrics"`
	Excluded    map[string]string   `json:"excluded,omitempty"`
}

// RowValue is one metric of a row: the statistic compared, measured,
// predicted, and predicted by the cross-validated coefficients (without
// the deployment, without the model family, without the source), each
// with its error: which points make cv_mape, cv_family_mape and
// cv_source_mape.
type RowValue struct {
	Statistic   string   `json:"statistic,omitempty"`
	Measured    float64  `json:"measured"`
	Predicted   float64  `json:"predicted"`
	CV          *float64 `json:"cv,omitempty"`
	Err         float64  `json:"err"`
	CVErr       *float64 `json:"cv_err,omitempty"`
	CVFamily    *float64 `json:"cv_family,omitempty"`
	CVFamilyErr *float64 `json:"cv_family_err,omitempty"`
	CVSource    *float64 `json:"cv_source,omitempty"`
	CVSourceErr *float64 `json:"cv_source_err,omitempty"`
}

// regimeKinds are the slices the scoreboard reports, in order.
var regimeKinds = []string{"concurrency", "phase", "architecture", "tp", "generation", "gpu", "quantization", "source"}

// load is the point's concurrency: the closed loop's, or for an open loop
// the mean number of requests in flight the prediction had (Little's law:
// request rate × mean E2E).
func (p *Point) load() float64 {
	r := p.Record
	if r.ClosedLoop() {
		return float64(r.Concurrency)
	}
	if p.Pred.DurationS > 0 && p.Pred.E2EL.Mean > 0 {
		n := float64(defaultPrompts(r))
		return n / p.Pred.DurationS * p.Pred.E2EL.Mean / 1e3
	}
	return 0
}

// regimeOf names the point's slice of one kind.
func (p *Point) regimeOf(kind string) string {
	r := p.Record
	switch kind {
	case "concurrency":
		return profiles.ConcurrencyRegime(p.load())
	case "phase":
		return profiles.PhaseRegime(meanLen(r.Workload.InputLen), meanLen(r.Workload.OutputLen))
	case "architecture":
		if p.cfg.Model.IsMoE() {
			return "moe"
		}
		return "dense"
	case "tp":
		return fmt.Sprintf("tp%d", r.TP)
	case "gpu":
		return p.cfg.GPU.Name
	case "generation":
		return p.Generation
	case "quantization":
		return p.cfg.WeightFormat()
	case "source":
		return r.Source
	}
	return ""
}

func meanLen(l Length) float64 {
	switch {
	case l.Dist != "" || l.Max == 0:
		return l.Mean
	}
	return (l.Min + l.Max) / 2
}

// score builds the scoreboard of the replayed points.
func score(points []*Point) *Scoreboard {
	sb := &Scoreboard{Records: len(points), MAPE: map[string]float64{}, CVMAPE: map[string]float64{}}
	skips := map[string]int{}
	sources := map[string]bool{}
	var replayed []*Point
	for _, p := range points {
		if p.Skip != "" {
			skips[p.Skip]++
			continue
		}
		replayed = append(replayed, p)
		sources[p.Record.Source] = true
		sb.Rows = append(sb.Rows, rowOf(p))
	}
	sb.Points, sb.Sources = len(replayed), len(sources)
	sb.MAPE, sb.CVMAPE, _ = errorsOf(replayed)
	sb.CVFamilyMAPE = meanAbsErr(replayed, func(p *Point) map[string]Pair { return p.CVFamily })
	sb.CVSourceMAPE = meanAbsErr(replayed, func(p *Point) map[string]Pair { return p.CVSource })
	sb.Bias, sb.OptimisticShare = biasOf(replayed)
	sb.MAPECountingExcluded = meanAbsErr(replayed, func(p *Point) map[string]Pair {
		all := maps.Clone(p.Pairs)
		maps.Copy(all, p.Held)
		return all
	})
	sb.Excluded = exclusionsOf(points)
	for _, kind := range regimeKinds {
		sb.Regimes = append(sb.Regimes, slicesOf(replayed, kind, func(p *Point) string { return p.regimeOf(kind) })...)
	}
	sb.Deployments = slicesOf(replayed, "deployment", func(p *Point) string { return p.Deployment })
	res := residualsOf(replayed)
	sb.ModelError = modelErrorOf(res, "", modelErrorSource(sb.Points, sb.Records))
	sb.Coverage = coverageOf(res, CoverageConfidence)
	for _, reason := range slices.Sorted(maps.Keys(skips)) {
		sb.Skipped = append(sb.Skipped, SkipReason{reason, skips[reason]})
	}
	sort.SliceStable(sb.Skipped, func(i, j int) bool { return sb.Skipped[i].Records > sb.Skipped[j].Records })
	return sb
}

// slicesOf groups the points by name and scores each group.
func slicesOf(points []*Point, kind string, name func(*Point) string) []Regime {
	groups := map[string][]*Point{}
	for _, p := range points {
		n := name(p)
		groups[n] = append(groups[n], p)
	}
	var out []Regime
	for _, n := range slices.Sorted(maps.Keys(groups)) {
		g := groups[n]
		m, cv, cnt := errorsOf(g)
		bias, _ := biasOf(g)
		out = append(out, Regime{Kind: kind, Name: n, Points: len(g), MAPE: m, CVMAPE: cv, N: cnt,
			CVFamilyMAPE: meanAbsErr(g, func(p *Point) map[string]Pair { return p.CVFamily }),
			CVSourceMAPE: meanAbsErr(g, func(p *Point) map[string]Pair { return p.CVSource }),
			Bias:         bias})
	}
	if kind == "concurrency" {
		order := []string{"1", "2-32", "33-63", "64-255", "256+"}
		sort.SliceStable(out, func(i, j int) bool {
			return slices.Index(order, out[i].Name) < slices.Index(order, out[j].Name)
		})
	}
	return out
}

// errorsOf is the mean absolute relative error per metric over the
// points, in-sample and cross-validated, and how many points each has.
func errorsOf(points []*Point) (mape, cv map[string]float64, n map[string]int) {
	mape, cv, n = map[string]float64{}, map[string]float64{}, map[string]int{}
	cvN := map[string]int{}
	for _, p := range points {
		for m, pr := range p.Pairs {
			mape[m] += math.Abs(pr.Err())
			n[m]++
		}
		for m, pr := range p.CV {
			cv[m] += math.Abs(pr.Err())
			cvN[m]++
		}
	}
	for m := range mape {
		mape[m] /= float64(n[m])
	}
	for m := range cv {
		cv[m] /= float64(cvN[m])
	}
	return mape, cv, n
}

func rowOf(p *Point) Row {
	r := p.Record
	row := Row{ID: r.ID, Source: r.Source, Deployment: p.Deployment, GPU: p.cfg.GPU.Name, TP: r.TP,
		Concurrency: p.load(), Metrics: map[string]RowValue{}}
	for m, pr := range p.Pairs {
		v := RowValue{Statistic: pr.Statistic, Measured: pr.Measured, Predicted: pr.Predicted, Err: pr.Err()}
		v.CV, v.CVErr = heldOut(p.CV, m)
		v.CVFamily, v.CVFamilyErr = heldOut(p.CVFamily, m)
		v.CVSource, v.CVSourceErr = heldOut(p.CVSource, m)
		row.Metrics[m] = v
	}
	for _, m := range Metrics3 {
		if why := p.excluded(m); why != "" {
			if row.Excluded == nil {
				row.Excluded = map[string]string{}
			}
			row.Excluded[m] = why
		}
	}
	return row
}

// heldOut is a cross-validation's prediction of the metric and its error,
// nil when it has none.
func heldOut(cv map[string]Pair, metric string) (pred, err *float64) {
	c, ok := cv[metric]
	if !ok {
		return nil, nil
	}
	p, e := c.Predicted, c.Err()
	return &p, &e
}

// meanAbsErr is the mean absolute relative error per metric of the pairs
// pairs picks from each point.
func meanAbsErr(points []*Point, pairs func(*Point) map[string]Pair) map[string]float64 {
	sum, n := map[string]float64{}, map[string]int{}
	for _, p := range points {
		for m, pr := range pairs(p) {
			sum[m] += math.Abs(pr.Err())
			n[m]++
		}
	}
	for m := range sum {
		sum[m] /= float64(n[m])
	}
	return sum
}

// OptimisticMargin is how far above the measurement a saturated
// throughput's prediction must be to count as optimistic.
const OptimisticMargin = 0.15

// biasOf is the median signed relative error per metric of the points'
// in-sample pairs, and the share of their throughput pairs (saturated
// loads only) predicted more than OptimisticMargin above the measurement.
func biasOf(points []*Point) (bias map[string]float64, optimistic float64) {
	errs := map[string][]float64{}
	for _, p := range points {
		for m, pr := range p.Pairs {
			errs[m] = append(errs[m], pr.Err())
		}
	}
	bias = map[string]float64{}
	for m, e := range errs {
		slices.Sort(e)
		k := len(e) / 2
		bias[m] = e[k]
		if len(e)%2 == 0 {
			bias[m] = (e[k-1] + e[k]) / 2
		}
	}
	thr := errs[MetricThroughput]
	for _, e := range thr {
		if e > OptimisticMargin {
			optimistic++
		}
	}
	if len(thr) > 0 {
		optimistic /= float64(len(thr))
	}
	return bias, optimistic
}
