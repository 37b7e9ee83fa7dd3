package sim

import (
	"container/heap"
	"fmt"
	"slices"

	"github.com/thinkcap/thinkcap/workload"
)

// followUps tracks requests that a gateway sends when another finishes
// (workload.Request.After): phase 2 of a two-phase thinking budget, an
// escalation retry. They are issued at their predecessor's completion plus
// their ArrivalS, and may hit the predecessor's blocks in the prefix cache,
// as a real second call with prompt + trace would.
type followUps struct {
	parent map[int]int   // follow-up → predecessor; nil when there are none
	kids   map[int][]int // predecessor → follow-ups
	reqs   []workload.Request
	due    dueHeap
}

// index finds the follow-ups. After must name an earlier request, so chains
// cannot loop.
func (f *followUps) index(reqs []workload.Request) error {
	f.reqs = reqs
	if !slices.ContainsFunc(reqs, func(r workload.Request) bool { return r.After != "" }) {
		return nil // no follow-up: no index of a million ids
	}
	byID := map[string]int{}
	for i := range reqs {
		r := &reqs[i]
		if r.After != "" {
			p, ok := byID[r.After]
			if !ok {
				return fmt.Errorf("request %d (%s): after %q: no earlier request has that id", i+1, r.ID, r.After)
			}
			if f.parent == nil {
				f.parent, f.kids = map[int]int{}, map[int][]int{}
			}
			f.parent[i] = p
			f.kids[p] = append(f.kids[p], i)
		}
		if r.ID != "" {
			if _, dup := byID[r.ID]; !dup {
				byID[r.ID] = i
			}
		}
	}
	return nil
}

func (f *followUps) dependent(i int) bool {
	_, ok := f.parent[i]
	return ok
}

// parentOf is the predecessor of request i, or -1.
func (f *followUps) parentOf(i int) int {
	if p, ok := f.parent[i]; ok {
		return p
	}
	return -1
}

func (f *followUps) children(i int) []int { return f.kids[i] }

// wantsBlocks reports whether a follow-up of request i takes i's sequence
// as its prompt prefix.
func (f *followUps) wantsBlocks(i int) bool {
	for _, k := range f.kids[i] {
		if r := &f.reqs[k]; r.PrefixTokens > 0 && r.PrefixID == "" {
			return true
		}
	}
	return false
}

func (f *followUps) push(t int64, i int) { heap.Push(&f.due, due{t, i}) }

// peek is the earliest due follow-up, or never.
func (f *followUps) peek() (int64, int) {
	if len(f.due) == 0 {
		return never, -1
	}
	return f.due[0].t, f.due[0].i
}

func (f *followUps) pop() { heap.Pop(&f.due) }

type due struct {
	t int64
	i int
}

// dueHeap orders follow-ups by time, then request order.
type dueHeap []due

func (h dueHeap) Len() int { return len(h) }
func (h dueHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].i < h[j].i
}
func (h dueHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dueHeap) Push(x any)   { *h = append(*h, x.(due)) }
func (h *dueHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// inheritBlocks hands a finished predecessor's cached blocks to its
// follow-up when both run on the same replica; on another replica they are
// just cached blocks nobody will hit.
func (c *cluster) inheritBlocks(s, p *seq, e *engine) {
	g := p.own
	if g == nil {
		return
	}
	p.own = nil
	if p.replica != e.id || !c.follow.wantsBlocksOf(s.idx) {
		c.engines[p.replica].pool.forget(g)
		return
	}
	s.own, s.ownStart = g, p.ownStart
	// It hits the predecessor's sequence only as far as its own prompt
	// repeats it (a session's history without the earlier thinking stops
	// matching where that thinking began).
	s.ownLimit = c.reqs[s.idx].PrefixTokens / e.bs
	s.prefixID, s.prefixTokens = p.prefixID, p.prefixTokens
}

// sessionTurns reports whether the follow-ups are a session's next turns.
func (f *followUps) sessionTurns(kids []int) bool {
	for _, k := range kids {
		if f.reqs[k].SessionID == "" {
			return false
		}
	}
	return true
}

// wantsBlocksOf reports whether follow-up i takes its predecessor's
// sequence as its prefix.
func (f *followUps) wantsBlocksOf(i int) bool {
	r := &f.reqs[i]
	return r.PrefixTokens > 0 && r.PrefixID == ""
}
