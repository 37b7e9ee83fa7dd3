package workload

import (
	"math"
	"slices"
	"strconv"
)

// BlockS is the length of the blocks of time BlockResample draws a log
// by: at least a minute, so that a burst survives whole, and at least a
// hundredth of the log, so that a day is drawn from about a hundred
// pieces rather than a thousand.
func BlockS(reqs []Request) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range reqs {
		if reqs[i].After == "" {
			lo, hi = min(lo, reqs[i].ArrivalS), max(hi, reqs[i].ArrivalS)
		}
	}
	if hi < lo {
		return 60
	}
	return max(60, (hi-lo)/100)
}

// BlockResample is another draw of a log as chance could have made it (a
// moving-block bootstrap): the log's time cut into blocks of blockS
// seconds, and each block of the new log one of them drawn with
// replacement, its requests moved to the new block's time. Bursts and the
// mix within a block survive; which blocks the day holds is redrawn. A
// request's follow-ups and a session's turns travel with their first
// request; copies get new ids (and session ids), "~" and the block index.
func BlockResample(reqs []Request, blockS float64, seed uint64) []Request {
	if len(reqs) == 0 || !(blockS > 0) {
		return slices.Clone(reqs)
	}
	// Units: a first request with its follow-ups, or a whole session.
	ids := make(map[string]int, len(reqs))
	for i := range reqs {
		if reqs[i].ID != "" {
			ids[reqs[i].ID] = i
		}
	}
	unitOf := make([]int, len(reqs))
	sessionUnit := map[string]int{}
	var units [][]int
	for i := range reqs {
		u := -1
		switch {
		case reqs[i].After != "":
			if j, ok := ids[reqs[i].After]; ok && j < i {
				u = unitOf[j]
			}
		case reqs[i].SessionID != "":
			if v, ok := sessionUnit[reqs[i].SessionID]; ok {
				u = v
			}
		}
		if u < 0 {
			u = len(units)
			units = append(units, nil)
			if reqs[i].SessionID != "" {
				sessionUnit[reqs[i].SessionID] = u
			}
		}
		unitOf[i] = u
		units[u] = append(units[u], i)
	}
	start := math.Inf(1)
	unitStart := make([]float64, len(units))
	for u, members := range units {
		unitStart[u] = math.Inf(1)
		for _, i := range members {
			if reqs[i].After == "" {
				unitStart[u] = min(unitStart[u], reqs[i].ArrivalS)
			}
		}
		start = min(start, unitStart[u])
	}
	nBlocks := 1
	blocks := map[int][]int{} // block -> units, in log order
	for u := range units {
		b := 0
		if !math.IsInf(unitStart[u], 0) {
			b = int((unitStart[u] - start) / blockS)
		}
		blocks[b] = append(blocks[b], u)
		nBlocks = max(nBlocks, b+1)
	}
	r := NewStream(seed, "block-resample")
	out := make([]Request, 0, len(reqs))
	for j := range nBlocks {
		src := r.IntN(nBlocks)
		shift := float64(j-src) * blockS
		suffix := "~" + strconv.Itoa(j)
		for _, u := range blocks[src] {
			for _, i := range units[u] {
				q := reqs[i]
				if q.After == "" {
					q.ArrivalS += shift
				} else {
					q.After += suffix
				}
				if q.ID != "" {
					q.ID += suffix
				}
				if q.SessionID != "" {
					q.SessionID += suffix
				}
				out = append(out, q)
			}
		}
	}
	return out
}
