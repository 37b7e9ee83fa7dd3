package size

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/thinkcap/thinkcap/report"
)

// WriteTable writes the ranked candidates: one row each, the cheapest
// passing first, latencies in milliseconds and KV usage in percent as the
// other tables print them. A variant's "cost vs base" is its cost against its
// baseline's, so FP8 KV and speculative decoding read side by side with
// what they replace.
func WriteTable(w io.Writer, r *Result) error {
	if r == nil {
		return errors.New("write size table: nil result")
	}
	fmt.Fprintf(w, "thinkcap size: %s at %.3g req/s (%s output tok/s)\n\n",
		strings.Join(r.SLOs, ", "), r.RatePerS, groupThousands(strconv.FormatFloat(r.OutputTokensPerS, 'f', 0, 64)))
	// Each header names its unit, so a reader need not know the latencies
	// are milliseconds or that the cost per million counts output tokens.
	header := []string{"#", "candidate", "replicas", "GPUs", "cost ($/h)", "$/1M output tokens", "cost vs base",
		"TTFT p99 (ms)", "TTFA p99 (ms)", "TPOT p99 (ms)", "E2E p99 (ms)", "KV peak (%)", "preemptions", "max req/s/replica", "result"}
	align := make([]tw.Align, len(header))
	for i := range align {
		align[i] = tw.AlignRight
	}
	align[1], align[len(align)-1] = tw.AlignLeft, tw.AlignLeft
	t := report.NewAlignedTable(w, align, header...)
	for i, o := range r.Candidates {
		if err := t.Append(row(i+1, &o)); err != nil {
			return fmt.Errorf("write size table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("write size table: %w", err)
	}
	if r.Best != nil {
		if _, err := fmt.Fprintf(w, "\nbest: %s, %d replica(s), $%.2f/hour\n", r.Best.Name, r.Best.Replicas, r.Best.CostPerHour); err != nil {
			return err
		}
		return writeConfidence(w, r)
	}
	_, err := fmt.Fprintln(w, "\nno candidate meets the SLOs")
	return err
}

func row(rank int, o *Outcome) []string {
	const none = "-"
	if o.Error != "" && o.Replicas == 0 {
		return []string{strconv.Itoa(rank), o.Name, none, none, none, none, none, none, none, none, none, none, none, none,
			"cannot deploy: " + o.Error}
	}
	result := "pass"
	if !o.Passes {
		result = "fails " + strings.Join(o.FailedSLOs, ", ") + " at " + strconv.Itoa(o.Replicas)
		if !o.Complete {
			result += " (stopped early)"
		}
	}
	vs := none
	switch {
	case o.CostVsBaseline != nil:
		vs = fmt.Sprintf("%+.0f%%", 100**o.CostVsBaseline)
	case o.Baseline == "" && o.cand.isBaseline():
		vs = "base"
	}
	cost, perM, maxRate := none, none, none
	if o.Passes {
		cost = fmt.Sprintf("%.2f", o.CostPerHour)
		perM = fmt.Sprintf("%.2f", o.CostPerMillionOutputTokens)
		maxRate = fmt.Sprintf("%.3g", o.MaxRatePerReplica)
	}
	return []string{
		strconv.Itoa(rank), o.Name, strconv.Itoa(o.Replicas), strconv.Itoa(o.GPUs), cost, perM, vs,
		ms(o.TTFTP99S), ms(o.TTFAP99S), ms(o.TPOTP99S), ms(o.E2EP99S),
		strconv.FormatFloat(100*o.KVUsagePeak, 'f', 1, 64), groupThousands(strconv.FormatInt(o.Preemptions, 10)), maxRate, result,
	}
}

// ms prints seconds as milliseconds with thousands grouped.
func ms(s float64) string {
	v := s * 1000
	switch {
	case v >= 100:
		return groupThousands(strconv.FormatFloat(v, 'f', 0, 64))
	default:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
}

// groupThousands puts commas into the integer part of a number.
func groupThousands(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	neg := strings.HasPrefix(intPart, "-")
	intPart = strings.TrimPrefix(intPart, "-")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	out := b.String()
	if neg {
		out = "-" + out
	}
	if frac != "" {
		out += "." + frac
	}
	return out
}

// writeConfidence says, for a search at a confidence, what the point
// estimate would have bought, what the confidence costs, and each SLO's
// interval at the chosen replicas.
func writeConfidence(w io.Writer, r *Result) error {
	b := r.Best
	if r.Confidence == 0 || b.PointReplicas == nil {
		return nil
	}
	pointCost := b.CostPerHour - *b.ConfidenceCostPerHour
	if _, err := fmt.Fprintf(w, "at %.0f%% confidence (every SLO at its interval's pessimistic edge): %d replica(s); the point estimate would buy %d ($%.2f/hour): the confidence costs $%.2f/hour\n",
		100*r.Confidence, b.Replicas, *b.PointReplicas, pointCost, *b.ConfidenceCostPerHour); err != nil {
		return err
	}
	for _, e := range b.Edges {
		if _, err := fmt.Fprintf(w, "  %s: point %s, %.0f%% interval %s – %s\n", e.SLO, latency(e.PointS), 100*r.Confidence, latency(e.LoS), latency(e.HiS)); err != nil {
			return err
		}
	}
	return nil
}

// latency prints seconds from 1 s, else milliseconds.
func latency(s float64) string {
	if s >= 1 {
		return strconv.FormatFloat(s, 'f', 2, 64) + " s"
	}
	return strconv.FormatFloat(1000*s, 'f', 1, 64) + " ms"
}
