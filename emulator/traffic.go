package emulator

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/thinkcap/thinkcap/workload"
)

// ClassSampler draws a request's (think, answer) lengths from a traffic
// profile's classes, by share, among the classes that fit its thinking
// mode:
//
//   - thinking off: the classes that do not think (their answer lengths);
//     all classes when none is such, with the thinking dropped;
//   - thinking on with a reasoning_effort: the thinking classes whose mode
//     is that effort, else the nearest effort the profile has (ties go to
//     the lower one), so that more effort never draws less thinking;
//   - thinking on otherwise: every thinking class, never a class that does
//     not think.
//
// A thinking draw has at least one thinking token. Use it as
// Config.Traffic (s.Draw); it is not safe for concurrent use, which the
// server's lock provides.
type ClassSampler struct {
	classes         []workload.Class
	plain, thinking []int // indices of the classes that do not think, that do
	// byEffort are the thinking classes by the rank of their mode
	// (effortRank), effortRanks the ranks present, ascending.
	byEffort     map[int][]int
	effortTotals map[int]float64
	effortRanks  []int

	totalAll, totalPlain, totalThinking float64
	class, think, answer                *rand.Rand
}

// NewClassSampler prepares a sampler over classes, its random streams
// derived from seed.
func NewClassSampler(classes []workload.Class, seed uint64) (*ClassSampler, error) {
	if len(classes) == 0 {
		return nil, errors.New("traffic: no classes")
	}
	s := &ClassSampler{
		classes:  classes,
		byEffort: map[int][]int{}, effortTotals: map[int]float64{},
		class:  workload.NewStream(seed, "serve/class"),
		think:  workload.NewStream(seed, "serve/think"),
		answer: workload.NewStream(seed, "serve/answer"),
	}
	for i, c := range classes {
		share := max(c.Share, 0)
		s.totalAll += share
		if !thinks(c) {
			s.plain = append(s.plain, i)
			s.totalPlain += share
			continue
		}
		s.thinking = append(s.thinking, i)
		s.totalThinking += share
		if r := effortRank(c.Mode); r > 0 {
			if _, ok := s.byEffort[r]; !ok {
				s.effortRanks = append(s.effortRanks, r)
			}
			s.byEffort[r] = append(s.byEffort[r], i)
			s.effortTotals[r] += share
		}
	}
	if s.totalAll <= 0 {
		return nil, errors.New("traffic: every class has share 0")
	}
	slices.Sort(s.effortRanks)
	return s, nil
}

// thinks reports whether class c generates thinking at all.
func thinks(c workload.Class) bool { return c.Think != nil && c.Think.Mean() > 0 }

// Draw draws one (think, answer) pair for a request whose thinking is m.
func (s *ClassSampler) Draw(m Thinking) (think, answer int) {
	set, total := s.candidates(m)
	c := s.classes[s.pick(set, total)]
	if c.Think != nil && m.On {
		think = c.Think.Sample(s.think)
	}
	if c.Answer != nil {
		answer = c.Answer.Sample(s.answer)
	}
	if m.On {
		// Thinking on opens the reasoning: at least one token of it.
		think = max(think, 1)
	}
	return think, answer
}

// candidates is the classes m draws from and their total share; nil means
// all classes.
func (s *ClassSampler) candidates(m Thinking) ([]int, float64) {
	if !m.On {
		if len(s.plain) > 0 && s.totalPlain > 0 {
			return s.plain, s.totalPlain
		}
		return nil, s.totalAll
	}
	if r := effortRank(m.Effort); r > 0 && len(s.effortRanks) > 0 {
		best := s.effortRanks[0]
		for _, er := range s.effortRanks {
			if abs(er-r) < abs(best-r) {
				best = er
			}
		}
		if s.effortTotals[best] > 0 {
			return s.byEffort[best], s.effortTotals[best]
		}
	}
	if len(s.thinking) > 0 && s.totalThinking > 0 {
		return s.thinking, s.totalThinking
	}
	return nil, s.totalAll
}

// pick draws one class index of set (nil: all classes) by share.
func (s *ClassSampler) pick(set []int, total float64) int {
	u := s.class.Float64() * total
	if set == nil {
		for i, c := range s.classes {
			if u < max(c.Share, 0) {
				return i
			}
			u -= max(c.Share, 0)
		}
		return len(s.classes) - 1
	}
	for _, i := range set {
		if u < max(s.classes[i].Share, 0) {
			return i
		}
		u -= max(s.classes[i].Share, 0)
	}
	return set[len(set)-1]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
