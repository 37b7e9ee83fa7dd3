package loadtest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/workload"
)

// TestStartLineOfALongReplay: a replay whose schedule spans an hour says
// how long it lasts before it starts (the command's test,
// TestLoadtestLongReplaySaysSo, shows the --duration cap instead).
func TestStartLineOfALongReplay(t *testing.T) {
	reqs := []workload.Request{
		{ID: "r0", ArrivalS: 0, PromptTokens: 8, ThinkTokens: 1, AnswerTokens: 1},
		{ID: "r1", ArrivalS: 1800, PromptTokens: 8, ThinkTokens: 1, AnswerTokens: 1},
		{ID: "r2", ArrivalS: 3720, PromptTokens: 8, ThinkTokens: 1, AnswerTokens: 1},
	}
	var w bytes.Buffer
	printStart(&w, &Options{URL: "http://127.0.0.1:8000", Model: "slow-model", Replay: true, Requests: reqs})
	if !strings.Contains(w.String(), "over ~1h02m") || !strings.Contains(w.String(), "this replay lasts 1h02m of wall time; --speedup or --duration shorten it") {
		t.Errorf("start of a long replay:\n%s", w.String())
	}
}
