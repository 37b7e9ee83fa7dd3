package profiles

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// ModelError is how far the step model's predictions fall from real vLLM
// measurements: per metric and regime, quantiles of ln(measured /
// predicted) over the measurement corpus's points, each point predicted by
// coefficients fitted without its deployment (leave-one-deployment-out).
// `thinkcap fidelity --model-error` writes it and `make refit` keeps
// profiles/data/model-error.yaml, with its provenance in the head comment,
// in step with the step fits. A prediction's model interval is its value
// times e^q at the interval's two quantile levels.
type ModelError struct {
	// Source says what the residuals were measured on.
	Source string `yaml:"source" json:"source"`
	// Levels are the probability levels the cells' quantiles are at,
	// ascending, in (0, 1).
	Levels []float64 `yaml:"levels,flow" json:"levels"`
	// Metrics are the cells per metric: "tpot" (TPOT or ITL), "ttft",
	// "throughput" (saturated output throughput).
	Metrics map[string][]ModelErrorCell `yaml:"metrics" json:"metrics"`
}

// ModelErrorCell is one regime's residual quantiles. An empty Concurrency
// or Phase means every one: the cell with both empty is the metric's
// whole corpus, the fallback of a regime with too few points. A cell
// with a Generation holds that GPU generation's points alone (and no
// concurrency or phase).
type ModelErrorCell struct {
	Concurrency string    `yaml:"concurrency,omitempty" json:"concurrency,omitempty"` // "1", "2-32", "33-63", "64-255", "256+"
	Phase       string    `yaml:"phase,omitempty" json:"phase,omitempty"`             // "prefill-heavy" or "decode-heavy"
	Generation  string    `yaml:"generation,omitempty" json:"generation,omitempty"`   // "ampere", "hopper", "blackwell"
	Points      int       `yaml:"points" json:"points"`
	Deployments int       `yaml:"deployments" json:"deployments"`
	Q           []float64 `yaml:"q,flow" json:"q"` // ln(measured/predicted) at Levels
}

// MinModelErrorPoints is the fewest points, from at least
// MinModelErrorDeployments deployments, a regime's cell needs to be used
// rather than its fallback: fewer make a 90% interval's tails from a
// handful of points.
const (
	MinModelErrorPoints      = 40
	MinModelErrorDeployments = 4
)

// ConcurrencyRegime is the corpus's concurrency slice of a load (requests
// running per replica).
func ConcurrencyRegime(c float64) string {
	switch {
	case c <= 1.5:
		return "1"
	case c < 32.5:
		return "2-32"
	case c < 63.5:
		return "33-63"
	case c < 255.5:
		return "64-255"
	}
	return "256+"
}

// PhaseRegime is the corpus's phase slice of mean input and output
// lengths: prefill-heavy when the input is at least four times the output.
func PhaseRegime(in, out float64) string {
	if in >= 4*out {
		return "prefill-heavy"
	}
	return "decode-heavy"
}

// ErrorRegime is where a prediction lies among the corpus's slices.
type ErrorRegime struct {
	Concurrency, Phase, Generation string
}

// Band is the metric's model interval at confidence in a regime: lo, mid
// and hi are ln(measured/predicted) at (1−c)/2, ½ and (1+c)/2, from the
// regime's cell (both keys), else its concurrency's, else its phase's,
// else the metric's whole corpus; each side stretched by as much as its
// GPU generation's spread exceeds the whole corpus's, where that
// generation's cell holds enough points (a generation whose deployments
// the model misses more, as Ampere's, is not covered by the others'
// spread; one no wider leaves the regime's band as it is). cells are the
// cells used, the regime's first. ok is false when the metric has no
// cell.
func (m *ModelError) Band(metric string, r ErrorRegime, confidence float64) (lo, mid, hi float64, cells []ModelErrorCell, ok bool) {
	if m == nil {
		return 0, 0, 0, nil, false
	}
	a := (1 - confidence) / 2
	all := m.Metrics[metric]
	for _, key := range [][2]string{{r.Concurrency, r.Phase}, {r.Concurrency, ""}, {"", r.Phase}, {"", ""}} {
		for _, c := range all {
			if c.Generation != "" || c.Concurrency != key[0] || c.Phase != key[1] {
				continue
			}
			if (key != [2]string{"", ""}) && !c.enough() {
				continue
			}
			lo, mid, hi = m.quantile(c.Q, a), m.quantile(c.Q, 0.5), m.quantile(c.Q, 1-a)
			cells, ok = []ModelErrorCell{c}, true
			break
		}
		if ok {
			break
		}
	}
	if !ok || r.Generation == "" {
		return lo, mid, hi, cells, ok
	}
	var whole, gen *ModelErrorCell
	for i := range all {
		c := &all[i]
		switch {
		case c.Generation == "" && c.Concurrency == "" && c.Phase == "":
			whole = c
		case c.Generation == r.Generation && c.enough():
			gen = c
		}
	}
	if whole == nil || gen == nil {
		return lo, mid, hi, cells, ok
	}
	// The generation's spread against the whole corpus's, side by side:
	// a wider one stretches the regime's band by as much.
	wlo, wmid, whi := m.quantile(whole.Q, a), m.quantile(whole.Q, 0.5), m.quantile(whole.Q, 1-a)
	glo, gmid, ghi := m.quantile(gen.Q, a), m.quantile(gen.Q, 0.5), m.quantile(gen.Q, 1-a)
	below, above := 1.0, 1.0
	if wmid > wlo {
		below = max(1, (gmid-glo)/(wmid-wlo))
	}
	if whi > wmid {
		above = max(1, (ghi-gmid)/(whi-wmid))
	}
	if below > 1 || above > 1 {
		lo, hi = mid-(mid-lo)*below, mid+(hi-mid)*above
		cells = append(cells, *gen)
	}
	return lo, mid, hi, cells, ok
}

// enough reports whether a regime's cell holds the points to be used
// rather than its fallback.
func (c *ModelErrorCell) enough() bool {
	return c.Points >= MinModelErrorPoints && c.Deployments >= MinModelErrorDeployments
}

// quantile interpolates the cell's quantiles at level p, linearly between
// levels and flat beyond the outermost.
func (m *ModelError) quantile(q []float64, p float64) float64 {
	lv := m.Levels
	if p <= lv[0] {
		return q[0]
	}
	if p >= lv[len(lv)-1] {
		return q[len(q)-1]
	}
	i, _ := slices.BinarySearch(lv, p)
	if lv[i] == p {
		return q[i]
	}
	f := (p - lv[i-1]) / (lv[i] - lv[i-1])
	return q[i-1] + f*(q[i]-q[i-1])
}

func (m *ModelError) problems() []error {
	var errs []error
	if len(m.Levels) < 3 {
		errs = append(errs, errors.New("model_error: levels needs at least three probability levels"))
	}
	for i, l := range m.Levels {
		if !(l > 0 && l < 1) || (i > 0 && l <= m.Levels[i-1]) {
			errs = append(errs, fmt.Errorf("model_error: levels must ascend within (0, 1), got %v", m.Levels))
			break
		}
	}
	for metric, cells := range m.Metrics {
		whole := false
		for _, c := range cells {
			whole = whole || (c.Concurrency == "" && c.Phase == "" && c.Generation == "")
			if len(c.Q) != len(m.Levels) {
				errs = append(errs, fmt.Errorf("model_error: %s %s/%s: %d quantiles for %d levels", metric, c.Concurrency, c.Phase, len(c.Q), len(m.Levels)))
				continue
			}
			for i, q := range c.Q {
				if math.IsNaN(q) || math.IsInf(q, 0) || (i > 0 && q < c.Q[i-1]) {
					errs = append(errs, fmt.Errorf("model_error: %s %s/%s: quantiles must be finite and ascending", metric, c.Concurrency, c.Phase))
					break
				}
			}
		}
		if !whole {
			errs = append(errs, fmt.Errorf("model_error: %s has no cell over the whole corpus (concurrency and phase empty)", metric))
		}
	}
	return errs
}
