package emulator

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/workload"
)

// Version is the emulator's /version string prefix; the time scale
// follows so that a load test records it.
const Version = "thinkcap-emulator"

// routes mounts vLLM's routes. FastAPI answers an unknown route 404 and a
// wrong method 405 with {"detail": ...}; the OpenAI routes answer vLLM's
// error JSON.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/models", only(http.MethodGet, http.HandlerFunc(s.models)))
	mux.Handle(vllmapi.PathChatCompletions, only(http.MethodPost, http.HandlerFunc(s.chatCompletions)))
	mux.Handle(vllmapi.PathCompletions, only(http.MethodPost, http.HandlerFunc(s.completions)))
	mux.Handle("/health", only(http.MethodGet, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })))
	mux.Handle(vllmapi.PathVersion, only(http.MethodGet, http.HandlerFunc(s.version)))
	mux.Handle(vllmapi.PathMetrics, only(http.MethodGet, s.metrics.handler()))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { writeDetail(w, http.StatusNotFound, "Not Found") })
	return mux
}

// only answers methods other than m (and HEAD for GET) with 405.
func only(m string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != m && !(m == http.MethodGet && r.Method == http.MethodHead) {
			w.Header().Set("Allow", m)
			writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func writeDetail(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]string{"detail": detail})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"detail":"encoding error"}`)
	}
	writeBody(w, status, b)
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// writeError answers vLLM's error JSON (engine/protocol.py ErrorResponse).
func writeError(w http.ResponseWriter, e *apiError) {
	body := vllmapi.NewError(e.status, e.typ, e.msg)
	if e.param != "" {
		p := e.param
		body.Error.Param = &p
	}
	writeJSON(w, e.status, body)
}

// models is GET /v1/models: one card per served name, in the order given,
// each with the model path as its root and the effective max_model_len
// (serving_models.py show_available_models; models/api_router.py returns
// ModelList.model_dump(), every field).
func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	maxLen := s.simCfg.MaxModelLen
	list := vllmapi.ModelList{Object: vllmapi.ObjectList, Data: make([]vllmapi.ModelCard, 0, len(s.cfg.ServedModelNames))}
	for _, name := range s.cfg.ServedModelNames {
		list.Data = append(list.Data, vllmapi.ModelCard{
			ID: name, Object: vllmapi.ObjectModel, Created: s.created, OwnedBy: "vllm",
			Root: s.cfg.ModelPath, MaxModelLen: &maxLen,
			Permission: []vllmapi.ModelPermission{{
				ID: "modelperm-" + randomHex(8), Object: "model_permission", Created: s.created,
				AllowSampling: true, AllowLogprobs: true, AllowView: true, Organization: "*",
			}},
		})
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) version(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, vllmapi.Version{Version: fmt.Sprintf("%s %s time_scale=%g", Version, s.ModelName(), s.cfg.TimeScale)})
}

func (s *Server) chatCompletions(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, true)
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	s.serve(w, r, false)
}

// serve runs one generation request from body to last byte.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, chat bool) {
	s.active.Add(1)
	defer s.active.Add(-1)
	if s.draining.Load() {
		writeError(w, &apiError{status: http.StatusServiceUnavailable, typ: "ServiceUnavailableError", msg: "the server is shutting down"})
		return
	}
	var p *parsed
	var perr *apiError
	if chat {
		p, perr = s.parseChat(r)
	} else {
		p, perr = s.parseCompletion(r)
	}
	if perr != nil {
		writeError(w, perr)
		return
	}
	if p.id == "" {
		p.id = r.Header.Get(vllmapi.HeaderRequestID)
	}
	if p.id == "" {
		p.id = randomHex(8)
	}
	// Fault injection, seeded: a 5xx before any work.
	if s.chance(s.cfg.FailRate) {
		if s.uniform(2) == 0 {
			writeError(w, &apiError{status: 500, typ: vllmapi.ErrorTypeInternal, msg: "emulated engine failure (--fail-rate)"})
		} else {
			writeError(w, &apiError{status: 503, typ: "ServiceUnavailableError", msg: "emulated overload (--fail-rate)"})
		}
		return
	}
	if d := s.cfg.HeaderDelay; d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	think, answer, byLength := s.lengths(p)
	j := &job{id: p.id, req: p.request(think, answer, byLength), ack: make(chan struct{})}
	j.sink = newSink(s, j)
	if !s.submit(j) {
		writeError(w, &apiError{status: 503, typ: "ServiceUnavailableError", msg: "the engine has stopped"})
		return
	}
	if res := j.sink.finished(); res != nil && res.Status == workload.StatusRejected {
		// sim.Live rejects what can never fit the KV cache.
		writeError(w, &apiError{status: 400, typ: vllmapi.ErrorTypeBadRequest, param: "input_tokens", msg: res.Error})
		return
	}
	finish := vllmapi.FinishStop
	if byLength {
		finish = vllmapi.FinishLength
	}
	idPrefix := "cmpl-"
	if chat {
		idPrefix = "chatcmpl-"
	}
	o := newOutput(s, p, idPrefix+p.id, think)
	if p.stream {
		s.stream(w, r, j, o, finish)
		return
	}
	res := s.wait(r, j)
	if res == nil {
		return
	}
	if res.Status != workload.StatusOK && res.Status != workload.StatusTruncated {
		writeError(w, &apiError{status: 500, typ: vllmapi.ErrorTypeInternal, msg: "request " + res.Status})
		return
	}
	writeBody(w, http.StatusOK, o.full(idPrefix+p.id, s.created, s.ModelName(), res.ThinkTokens, res.AnswerTokens, finish))
}

// wait blocks until j finishes; nil when the client left (j is then
// cancelled) or the server stopped.
func (s *Server) wait(r *http.Request, j *job) *workload.Result {
	var buf []step
	for {
		select {
		case <-j.sink.notify:
		case <-r.Context().Done():
			s.cancel(j)
			return nil
		case <-s.stop:
			return nil
		}
		var res *workload.Result
		buf, res = j.sink.take(buf[:0])
		if res != nil {
			return res
		}
	}
}

// randomHex is n random bytes in hex, for ids.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
