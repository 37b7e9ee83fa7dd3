package logstats

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report/numfmt"
	"github.com/thinkcap/thinkcap/workload"
)

// Defaults of the drift alert: mean thinking tokens up 40% while accuracy is
// flat means the model thinks more for nothing, paid in KV memory and
// latency; in classes large enough for a mean to mean something.
const (
	DefaultDriftThreshold         = 0.40
	DefaultDriftMinCount          = 30
	DefaultDriftAccuracyTolerance = 0.02
)

// DriftOptions decide when a change in thinking length is a cost regression.
// The zero value alerts on any rise in any class unless accuracy rose at
// all; DefaultDriftOptions gives the default rule.
type DriftOptions struct {
	// Threshold is the relative rise in mean thinking tokens above which a
	// class alerts: 0.4 alerts when the mean grows by more than 40%.
	Threshold float64
	// MinCount is the fewest records a class needs in each log to alert;
	// smaller classes are reported but never page anyone.
	MinCount int
	// AccuracyTolerance is the rise in accuracy, as a fraction (0.02 is two
	// percentage points), that still counts as flat. A rise in thinking with
	// accuracy up by more than this is paid-for quality, not a regression.
	AccuracyTolerance float64
}

// DefaultDriftOptions returns the default alert rule: +40% mean thinking
// tokens, at least 30 records, accuracy up by at most two points.
func DefaultDriftOptions() DriftOptions {
	return DriftOptions{
		Threshold:         DefaultDriftThreshold,
		MinCount:          DefaultDriftMinCount,
		AccuracyTolerance: DefaultDriftAccuracyTolerance,
	}
}

// Validate reports every option that is out of range.
func (o DriftOptions) Validate() error {
	var errs []error
	if math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0) || o.Threshold < 0 {
		errs = append(errs, fmt.Errorf("threshold must be a non-negative fraction, got %g", o.Threshold))
	}
	if o.MinCount < 0 {
		errs = append(errs, fmt.Errorf("min count must not be negative, got %d", o.MinCount))
	}
	if math.IsNaN(o.AccuracyTolerance) || o.AccuracyTolerance < 0 || o.AccuracyTolerance > 1 {
		errs = append(errs, fmt.Errorf("accuracy tolerance must be a fraction in [0, 1], got %g", o.AccuracyTolerance))
	}
	return errors.Join(errs...)
}

// DriftLog accumulates one log's side of a drift comparison: thinking
// tokens per class (4 bytes a request, for the KS test and the p99) and how
// many records were judged and correct. Feed it with Add; compare two with
// CompareDrift. The zero value is not usable: call NewDriftLog.
type DriftLog struct {
	classes map[classKey]*driftCounts
	lastKey classKey
	last    *driftCounts
}

// driftCounts are one class of one log.
type driftCounts struct {
	think           []int32
	sumThink        int64
	judged, correct int
}

// NewDriftLog returns an empty log.
func NewDriftLog() *DriftLog {
	return &DriftLog{classes: map[classKey]*driftCounts{}}
}

// Add counts one request.
func (l *DriftLog) Add(r *workload.Request) {
	k := keyOf(r)
	c := l.last
	if c == nil || k != l.lastKey {
		c = l.classes[k]
		if c == nil {
			c = &driftCounts{}
			l.classes[k] = c
		}
		l.lastKey, l.last = k, c
	}
	t := clampTokens(r.ThinkTokens)
	c.think = append(c.think, t)
	c.sumThink += int64(t)
	if r.Correct != nil {
		c.judged++
		if *r.Correct {
			c.correct++
		}
	}
}

// DriftReport compares thinking length and accuracy between a base log and
// a new one, per class and overall, and lists the alerts. Keys may be added,
// never renamed.
type DriftReport struct {
	Threshold         float64         `json:"threshold"`
	MinCount          int             `json:"min_count"`
	AccuracyTolerance float64         `json:"accuracy_tolerance"`
	Overall           DriftComparison `json:"overall"`
	Classes           []DriftClass    `json:"classes"`
	Alerts            []DriftAlert    `json:"alerts"`
}

// DriftClass is the comparison of one class present in either log.
type DriftClass struct {
	Mode     string `json:"mode"`
	Category string `json:"category"`
	DriftComparison
}

// DriftComparison sets one class (or the whole log) in the base log against
// the new one. Changes that cannot be computed (an empty side, a zero base)
// are null in JSON.
type DriftComparison struct {
	Base DriftSide `json:"base"`
	New  DriftSide `json:"new"`
	// ThinkMeanChange and ThinkP99Change are relative: 0.4 is +40%.
	ThinkMeanChange *float64 `json:"think_mean_change"`
	ThinkP99Change  *float64 `json:"think_p99_change"`
	// KS tests whether the thinking-token distributions differ.
	KS *analysis.KSResult `json:"ks"`
	// AccuracyChange is new minus base accuracy, a fraction (0.01 is one
	// percentage point); null unless both sides have judged records.
	AccuracyChange *float64 `json:"accuracy_change"`
	Alert          bool     `json:"alert"`
}

// DriftSide is one log's numbers for a class.
type DriftSide struct {
	Count     int     `json:"count"`
	ThinkMean float64 `json:"think_mean"`
	ThinkP99  float64 `json:"think_p99"`
	// Judged counts the records that say whether they were correct;
	// Accuracy is the fraction of them that were, null when none says.
	Judged   int      `json:"judged"`
	Accuracy *float64 `json:"accuracy"`
}

// DriftAlert is a cost regression: where, and a sentence for the pager.
type DriftAlert struct {
	// Class is "overall" or "mode/category" ("-" for a part the log lacks).
	Class    string `json:"class"`
	Mode     string `json:"mode"`
	Category string `json:"category"`
	Message  string `json:"message"`
}

// CompareDrift compares two logs under opts, which must be valid. It sorts
// the logs' stored counts in place; they remain usable.
func CompareDrift(base, next *DriftLog, opts DriftOptions) DriftReport {
	keys := slices.Collect(maps.Keys(base.classes))
	for k := range next.classes {
		if _, ok := base.classes[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compareClasses)
	rep := DriftReport{
		Threshold: opts.Threshold, MinCount: opts.MinCount, AccuracyTolerance: opts.AccuracyTolerance,
		Classes: make([]DriftClass, 0, len(keys)),
		Alerts:  []DriftAlert{},
	}
	allBase, allNew := &driftCounts{}, &driftCounts{}
	for _, k := range keys {
		b, n := orEmpty(base.classes[k]), orEmpty(next.classes[k])
		c := compareCounts(b, n)
		if msg, ok := driftAlert(&c, opts); ok {
			c.Alert = true
			label := ClassLabel(k.mode) + "/" + ClassLabel(k.category)
			rep.Alerts = append(rep.Alerts, DriftAlert{Class: label, Mode: k.mode, Category: k.category, Message: label + ": " + msg})
		}
		rep.Classes = append(rep.Classes, DriftClass{Mode: k.mode, Category: k.category, DriftComparison: c})
		allBase.merge(b)
		allNew.merge(n)
	}
	rep.Overall = compareCounts(allBase, allNew)
	if msg, ok := driftAlert(&rep.Overall, opts); ok {
		rep.Overall.Alert = true
		rep.Alerts = append(rep.Alerts, DriftAlert{Class: "overall", Message: "overall: " + msg})
	}
	return rep
}

// orEmpty stands in an empty class for one a log does not have.
func orEmpty(c *driftCounts) *driftCounts {
	if c == nil {
		return &driftCounts{}
	}
	return c
}

// merge adds o's counts to c.
func (c *driftCounts) merge(o *driftCounts) {
	c.think = append(c.think, o.think...)
	c.sumThink += o.sumThink
	c.judged += o.judged
	c.correct += o.correct
}

// side sorts the counts and summarises them.
func (c *driftCounts) side() DriftSide {
	slices.Sort(c.think)
	s := DriftSide{Count: len(c.think), Judged: c.judged}
	if s.Count > 0 {
		s.ThinkMean = float64(c.sumThink) / float64(s.Count)
		s.ThinkP99 = quantileInt32(c.think, 0.99)
	}
	if c.judged > 0 {
		acc := float64(c.correct) / float64(c.judged)
		s.Accuracy = &acc
	}
	return s
}

// compareCounts compares one class across the two logs.
func compareCounts(b, n *driftCounts) DriftComparison {
	c := DriftComparison{Base: b.side(), New: n.side()}
	if c.Base.Count > 0 && c.New.Count > 0 {
		c.ThinkMeanChange = relativeChange(c.Base.ThinkMean, c.New.ThinkMean)
		c.ThinkP99Change = relativeChange(c.Base.ThinkP99, c.New.ThinkP99)
		ks := analysis.KSSorted(b.think, n.think)
		c.KS = &ks
	}
	if c.Base.Accuracy != nil && c.New.Accuracy != nil {
		d := *c.New.Accuracy - *c.Base.Accuracy
		c.AccuracyChange = &d
	}
	return c
}

// relativeChange is (to-from)/from; nil when from is zero, where a change is
// no percentage.
func relativeChange(from, to float64) *float64 {
	if from == 0 {
		return nil
	}
	r := (to - from) / from
	return &r
}

// driftAlert applies the alert rule to one comparison and says why it
// alerts. The rule: both logs have at least MinCount records of the class,
// mean thinking tokens rose by more than Threshold (from zero to anything is
// a rise), and accuracy did not rise by more than AccuracyTolerance. When
// the two logs cannot show an accuracy gain (neither has judged records, or
// only one has), the rise alone alerts: tokens that cannot be shown to buy
// anything are a cost regression until someone shows otherwise.
func driftAlert(c *DriftComparison, opts DriftOptions) (string, bool) {
	if c.Base.Count < opts.MinCount || c.New.Count < opts.MinCount || c.Base.Count == 0 || c.New.Count == 0 {
		return "", false
	}
	var rise string
	switch {
	case c.ThinkMeanChange != nil && *c.ThinkMeanChange > opts.Threshold:
		rise = fmt.Sprintf("mean thinking tokens rose %s (%s → %s)",
			numfmt.Percent(*c.ThinkMeanChange), numfmt.Tokens(c.Base.ThinkMean), numfmt.Tokens(c.New.ThinkMean))
	case c.ThinkMeanChange == nil && c.New.ThinkMean > 0:
		rise = fmt.Sprintf("mean thinking tokens rose from 0 to %s", numfmt.Tokens(c.New.ThinkMean))
	default:
		return "", false
	}
	if c.AccuracyChange != nil {
		// A hair of slack so that exactly the tolerance counts as flat
		// despite rounding (0.72-0.70 is 0.0199999...).
		if *c.AccuracyChange > opts.AccuracyTolerance+1e-9 {
			return "", false
		}
		how := "stayed flat"
		if *c.AccuracyChange < -opts.AccuracyTolerance-1e-9 {
			how = "fell"
		}
		return fmt.Sprintf("%s while accuracy %s (%s → %s)", rise, how,
			numfmt.Percent(*c.Base.Accuracy), numfmt.Percent(*c.New.Accuracy)), true
	}
	if c.Base.Accuracy == nil && c.New.Accuracy == nil {
		return rise + " and the logs carry no accuracy to show it buys anything", true
	}
	return rise + " and only one log carries accuracy, so no gain can be shown", true
}
