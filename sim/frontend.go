package sim

import (
	"math"

	"github.com/thinkcap/thinkcap/internal/splitmix"
)

// This file is the API server's own time: a request reaches the engine
// only after vLLM's front end has taken it in (HTTP, request processing and
// tokenisation in vllm/entrypoints/openai/serving_*.py and
// vllm/v1/engine/processor.py, in the API server's process), and its
// chunks leave through the same process. The client's TTFT and E2E include
// that time; the engine's (vllm:time_to_first_token_seconds counts from the
// engine's arrival) and the queue time do not.
//
// The front end is two things. A latency: on average
// api_request_overhead_ms plus api_prompt_token_us per prompt token, drawn
// uniformly from half to one and a half times that (the real server's time
// varies with its event loop; without the spread a closed loop's requests
// would all land at one point of the engine's step, where the real ones
// land anywhere in it). And work: api_server_cpu_ms of one process per
// request (the same draw), in the API server process, one per `vllm serve`
// (more with --api-server-count: vllm/entrypoints/cli/serve.py, one per
// data-parallel rank by default), whose event loop interleaves every
// request it holds: a processor shared equally among them. Alone in the
// server a request's work fits inside its latency; with n others beside it
// on c processes it advances at min(1, c/n) of a process, and a burst of a
// thousand requests waits for the whole burst's work, as the real server
// makes it wait. A request reaches its engine when both are done.
//
// Simplified: the outbound part (detokenisation, SSE) is charged on the way
// in (a constant per request, it moves the first and the last token alike)
// and does not compete with the inbound work.
//
// The LLM class (--entry-point llm, `vllm bench throughput`) has no API
// server: no HTTP, no chat template, no per-request server work. It still
// tokenises each prompt given as text, in the caller's process, one after
// another: vllm/entrypoints/llm.py _validate_and_add_requests adds the
// prompts in turn, and each add_request (vllm/v1/engine/llm_engine.py)
// runs the input processor (vllm/v1/engine/processor.py process_inputs,
// the tokenizer) before it hands the request to the engine core, which
// runs in its own process and starts on the first requests while the rest
// are tokenised. So a request reaches its engine api_prompt_token_us per
// prompt token after the tokenizer is free (tokenizerFree), first come
// first served. Prompts given as token ids skip the tokenizer: not
// modelled (the benchmark's random and ShareGPT prompts are text).

// APIDelayS is the API server's mean time for a request of prompt tokens,
// in seconds: when, after the client sent it, the engine sees it.
func (c *Config) APIDelayS(prompt int) float64 { return c.apiDelayNs(prompt) / 1e9 }

// APIServerCPUMs is the API server's work per request for c's model: the
// Harmony renderer's for gpt-oss where the coefficients have one
// (vllm/entrypoints/openai/serving_chat.py renders gpt-oss's chat with
// openai_harmony, every other model's with its Jinja chat template); none
// in the LLM class, which has no API server.
func (c *Config) APIServerCPUMs() float64 {
	switch {
	case c.LLMClass():
		return 0
	case c.HarmonyAPIWork():
		return c.Step.HarmonyAPIServerCPUMs
	}
	return c.Step.APIServerCPUMs
}

// HarmonyAPIWork reports whether APIServerCPUMs is the Harmony renderer's
// figure: a gpt-oss model whose coefficients have one.
func (c *Config) HarmonyAPIWork() bool { return c.HarmonyChat() && c.Step.HarmonyAPIServerCPUMs > 0 }

// HarmonyChat reports whether c's model speaks OpenAI's Harmony chat
// format (gpt-oss: vLLM's use_harmony, from its model type).
func (c *Config) HarmonyChat() bool { return c.Model.Family == "gpt-oss" }

// apiDelayNs is the front end's mean time for a request of prompt tokens:
// the LLM class's tokenisation alone (LLMClass).
func (c *Config) apiDelayNs(prompt int) float64 {
	k := &c.Step
	tokenise := k.APIPromptTokenUs * 1e3 * float64(prompt)
	if c.LLMClass() {
		return tokenise
	}
	return k.APIRequestOverheadMs*1e6 + tokenise
}

// LLMClass reports whether c is started as vLLM's LLM class
// (--entry-point llm): no API server, the prompts tokenised in turn in
// the caller's process.
func (c *Config) LLMClass() bool { return c.EntryPoint == "llm" }

// frontFloorNs is the least time the front end holds a request: half the
// API server's per-request latency (toEngine's shortest draw), none in the
// LLM class (an empty prompt on an idle tokenizer).
func (c *Config) frontFloorNs() int64 {
	if c.LLMClass() {
		return 0
	}
	return int64(c.apiDelayNs(0) * 0.5)
}

// apiServer is one replica's API server: a processor shared by the
// requests in it. All of them advance at one speed, so they leave in the
// order of the work each has left, and a request's finishing point on the
// server's work clock (served) is fixed when it arrives: only the mapping
// from that clock to time changes with the number in the server.
type apiServer struct {
	processes float64 // --api-server-count
	served    float64 // work (ns) each request in the server has had since it was last empty
	last      int64   // when served was brought up to date
	jobs      apiJobs
}

// apiJob is a request in the API server, done when served reaches done;
// it goes on to its engine at notBefore at the earliest (its latency).
type apiJob struct {
	done      float64
	notBefore int64
	s         *seq
}

// speed is the fraction of a process each request in the server gets.
func (a *apiServer) speed() float64 {
	return min(1, a.processes/float64(max(len(a.jobs), 1)))
}

// catchUp brings served up to time t.
func (a *apiServer) catchUp(t int64) {
	if len(a.jobs) > 0 && t > a.last {
		a.served += float64(t-a.last) * a.speed()
	}
	a.last = max(a.last, t)
}

// add takes in job at time t with work ns of work.
func (a *apiServer) add(job apiJob, work float64, t int64) {
	a.catchUp(t)
	if len(a.jobs) == 0 {
		a.served = 0
	}
	job.done = a.served + work
	a.jobs.push(job)
}

// next is when the first request in the server is done, or never.
func (a *apiServer) next() int64 {
	if len(a.jobs) == 0 {
		return never
	}
	left := a.jobs[0].done - a.served
	if left <= 0 {
		return a.last
	}
	return a.last + int64(math.Ceil(left/a.speed()))
}

// take removes the request at index i at time t and returns it.
func (a *apiServer) take(i int, t int64) apiJob {
	a.catchUp(t)
	return a.jobs.remove(i)
}

// apiJobs orders the requests in an API server by when they are done
// (then by request, so simultaneous ones keep their order).
type apiJobs = minHeap[apiJob]

func (x apiJob) before(y apiJob) bool {
	return x.done < y.done || x.done == y.done && x.s.idx < y.s.idx
}

func (x apiJob) request() *seq { return x.s }

// inTransit is a request whose work is done, waiting out the rest of its
// latency before it reaches engine e.
type inTransit struct {
	at int64
	s  *seq
	e  *engine
}

// transitHeap orders requests in transit by when they reach their engine
// (then by request, so simultaneous ones keep their order).
type transitHeap = minHeap[inTransit]

func (x inTransit) before(y inTransit) bool {
	return x.at < y.at || x.at == y.at && x.s.idx < y.s.idx
}

func (x inTransit) request() *seq { return x.s }

// nextTransit is when the first request in transit reaches its engine, or
// never.
func nextTransit(h transitHeap) int64 {
	if len(h) == 0 {
		return never
	}
	return h[0].at
}

// toEngine sends s, arrived at t, through e's API server. It returns e
// when e's state changed now (the front end costs nothing), else nil.
func (c *cluster) toEngine(e *engine, s *seq, t int64) *engine {
	if c.cfg.LLMClass() {
		e.tokenizerFree = max(t, e.tokenizerFree) + int64(c.cfg.apiDelayNs(s.prompt))
		e.inFront++
		return c.pass(e, s, e.tokenizerFree, t)
	}
	draw := 0.5 + splitmix.Float64(&e.apiState)
	at := t + int64(c.cfg.apiDelayNs(s.prompt)*draw)
	if work := c.cfg.APIServerCPUMs() * 1e6 * draw; work >= 1 {
		e.api.add(apiJob{notBefore: at, s: s}, work, t)
		e.inFront++
		c.serverStale = true
		return nil
	}
	e.inFront++
	return c.pass(e, s, at, t)
}

// pass sends s on to e at time at, the API server done with it at now: at
// once when its latency is over, else through transit. It returns e when
// e's state changed now.
func (c *cluster) pass(e *engine, s *seq, at, now int64) *engine {
	if at > now {
		c.transit.push(inTransit{at, s, e})
		return nil
	}
	e.inFront--
	s.engineArrival = now
	e.enqueue(s, now)
	return e
}

// nextServed is when the next request's work in an API server is done,
// and whose server; kept until an API server changes, so that engine steps
// do not rescan the replicas.
func (c *cluster) nextServed() (int64, *engine) {
	if c.serverStale {
		c.servedAt, c.servedBy = never, nil
		for _, e := range c.engines {
			if t := e.api.next(); t < c.servedAt {
				c.servedAt, c.servedBy = t, e
			}
		}
		c.serverStale = false
	}
	return c.servedAt, c.servedBy
}

// nextFront is the front end's next event, or never.
func (c *cluster) nextFront() int64 {
	t, _ := c.nextServed()
	return min(t, nextTransit(c.transit))
}

// front handles the front end's next event: a request out of transit into
// its engine, or one whose work is done. It returns the engine whose state
// changed, or nil.
func (c *cluster) front() *engine {
	ts, e := c.nextServed()
	if tt := nextTransit(c.transit); tt <= ts {
		x := c.transit.remove(0)
		return c.pass(x.e, x.s, x.at, x.at)
	}
	job := e.api.take(0, ts)
	c.serverStale = true
	return c.pass(e, job.s, job.notBefore, ts)
}

// leaveFront takes s out of e's front end at t (a live request cancelled
// there) and reports whether it was there.
func (c *cluster) leaveFront(e *engine, s *seq, t int64) bool {
	if i := e.api.jobs.find(s); i >= 0 {
		e.api.take(i, t)
		c.serverStale = true
	} else if i := c.transit.find(s); i >= 0 {
		c.transit.remove(i)
	} else {
		return false
	}
	e.inFront--
	return true
}
