package workload

import (
	"strings"
	"testing"
)

// threeTurns is one session: inputs 100, 50, 30; thinking 40, 0, 20;
// answers 10, 20, 5; 2 s of think time before each later turn.
func threeTurns() []Request {
	return []Request{
		{ID: "t1", SessionID: "s", Turn: 1, ArrivalS: 7, PromptTokens: 100, ThinkTokens: 40, AnswerTokens: 10},
		{ID: "t2", SessionID: "s", Turn: 2, ArrivalS: 99, ThinkTimeS: 2, PromptTokens: 50, ThinkTokens: 0, AnswerTokens: 20},
		{ID: "t3", SessionID: "s", Turn: 3, ArrivalS: 99, ThinkTimeS: 2, PromptTokens: 30, ThinkTokens: 20, AnswerTokens: 5},
		{ID: "x", ArrivalS: 1, PromptTokens: 9, AnswerTokens: 1}, // no session: untouched
	}
}

// TestApplySessions: each policy's prompts and prefixes, turn by turn, by
// hand.
func TestApplySessions(t *testing.T) {
	for _, c := range []struct {
		spec             string
		prompts, prefixs [3]int
	}{
		// keep: history is every earlier sequence; the prefix the whole previous one.
		{"keep-traces", [3]int{100, 150 + 50, 220 + 30}, [3]int{0, 150, 220}},
		// strip: history = inputs and answers; the previous prompt is the prefix,
		// with its answer when it did not think (turn 2).
		{"strip-traces", [3]int{100, 110 + 50, 180 + 30}, [3]int{0, 100, 160 + 20}},
		// answers only: history = the answers; the match ends at the previous input.
		{"answers-only", [3]int{100, 10 + 50, 30 + 30}, [3]int{0, 0, 10}},
		// summary of 8 tokens from turn 3.
		{"summary=8@3", [3]int{100, 110 + 50, 8 + 30}, [3]int{0, 100, 0}},
	} {
		h, err := ParseHistory(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		out, rep, err := ApplySessions(threeTurns(), h)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Changed != 2 || out[3] != threeTurns()[3] {
			t.Errorf("%s: %d changed; unrelated request %+v", c.spec, rep.Changed, out[3])
		}
		for k := range 3 {
			r := out[k]
			if r.PromptTokens != c.prompts[k] || r.PrefixTokens != c.prefixs[k] || r.HistoryTokens != c.prompts[k]-threeTurns()[k].PromptTokens {
				t.Errorf("%s turn %d: prompt %d prefix %d history %d, want %d, %d", c.spec, k+1, r.PromptTokens, r.PrefixTokens, r.HistoryTokens, c.prompts[k], c.prefixs[k])
			}
			if k > 0 && (r.After != out[k-1].ID || r.ArrivalS != 2) {
				t.Errorf("%s turn %d: after %q at %g, want the previous turn 2 s after its answer", c.spec, k+1, r.After, r.ArrivalS)
			}
		}
		if out[0].ArrivalS != 7 || out[0].After != "" {
			t.Errorf("%s: the first turn moved: %+v", c.spec, out[0])
		}
	}
}

func TestApplySessionsErrors(t *testing.T) {
	h := History{Policy: HistoryStripTraces}
	for _, c := range []struct {
		reqs []Request
		want string
	}{
		{[]Request{{ID: "a", SessionID: "s", Turn: 2, PromptTokens: 1}}, "earlier turns are missing"},
		{[]Request{{ID: "a", SessionID: "s", Turn: 2, PromptTokens: 1}, {ID: "b", SessionID: "s", Turn: 1, PromptTokens: 1}}, "earlier turns are missing"},
		{[]Request{{ID: "a", SessionID: "s", Turn: 1, PromptTokens: 1}, {ID: "b", SessionID: "s", Turn: 1, PromptTokens: 1}}, "in order"},
		{[]Request{{ID: "a", SessionID: "s", Turn: 1, PromptTokens: 1, After: "z"}}, "also a follow-up"},
	} {
		if _, _, err := ApplySessions(c.reqs, h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.reqs, err, c.want)
		}
	}
}

// FuzzParseHistory: never panics; what it accepts prints back as itself.
func FuzzParseHistory(f *testing.F) {
	for _, s := range []string{"", "keep-traces", "strip-traces", "answers-only", "summary=512", "summary=64@2", "summary=0", "summary=5@1", "summary=x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHistory(s)
		if err != nil {
			return
		}
		again, err := ParseHistory(h.String())
		if err != nil || again != h {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, h, h.String(), again, err)
		}
	})
}
