package sim

// This file is the API server's own time: a request reaches the engine
// only after vLLM's front end has taken it in (HTTP, request processing and
// tokenisation in vllm/entrypoints/openai/serving_*.py and
// vllm/v1/engine/processor.py, in the API server's process), and its
// chunks leave through the same process. The client's TTFT and E2E include
// that time; the engine's (vllm:time_to_first_token_seconds counts from the
// engine's arrival) and the queue time do not.
//
// Simplified: the front end is a delay, not a queue of its own: on
// average api_request_overhead_ms plus api_prompt_token_us per prompt
// token, drawn uniformly from half to one and a half times that (the real
// server's time varies with its event loop; without the spread a closed
// loop's requests would all land at one point of the engine's step, where
// the real ones land anywhere in it). The outbound part is charged on the
// way in (a constant per request, it moves the first and the last token
// alike).

// APIDelayS is the API server's mean time for a request of prompt tokens,
// in seconds: when, after the client sent it, the engine sees it.
func (c *Config) APIDelayS(prompt int) float64 { return c.apiDelayNs(prompt) / 1e9 }

// apiDelayNs is the front end's mean time for a request of prompt tokens.
func (c *Config) apiDelayNs(prompt int) float64 {
	k := &c.Step
	return k.APIRequestOverheadMs*1e6 + k.APIPromptTokenUs*1e3*float64(prompt)
}

// inTransit is a request on its way through the front end to engine e.
type inTransit struct {
	at int64
	s  *seq
	e  *engine
}

// transitHeap orders requests in the front end by when they reach their
// engine (then by request, so simultaneous ones keep their order). A typed
// binary heap: container/heap would box every request it holds.
type transitHeap []inTransit

func (h transitHeap) less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].s.idx < h[j].s.idx
}

func (h *transitHeap) push(x inTransit) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// remove takes out the element at i and returns it.
func (h *transitHeap) remove(i int) inTransit {
	q := *h
	x := q[i]
	last := len(q) - 1
	q[i] = q[last]
	q[last] = inTransit{}
	q = q[:last]
	*h = q
	if i < len(q) {
		q.down(i)
		q.up(i)
	}
	return x
}

func (h transitHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (h transitHeap) down(i int) {
	for {
		l, m := 2*i+1, i
		if l < len(h) && h.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(h) && h.less(r, m) {
			m = r
		}
		if m == i {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// next is when the first request in transit reaches its engine, or never.
func (h transitHeap) next() int64 {
	if len(h) == 0 {
		return never
	}
	return h[0].at
}

// toEngine sends s, arrived at t, through the front end to e: at once when
// the front end costs nothing, else it reaches e after the API delay. It
// returns e when e's state changed now.
func (c *cluster) toEngine(e *engine, s *seq, t int64) *engine {
	d := int64(c.cfg.apiDelayNs(s.prompt) * (0.5 + splitmix(&e.apiState)))
	s.engineArrival = t + d
	if d <= 0 {
		e.enqueue(s, t)
		return e
	}
	c.transit.push(inTransit{t + d, s, e})
	e.inTransit++
	return nil
}

// land delivers the first request in transit to its engine, which it
// returns.
func (c *cluster) land() *engine {
	x := c.transit.remove(0)
	x.e.inTransit--
	x.e.enqueue(x.s, x.at)
	return x.e
}

// find is the index of s in the heap, or -1 (a live request cancelled
// while the front end still has it).
func (h transitHeap) find(s *seq) int {
	for i := range h {
		if h[i].s == s {
			return i
		}
	}
	return -1
}
