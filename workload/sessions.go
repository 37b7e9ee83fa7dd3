package workload

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// Agents and chat are sessions of turns: each turn's prompt carries the
// history, and with a reasoning model the history may or may not carry the
// earlier turns' thinking. A request record names its session (SessionID),
// its place in it (Turn, from 1) and ThinkTimeS, the user's or tool's time
// after the previous turn's answer; its PromptTokens is its new input
// only. Sessions turn the records into chains of calls the simulator
// already runs (After: a turn is issued when the previous one finishes,
// plus its think time), with each turn's prompt grown by the history the
// policy keeps and, as its prefix, what a prefix cache holds of the
// previous turn's sequence.

// History policies (--history).
const (
	// HistoryKeepTraces re-feeds every earlier turn whole, thinking
	// included: the previous turn's whole sequence is the next one's prefix.
	HistoryKeepTraces = "keep-traces"
	// HistoryStripTraces drops the earlier turns' thinking and keeps their
	// inputs and answers, as Qwen3's and DeepSeek-R1's chat templates do
	// (vLLM renders the template): the prefix cache holds the previous
	// turn's prompt, up to where its thinking began, and its answer too
	// when it did not think.
	HistoryStripTraces = "strip-traces"
	// HistoryAnswersOnly keeps only the earlier answers (the inputs, such as
	// tool outputs, are dropped): the prefix is the history up to where the
	// previous turn's own input began.
	HistoryAnswersOnly = "answers-only"
	// HistorySummary replaces the history by a summary of N tokens from a
	// turn on (summary=N, or summary=N@T from turn T; T defaults to 3),
	// rewritten every turn: nothing of the previous turn's sequence is a
	// prefix once summarising.
	HistorySummary = "summary"
)

// DefaultHistory is the chat templates' behaviour.
const DefaultHistory = HistoryStripTraces

// History is a --history policy.
type History struct {
	Policy string
	// SummaryTokens and SummaryFrom: the summary's length and the first
	// turn whose history is summarised (HistorySummary).
	SummaryTokens, SummaryFrom int
}

// ParseHistory reads --history: keep-traces, strip-traces, answers-only,
// summary=N or summary=N@T.
func ParseHistory(spec string) (History, error) {
	switch spec {
	case "", HistoryStripTraces:
		return History{Policy: HistoryStripTraces}, nil
	case HistoryKeepTraces, HistoryAnswersOnly:
		return History{Policy: spec}, nil
	}
	if rest, ok := strings.CutPrefix(spec, HistorySummary+"="); ok {
		n, from, hasFrom := strings.Cut(rest, "@")
		h := History{Policy: HistorySummary, SummaryFrom: 3}
		var err error
		if h.SummaryTokens, err = strconv.Atoi(n); err != nil || h.SummaryTokens < 1 {
			return h, inputerr.Fieldf("History", "%s: the summary's tokens must be a positive integer", spec)
		}
		if hasFrom {
			if h.SummaryFrom, err = strconv.Atoi(from); err != nil || h.SummaryFrom < 2 {
				return h, inputerr.Fieldf("History", "%s: the turn summarising starts must be an integer of at least 2", spec)
			}
		}
		return h, nil
	}
	return History{}, inputerr.Fieldf("History", "%q: want keep-traces, strip-traces, answers-only or summary=N[@T]", spec)
}

// HasSessions reports whether any record belongs to a session.
func HasSessions(reqs []Request) bool {
	for i := range reqs {
		if reqs[i].SessionID != "" {
			return true
		}
	}
	return false
}

// ApplySessions chains each session's turns under the policy (see the file
// comment) and returns the requests and what changed. A session's turns
// must come in turn order; a record of a session that is already a
// follow-up (After) is refused: a session's calls are its turns.
func ApplySessions(reqs []Request, h History) ([]Request, TransformReport, error) {
	rep := TransformReport{Name: "history " + h.String()}
	out := make([]Request, len(reqs))
	copy(out, reqs)
	type state struct {
		last    int // index of the previous turn
		carried int // history the previous turn's prompt carried
		history int // history the next turn's prompt carries
	}
	sessions := map[string]*state{}
	for i := range out {
		r := &out[i]
		if r.SessionID == "" {
			continue
		}
		if r.After != "" {
			return nil, rep, fmt.Errorf("request %s: session %s's turn %d is also a follow-up of %s: a session's calls are its turns", r.ID, r.SessionID, r.Turn, r.After)
		}
		if r.ID == "" {
			r.ID = fmt.Sprintf("%s#%d", r.SessionID, r.Turn)
		}
		st, seen := sessions[r.SessionID]
		if !seen {
			if r.Turn > 1 {
				return nil, rep, fmt.Errorf("request %s: session %s starts at turn %d: its earlier turns are missing", r.ID, r.SessionID, r.Turn)
			}
			r.Turn = 1
			sessions[r.SessionID] = &state{last: i, history: h.grow(0, r)}
			continue
		}
		prev := &out[st.last]
		if r.Turn != 0 && r.Turn <= prev.Turn {
			return nil, rep, fmt.Errorf("request %s: session %s's turn %d comes after its turn %d: list a session's turns in order", r.ID, r.SessionID, r.Turn, prev.Turn)
		}
		if r.Turn == 0 {
			r.Turn = prev.Turn + 1
		}
		history := st.history
		summarised := h.Policy == HistorySummary && r.Turn >= h.SummaryFrom
		if summarised {
			history = h.SummaryTokens
		}
		prefix := 0
		if !summarised {
			prefix = h.prefix(prev, st.carried)
		}
		r.After = prev.ID
		r.ArrivalS = max(r.ThinkTimeS, 0)
		r.PromptTokens += history
		r.HistoryTokens = history
		r.PrefixID, r.PrefixTokens = "", prefix
		st.carried, st.history, st.last = history, h.grow(history, r), i
		rep.Changed++
	}
	return out, rep, nil
}

// grow is the history a turn leaves for the next: what it carried plus,
// under the policy, its own input, thinking and answer. r.PromptTokens
// already holds what it carried.
func (h History) grow(carried int, r *Request) int {
	input := r.PromptTokens - carried
	switch h.Policy {
	case HistoryKeepTraces:
		return carried + input + r.ThinkTokens + r.AnswerTokens
	case HistoryAnswersOnly:
		return carried + r.AnswerTokens
	default: // strip-traces, and summary before it starts
		return carried + input + r.AnswerTokens
	}
}

// prefix is how much of the previous turn's sequence (its prompt, which
// carried carried tokens of history, then its thinking and answer) the next
// turn's prompt starts with: what a prefix cache can hit. The two part
// where the next one's history stops matching.
func (h History) prefix(prev *Request, carried int) int {
	input := prev.PromptTokens - carried
	switch h.Policy {
	case HistoryKeepTraces:
		return prev.PromptTokens + prev.ThinkTokens + prev.AnswerTokens
	case HistoryAnswersOnly:
		// Next: history, then the previous answer. Previous: history,
		// its input, its thinking, its answer.
		if input == 0 && prev.ThinkTokens == 0 {
			return carried + prev.AnswerTokens
		}
		return carried
	default:
		// Next: the previous prompt, then its answer. Previous: its prompt,
		// its thinking, its answer.
		if prev.ThinkTokens == 0 {
			return prev.PromptTokens + prev.AnswerTokens
		}
		return prev.PromptTokens
	}
}

// String is the policy as --history reads it.
func (h History) String() string {
	if h.Policy == HistorySummary {
		return fmt.Sprintf("summary=%d@%d", h.SummaryTokens, h.SummaryFrom)
	}
	return h.Policy
}

// errSessionFollowUps is returned when sessions meet transforms that add
// follow-up calls of their own.
var errSessionFollowUps = errors.New("sessions do not combine with --budget-policy two-phase or --escalate yet: both add calls a session's next turn would have to follow")

// MakeSessions groups synthetic requests, in arrival order, into sessions:
// a session starts at a request's arrival and takes the next requests as
// its later turns (turns per session drawn from turns, at least 1), each
// after a think time drawn from think (seconds). Sessions then start at the
// arrival process's rate divided by the mean turns; each turn keeps its own
// drawn lengths, its prompt being its new input (a user's message, a tool's
// output).
func MakeSessions(reqs []Request, turns, think Dist, seed uint64) {
	tr, thr := NewStream(seed, "turns"), NewStream(seed, "think-time")
	for i, session := 0, 1; i < len(reqs); session++ {
		n := max(turns.Sample(tr), 1)
		id := fmt.Sprintf("sess-%06d", session)
		for turn := 1; turn <= n && i < len(reqs); turn++ {
			r := &reqs[i]
			r.SessionID, r.Turn = id, turn
			if turn > 1 {
				r.ThinkTimeS = float64(max(think.Sample(thr), 0))
			}
			i++
		}
	}
}
