package verify

import (
	"fmt"
	"io"
	"slices"

	"github.com/thinkcap/thinkcap/analysis"
	"github.com/thinkcap/thinkcap/report"
	"github.com/thinkcap/thinkcap/workload"
)

// TurnComparison is one turn of a run's sessions: its requests' TTFT, each
// measured from the turn's own sending, predicted and measured (seconds).
// Later turns carry longer histories, so a model that is right on average
// can still be wrong on the turns that matter.
type TurnComparison struct {
	Turn          int     `json:"turn"`
	Requests      int     `json:"requests"`
	PredictedP50  float64 `json:"ttft_p50_predicted_s"`
	MeasuredP50   float64 `json:"ttft_p50_measured_s"`
	PredictedP99  float64 `json:"ttft_p99_predicted_s"`
	MeasuredP99   float64 `json:"ttft_p99_measured_s"`
	PromptTokens  float64 `json:"prompt_tokens_mean"`
	HistoryTokens float64 `json:"history_tokens_mean"`
}

// compareTurns compares the pairs by session turn; nil when no result has
// a session.
func compareTurns(predicted, measured []workload.Result) []TurnComparison {
	type side struct{ pred, meas []float64 }
	byTurn := map[int]*side{}
	prompt, history := map[int]float64{}, map[int]float64{}
	for i := range measured {
		m := &measured[i]
		if m.SessionID == "" || m.Turn < 1 {
			continue
		}
		s := byTurn[m.Turn]
		if s == nil {
			s = &side{}
			byTurn[m.Turn] = s
		}
		s.pred, s.meas = append(s.pred, predicted[i].TTFTS), append(s.meas, m.TTFTS)
		prompt[m.Turn] += float64(m.PromptTokens)
		history[m.Turn] += float64(m.HistoryTokens)
	}
	if len(byTurn) == 0 {
		return nil
	}
	var out []TurnComparison
	for _, turn := range slices.Sorted(func(yield func(int) bool) {
		for k := range byTurn {
			if !yield(k) {
				return
			}
		}
	}) {
		s := byTurn[turn]
		p, m := analysis.Describe(s.pred), analysis.Describe(s.meas)
		n := float64(len(s.meas))
		out = append(out, TurnComparison{Turn: turn, Requests: len(s.meas),
			PredictedP50: p.P50, MeasuredP50: m.P50, PredictedP99: p.P99, MeasuredP99: m.P99,
			PromptTokens: prompt[turn] / n, HistoryTokens: history[turn] / n})
	}
	return out
}

// writeTurns prints the per-turn comparison after verify's table.
func writeTurns(w io.Writer, turns []TurnComparison) error {
	if len(turns) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nsessions, turn by turn (TTFT from each turn's sending; not checked):")
	t := report.NewLabeledTable(w, 1, "turn", "requests", "prompt tokens (mean)", "of which history",
		"TTFT p50 predicted (ms)", "measured", "TTFT p99 predicted (ms)", "measured")
	for _, c := range turns {
		if err := t.Append([]string{fmt.Sprint(c.Turn), fmt.Sprint(c.Requests), fmt.Sprintf("%.0f", c.PromptTokens), fmt.Sprintf("%.0f", c.HistoryTokens),
			fmt.Sprintf("%.1f", 1000*c.PredictedP50), fmt.Sprintf("%.1f", 1000*c.MeasuredP50),
			fmt.Sprintf("%.1f", 1000*c.PredictedP99), fmt.Sprintf("%.1f", 1000*c.MeasuredP99)}); err != nil {
			return err
		}
	}
	return t.Render()
}
