package emulator

import (
	"net/http"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// stream writes j's events as they come from the engine: the headers at
// once (vLLM's StreamingResponse), then, with the first engine output, the
// role chunk (chat) and one chunk per engine step that produced tokens for
// the request; several steps are coalesced only when the client reads
// slower than the engine writes. The finish reason rides on the last
// token chunk, then the usage chunk (include_usage) and [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, j *job, o *output, finish string) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	_ = rc.Flush()

	abortAt := -1 // tokens after which the connection is dropped
	if total := j.req.OutputTokens(); s.chance(s.cfg.AbortRate) {
		abortAt = 1 + s.uniform(max(total-1, 1))
	}
	var steps []step
	var b []byte
	started := false
	for {
		select {
		case <-j.sink.notify:
		case <-r.Context().Done():
			s.cancel(j) // the client went away: free its blocks
			return
		case <-s.stop:
			b = errorChunk(b[:0], 500, vllmapi.ErrorTypeInternal, "the engine has stopped")
			_, _ = w.Write(b)
			_ = rc.Flush()
			return
		}
		var res *workload.Result
		steps, res = j.sink.take(steps)
		if res == nil && o.completion()+stepTokens(steps) >= j.req.OutputTokens() {
			// The last step is in, its Finished is on the way: hold the
			// step so the finish reason rides on it.
			continue
		}
		b = b[:0]
		if len(steps) > 0 && !started && o.chat {
			b = o.roleChunk(b)
		}
		started = started || len(steps) > 0
		for i, st := range steps {
			f := ""
			if res != nil && i == len(steps)-1 {
				f = finish
			}
			b = o.chunk(b, st.think, st.answer, f)
			if abortAt >= 0 && o.completion() >= abortAt {
				// Checked per step, not per wake-up: a slow handler that
				// finds the whole answer in at once still drops mid-way.
				_, _ = w.Write(b)
				_ = rc.Flush()
				s.cancel(j)
				dropConnection(w)
				return
			}
		}
		if res != nil {
			if res.Status != workload.StatusOK && res.Status != workload.StatusTruncated {
				b = errorChunk(b, 500, vllmapi.ErrorTypeInternal, "request "+res.Status)
				_, _ = w.Write(b)
				_ = rc.Flush()
				return
			}
			if len(steps) == 0 {
				b = o.chunk(b, 0, 0, finish)
			}
			if o.includeUsage {
				b = o.usageChunk(b)
			}
			b = append(b, doneEvent...)
			_, _ = w.Write(b)
			_ = rc.Flush()
			return
		}
		steps = steps[:0]
		if len(b) > 0 {
			_, _ = w.Write(b)
			_ = rc.Flush()
		}
	}
}

// dropConnection closes the connection under a streaming response
// mid-way (--abort-rate): the client sees the body end without [DONE].
func dropConnection(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	if conn, _, err := rc.Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	// HTTP/2 cannot hijack: abort the handler, which resets the stream.
	panic(http.ErrAbortHandler)
}

// stepTokens sums the tokens of steps.
func stepTokens(steps []step) int {
	n := 0
	for _, s := range steps {
		n += s.think + s.answer
	}
	return n
}
