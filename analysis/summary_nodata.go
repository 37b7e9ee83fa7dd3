package analysis

import (
	"encoding/json"
	"math"
)

// A statistic with no data (no successful request, a metric never scraped)
// is null in JSON and "-" in tables, never 0 (docs/formats.md): a zero would read
// as "measured, and zero". Stat, KVUsage and Occupancy carry a NoData flag
// for that, which their JSON forms turn into null leaves and back; the zero
// value means "measured", so callers that fill one in need not set it.

// statJSON is the wire form of Stat: nil pointers are nulls.
type statJSON struct {
	Mean *float64 `json:"mean"`
	P50  *float64 `json:"p50"`
	P90  *float64 `json:"p90"`
	P99  *float64 `json:"p99"`
	// Dist is the chosen percentiles' spread, when asked for.
	Dist *Distribution `json:"distribution,omitempty"`
}

// MarshalJSON writes the four keys, null when there is no data.
func (s Stat) MarshalJSON() ([]byte, error) {
	if s.NoData {
		return json.Marshal(statJSON{})
	}
	return json.Marshal(statJSON{&s.Mean, &s.P50, &s.P90, &s.P99, s.Dist})
}

// UnmarshalJSON reads the four keys; all null (or absent) is no data.
func (s *Stat) UnmarshalJSON(data []byte) error {
	var w statJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*s = Stat{NoData: w.Mean == nil && w.P50 == nil && w.P90 == nil && w.P99 == nil}
	s.Mean, s.P50, s.P90, s.P99 = deref(w.Mean), deref(w.P50), deref(w.P90), deref(w.P99)
	s.Dist = w.Dist
	return nil
}

type kvUsageJSON struct {
	Mean *float64 `json:"mean"`
	Peak *float64 `json:"peak"`
}

// MarshalJSON writes mean and peak, null when never scraped.
func (k KVUsage) MarshalJSON() ([]byte, error) {
	if k.NoData {
		return json.Marshal(kvUsageJSON{})
	}
	return json.Marshal(kvUsageJSON{&k.Mean, &k.Peak})
}

// UnmarshalJSON reads mean and peak; both null (or absent) is no data.
func (k *KVUsage) UnmarshalJSON(data []byte) error {
	var w kvUsageJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*k = KVUsage{Mean: deref(w.Mean), Peak: deref(w.Peak), NoData: w.Mean == nil && w.Peak == nil}
	return nil
}

type occupancyJSON struct {
	Mean *float64 `json:"mean"`
	Peak *int     `json:"peak"`
}

// MarshalJSON writes mean and peak, null when never scraped.
func (o Occupancy) MarshalJSON() ([]byte, error) {
	if o.NoData {
		return json.Marshal(occupancyJSON{})
	}
	return json.Marshal(occupancyJSON{&o.Mean, &o.Peak})
}

// UnmarshalJSON reads mean and peak; both null (or absent) is no data.
func (o *Occupancy) UnmarshalJSON(data []byte) error {
	var w occupancyJSON
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*o = Occupancy{Mean: deref(w.Mean), NoData: w.Mean == nil && w.Peak == nil}
	if w.Peak != nil {
		o.Peak = *w.Peak
	}
	return nil
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// orNaN is v, or NaN when there is no data: comparisons treat NaN as "not
// measured" rather than as a zero to compare against.
func orNaN(v float64, noData bool) float64 {
	if noData {
		return math.NaN()
	}
	return v
}

// Int64 returns a pointer to n, for Summary.Preemptions.
func Int64(n int64) *int64 { return &n }
