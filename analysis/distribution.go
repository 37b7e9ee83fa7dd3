package analysis

import (
	"math"
	"slices"
	"strconv"
)

// Distribution is a latency's spread beyond a Stat's fixed quantiles:
// the extremes, the standard deviation and the percentiles asked for
// (`loadtest --percentiles 50,90,95,99,99.9`), in seconds.
type Distribution struct {
	Min         float64      `json:"min"`
	Max         float64      `json:"max"`
	Std         float64      `json:"std"`
	Percentiles []Percentile `json:"percentiles"`
}

// Percentile is the value at P percent (0 < P ≤ 100).
type Percentile struct {
	P     float64 `json:"p"`
	Value float64 `json:"value"`
}

// Label is the percentile's column name, e.g. p99.9.
func (p Percentile) Label() string { return "p" + strconv.FormatFloat(p.P, 'f', -1, 64) }

// Describe is values' distribution at the percentiles ps, nil without a
// finite value. Percentiles interpolate between closest ranks (Quantile);
// the standard deviation is the population's, as numpy's and vLLM's.
func DescribeDistribution(values []float64, ps []float64) *Distribution {
	finite := make([]float64, 0, len(values))
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			finite = append(finite, v)
		}
	}
	if len(finite) == 0 {
		return nil
	}
	slices.Sort(finite)
	m := mean(finite)
	var ss float64
	for _, v := range finite {
		ss += (v - m) * (v - m)
	}
	d := &Distribution{Min: finite[0], Max: finite[len(finite)-1], Std: math.Sqrt(ss / float64(len(finite)))}
	for _, p := range ps {
		d.Percentiles = append(d.Percentiles, Percentile{P: p, Value: Quantile(finite, p/100)})
	}
	return d
}

// AddDistributions gives each latency measured per request (TTFT, TTFT
// engine, TTFA, TPOT, E2E) its distribution at the percentiles ps.
func (l *Latencies) AddDistributions(lat LatencySamples, ps []float64) {
	for _, x := range []struct {
		st     *Stat
		values []float64
	}{
		{&l.TTFT, lat.TTFT}, {&l.TTFTEngine, lat.TTFTEngine}, {&l.TTFA, lat.TTFA}, {&l.TPOT, lat.TPOT}, {&l.E2E, lat.E2E},
	} {
		if !x.st.NoData {
			x.st.Dist = DescribeDistribution(x.values, ps)
		}
	}
}
