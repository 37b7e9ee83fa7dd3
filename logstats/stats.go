package logstats

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/thinkcap/thinkcap/workload"
)

// Defaults of the capacity view: 12 ms per output token and 32 requests
// decoding at once; `stats --tpot` and `--concurrency` set the
// deployment's own.
const (
	DefaultTPOTS       = 0.012
	DefaultConcurrency = 32
)

// StatsOptions parameterise the capacity view of a token log. The zero
// value means the defaults.
type StatsOptions struct {
	// TPOTS is the time per output token in seconds: how long one request
	// takes to generate a token while the server decodes a full batch.
	TPOTS float64
	// Concurrency is how many requests decode at once.
	Concurrency int
}

// Validate reports every option that is out of range.
func (o StatsOptions) Validate() error {
	var errs []error
	if math.IsNaN(o.TPOTS) || math.IsInf(o.TPOTS, 0) || o.TPOTS < 0 {
		errs = append(errs, fmt.Errorf("tpot must be a positive number of seconds, got %g", o.TPOTS))
	}
	if o.Concurrency < 0 {
		errs = append(errs, fmt.Errorf("concurrency must be positive, got %d", o.Concurrency))
	}
	return errors.Join(errs...)
}

// withDefaults fills zero fields with the defaults.
func (o StatsOptions) withDefaults() StatsOptions {
	if o.TPOTS == 0 {
		o.TPOTS = DefaultTPOTS
	}
	if o.Concurrency == 0 {
		o.Concurrency = DefaultConcurrency
	}
	return o
}

// StatsReport is what `thinkcap stats` prints: the whole log and each of its
// classes. Keys may be added, never renamed.
type StatsReport struct {
	Overall StatsGroup   `json:"overall"`
	Classes []ClassStats `json:"classes"`
	// Failed counts, by status, the result records (a load test's or a
	// simulation's results.jsonl) that did not complete: their token counts
	// are not what the request would have generated, so they are left out
	// of every statistic above. Absent for a request log.
	Failed map[string]int `json:"failed,omitempty"`
	// Sessions describes the multi-turn sessions (session_id, turn);
	// absent when no record has a session.
	Sessions *SessionStats `json:"sessions,omitempty"`
}

// SessionStats are a log's sessions: how many turns they take and what
// each turn brings, by turn (the last row gathers turns MaxTurnRows and
// later).
type SessionStats struct {
	Sessions int         `json:"sessions"`
	Turns    TokenDist   `json:"turns_per_session"`
	ByTurn   []TurnStats `json:"by_turn"`
}

// TurnStats are the means of one turn's requests: its new input (the
// prompt without the history a policy adds), thinking and answer, and the
// share of its generated tokens that are thinking.
type TurnStats struct {
	Turn       int     `json:"turn"` // the last row: this turn and later
	Requests   int     `json:"requests"`
	Input      float64 `json:"input_tokens_mean"`
	Think      float64 `json:"think_tokens_mean"`
	Answer     float64 `json:"answer_tokens_mean"`
	ThinkShare float64 `json:"think_share"`
}

// MaxTurnRows is the turn from which SessionStats gathers turns in one row.
const MaxTurnRows = 16

// sessionCounts are the running counts behind SessionStats.
type sessionCounts struct {
	turns  map[string]int32 // turns seen per session
	byTurn [MaxTurnRows]struct {
		n                    int
		input, think, answer float64
	}
}

func (c *sessionCounts) add(r *workload.Request) {
	if c.turns == nil {
		c.turns = map[string]int32{}
	}
	c.turns[r.SessionID]++
	t := min(max(r.Turn, int(c.turns[r.SessionID])), MaxTurnRows) - 1
	b := &c.byTurn[t]
	b.n++
	b.input += float64(r.PromptTokens)
	b.think += float64(r.ThinkTokens)
	b.answer += float64(r.AnswerTokens)
}

func (c *sessionCounts) stats() *SessionStats {
	if len(c.turns) == 0 {
		return nil
	}
	per := make([]int32, 0, len(c.turns))
	var sum int64
	for _, n := range c.turns {
		per = append(per, n)
		sum += int64(n)
	}
	slices.Sort(per)
	st := &SessionStats{Sessions: len(c.turns), Turns: describeSorted(per, sum)}
	for i, b := range c.byTurn {
		if b.n == 0 {
			continue
		}
		n := float64(b.n)
		ts := TurnStats{Turn: i + 1, Requests: b.n, Input: b.input / n, Think: b.think / n, Answer: b.answer / n}
		if g := b.think + b.answer; g > 0 {
			ts.ThinkShare = b.think / g
		}
		st.ByTurn = append(st.ByTurn, ts)
	}
	return st
}

// ClassStats is a StatsGroup for one class (effort mode × task category) as
// the log names it; an empty mode or category means the log did not say.
type ClassStats struct {
	Mode     string `json:"mode"`
	Category string `json:"category"`
	StatsGroup
}

// StatsGroup describes the generated tokens of a set of requests.
type StatsGroup struct {
	Count  int       `json:"count"`
	Think  TokenDist `json:"think"`
	Answer TokenDist `json:"answer"`
	// Total is think plus answer: every generated token, hidden or not, which
	// is what decode time and the bill follow. Prompt tokens are not in it.
	Total TokenDist `json:"total"`
	// ThinkShare is think tokens / (think + answer) tokens over the group:
	// the share of the generated tokens that the user never sees.
	ThinkShare float64      `json:"think_share"`
	Capacity   CapacityView `json:"capacity"`
	// FinishReasons counts the requests whose record has a finish reason;
	// the two rates below are fractions of them and are absent when none
	// has one.
	FinishReasons int `json:"finish_reasons"`
	// CapHitRate is the fraction that stopped at max_tokens (finish reason
	// "length").
	CapHitRate *float64 `json:"cap_hit_rate,omitempty"`
	// UnclosedThinkRate is the fraction cut at max_tokens before writing
	// any answer token: the <think> block was never closed, so the user got
	// nothing (the seed's most common "empty answer" incident).
	UnclosedThinkRate *float64 `json:"unclosed_think_rate,omitempty"`
}

// TokenDist summarises a per-request token count. Percentiles are
// Quantile's (numpy's default).
type TokenDist struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// CapacityView is a back-of-the-envelope sizing:
// a request takes total × tpot seconds to generate, and a server decoding
// Concurrency requests at once sustains Concurrency / (mean total × tpot)
// requests per second. It sizes on the tail, not on the mean.
type CapacityView struct {
	TPOTS       float64 `json:"tpot_s"`
	Concurrency int     `json:"concurrency"`
	// RequestS is the generation time of one request at the p50, p90 and p99
	// of total tokens.
	RequestS PercentilesS `json:"request_s"`
	// RequestsPerS is the sustainable request rate; 0 when the requests
	// generate no tokens at all (the rate is then unbounded).
	RequestsPerS float64 `json:"requests_per_s"`
}

// PercentilesS are three percentiles of a duration in seconds.
type PercentilesS struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// StatsAccumulator builds a StatsReport from request records fed one at a
// time, so that a log of any length streams through it. It keeps three
// int32 token counts per request (12 bytes; 12 MB for a million requests)
// because exact percentiles need every value, and sorts them once, in
// Result. The zero value is not usable: call NewStatsAccumulator.
type StatsAccumulator struct {
	opts    StatsOptions
	classes map[classKey]*tokenCounts
	// last caches the class of the previous request: logs often come in
	// runs of one class (a batch eval, a per-tenant export).
	lastKey classKey
	last    *tokenCounts
	// failed counts the result records that were not ok, by status.
	failed map[string]int
	// sessions counts the turns of multi-turn sessions.
	sessions sessionCounts
}

// tokenCounts are the raw counts of one class.
type tokenCounts struct {
	think, answer, total []int32
	sumThink, sumAnswer  int64
	finish, length       int // records with a finish reason; of them, cut at max_tokens
	unclosed             int // cut at max_tokens with no answer token
}

// NewStatsAccumulator returns an empty accumulator. Options out of range
// (see Validate) are replaced by the defaults.
func NewStatsAccumulator(opts StatsOptions) *StatsAccumulator {
	if opts.Validate() != nil {
		opts = StatsOptions{}
	}
	return &StatsAccumulator{opts: opts.withDefaults(), classes: map[classKey]*tokenCounts{}}
}

// Add counts one request.
func (a *StatsAccumulator) Add(r *workload.Request) {
	k := keyOf(r)
	c := a.last
	if c == nil || k != a.lastKey {
		c = a.classes[k]
		if c == nil {
			c = &tokenCounts{}
			a.classes[k] = c
		}
		a.lastKey, a.last = k, c
	}
	if r.SessionID != "" {
		a.sessions.add(r)
	}
	think, answer := clampTokens(r.ThinkTokens), clampTokens(r.AnswerTokens)
	c.think = append(c.think, think)
	c.answer = append(c.answer, answer)
	c.total = append(c.total, clampTokens(int(think)+int(answer)))
	c.sumThink += int64(think)
	c.sumAnswer += int64(answer)
	if r.FinishReason != "" {
		c.finish++
		if r.FinishReason == workload.FinishLength {
			c.length++
			if r.AnswerTokens == 0 {
				c.unclosed++
			}
		}
	}
}

// AddResult counts one result record: an ok one as its request (the
// tokens it generated), any other only by its status, since a failed
// request's counts say nothing of its lengths.
func (a *StatsAccumulator) AddResult(r *workload.Result) {
	if r.OK() {
		a.Add(&r.Request)
		return
	}
	if a.failed == nil {
		a.failed = map[string]int{}
	}
	a.failed[r.Status]++
}

// clampTokens stores a token count in an int32. The readers cap counts at
// workload.MaxTokens (1e9), so only a corrupt record could need the clamp.
func clampTokens(n int) int32 {
	return int32(min(max(n, 0), math.MaxInt32))
}

// Count is the number of requests added so far (ok result records
// included, failed ones not).
func (a *StatsAccumulator) Count() int {
	n := 0
	for _, c := range a.classes {
		n += len(c.think)
	}
	return n
}

// Result summarises the requests added so far. It sorts the stored counts in
// place, which leaves the accumulator valid: Add and Result may be called
// again.
func (a *StatsAccumulator) Result() StatsReport {
	keys := slices.SortedFunc(maps.Keys(a.classes), compareClasses)
	rep := StatsReport{Classes: make([]ClassStats, 0, len(keys))}
	all := &tokenCounts{}
	n := a.Count()
	all.think = make([]int32, 0, n)
	all.answer = make([]int32, 0, n)
	all.total = make([]int32, 0, n)
	for _, k := range keys {
		c := a.classes[k]
		rep.Classes = append(rep.Classes, ClassStats{Mode: k.mode, Category: k.category, StatsGroup: c.group(a.opts)})
		// The class slices are sorted by now; appending them makes sorted
		// runs, which the overall sort gets through quickly.
		all.think = append(all.think, c.think...)
		all.answer = append(all.answer, c.answer...)
		all.total = append(all.total, c.total...)
		all.sumThink += c.sumThink
		all.sumAnswer += c.sumAnswer
		all.finish += c.finish
		all.length += c.length
		all.unclosed += c.unclosed
	}
	rep.Overall = all.group(a.opts)
	rep.Sessions = a.sessions.stats()
	if len(a.failed) > 0 {
		rep.Failed = maps.Clone(a.failed)
	}
	return rep
}

// group sorts the counts and summarises them.
func (c *tokenCounts) group(opts StatsOptions) StatsGroup {
	slices.Sort(c.think)
	slices.Sort(c.answer)
	slices.Sort(c.total)
	n := len(c.think)
	g := StatsGroup{
		Count:         n,
		Think:         describeSorted(c.think, c.sumThink),
		Answer:        describeSorted(c.answer, c.sumAnswer),
		Total:         describeSorted(c.total, c.sumThink+c.sumAnswer),
		FinishReasons: c.finish,
	}
	if sum := c.sumThink + c.sumAnswer; sum > 0 {
		g.ThinkShare = float64(c.sumThink) / float64(sum)
	}
	g.Capacity = CapacityView{
		TPOTS:       opts.TPOTS,
		Concurrency: opts.Concurrency,
		RequestS: PercentilesS{
			P50: g.Total.P50 * opts.TPOTS,
			P90: g.Total.P90 * opts.TPOTS,
			P99: g.Total.P99 * opts.TPOTS,
		},
	}
	if g.Total.Mean > 0 {
		g.Capacity.RequestsPerS = float64(opts.Concurrency) / (g.Total.Mean * opts.TPOTS)
	}
	if c.finish > 0 {
		capHit := float64(c.length) / float64(c.finish)
		unclosed := float64(c.unclosed) / float64(c.finish)
		g.CapHitRate, g.UnclosedThinkRate = &capHit, &unclosed
	}
	return g
}

// describeSorted summarises sorted token counts whose sum is known; a zero
// TokenDist when there are none.
func describeSorted(sorted []int32, sum int64) TokenDist {
	n := len(sorted)
	if n == 0 {
		return TokenDist{}
	}
	return TokenDist{
		Mean: float64(sum) / float64(n),
		P50:  quantileInt32(sorted, 0.50),
		P90:  quantileInt32(sorted, 0.90),
		P99:  quantileInt32(sorted, 0.99),
		Max:  float64(sorted[n-1]),
	}
}

// quantileInt32 is Quantile (numpy's linear interpolation between closest
// ranks) for sorted, non-empty int32 values, without converting a million
// of them to float64 first.
func quantileInt32(sorted []int32, p float64) float64 {
	n := len(sorted)
	h := float64(n-1) * p
	lo := int(h)
	if lo >= n-1 {
		return float64(sorted[n-1])
	}
	a, b := float64(sorted[lo]), float64(sorted[lo+1])
	// The conversion keeps the compiler from fusing the multiply and add
	// (FMA on arm64), so every platform prints the same digits.
	return min(max(a+float64((h-float64(lo))*(b-a)), a), b)
}
