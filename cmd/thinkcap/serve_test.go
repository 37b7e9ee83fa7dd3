package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// e2eScale runs the engine 5× faster than real time: fast enough for a
// unit test, slow enough that HTTP and scheduling overheads stay small
// against steps of a few wall ms.
const e2eScale = 5

// e2eSlackS is the absolute part of the tolerance: a request's HTTP round
// trip, JSON parsing and the engine's timer wake-up, measured at 2-7 ms on
// a 2-CPU machine under -race (about 3 ms without it).
const e2eSlackS = 0.015

// serveEmulator runs emu and serves it on loopback until the test ends or
// timeout passes; ctx is the emulator's run.
func serveEmulator(t *testing.T, emu *emulator.Server, timeout time.Duration) (ctx context.Context, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	go func() { _ = emu.Run(ctx) }()
	srv := httptest.NewServer(emu.Handler())
	t.Cleanup(func() {
		srv.Close()
		emu.Close()
		cancel()
	})
	return ctx, srv.URL
}

// TestServeLoadtestAgreement drives the emulator with the load generator on
// a real loopback port and compares what the client measured with the
// engine's own per-request records: TTFT and TPOT within 5% + e2eSlackS of the
// engine's times at the scale (wall = simulated / scale), token counts
// exact, and /metrics' preemptions equal to the records' sum.
func TestServeLoadtestAgreement(t *testing.T) {
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	var mu sync.Mutex
	engine := map[string]workload.Result{}
	emu, err := emulator.New(emulator.Config{
		// A small cache so that requests queue and get preempted.
		Sim:       sim.Config{Model: model, GPU: gpu, NumGPUBlocksOverride: 120},
		TimeScale: e2eScale, Seed: 3,
		OnResult: func(r workload.Result) {
			mu.Lock()
			engine[r.ID] = r
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, srvURL := serveEmulator(t, emu, 60*time.Second)

	reqs, err := workload.Synthetic{Requests: 24, RatePerS: 400, Seed: 5, Classes: []workload.Class{{
		Share: 1, Prompt: simtest.Dist(t, "200"), Think: simtest.Dist(t, "60"), Answer: simtest.Dist(t, "20"),
	}}}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	measured := measureForced(ctx, t, srvURL, emu.ModelName(), reqs)
	mu.Lock()
	defer mu.Unlock()
	preempted, worst := 0, 0.0
	// A stall of the test process (a collection, another test's goroutines
	// on two CPUs) delays the responses due during it by tens of ms, and
	// only delays them; a wrong clock or a wrong engine time moves every
	// request, or moves some early. So a measurement may arrive late by up
	// to e2eStallS past the tolerance while most requests keep within it;
	// none may arrive early.
	const e2eStallS = 0.1
	late := map[string]bool{}
	var outliers []string
	close := func(what, id string, got, want float64) {
		worst = max(worst, math.Abs(got-want)-0.05*want)
		tol := 0.05*want + e2eSlackS
		if d := math.Abs(got - want); d > tol {
			msg := fmt.Sprintf("%s %s: measured %.4f s, engine %.4f s (tolerance %.4f)", id, what, got, want, tol)
			outliers = append(outliers, msg)
			late[id] = true
			if got < want || d > tol+e2eStallS {
				t.Error(msg)
			}
		}
	}
	for _, r := range reqs {
		m, e := measured[r.ID], engine[r.ID]
		if !m.OK() || e.Status != workload.StatusOK {
			t.Fatalf("%s: client %s %q, engine %s", r.ID, m.Status, m.Error, e.Status)
		}
		if m.ThinkTokens != e.ThinkTokens || m.AnswerTokens != e.AnswerTokens || m.ThinkTokens+m.AnswerTokens != 80 || m.PromptTokens != e.PromptTokens {
			t.Errorf("%s: measured %d/%d/%d tokens, engine %d/%d/%d", r.ID, m.PromptTokens, m.ThinkTokens, m.AnswerTokens, e.PromptTokens, e.ThinkTokens, e.AnswerTokens)
		}
		close("ttft", r.ID, m.FirstToken.Sub(m.Sent).Seconds(), e.TTFTS/e2eScale)
		tpot := m.LastToken.Sub(m.FirstToken).Seconds() / float64(m.ThinkTokens+m.AnswerTokens-1)
		close("tpot", r.ID, tpot, e.TPOTS/e2eScale)
		preempted += e.Preemptions
	}
	if 2*len(late) > len(reqs) {
		t.Errorf("%d of %d requests measured late beyond the tolerance: %q", len(late), len(reqs), outliers)
	}
	snap, err := loadgen.NewScraper(loadgen.ScraperConfig{URL: srvURL}).Scrape(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if preempted == 0 || snap.Preemptions != float64(preempted) {
		t.Fatalf("preemptions: /metrics %g, records %d (want > 0 and equal)", snap.Preemptions, preempted)
	}
	t.Logf("%d requests, %d preemptions; worst deviation beyond 5%%: %.2f ms; beyond tolerance: %q", len(reqs), preempted, 1e3*worst, outliers)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeCommand starts `thinkcap serve` on a free port, reads its ready
// line, checks /health, and stops it the way SIGTERM does (its context).
func TestServeCommand(t *testing.T) {
	var out syncBuffer
	c := newServeCmd()
	c.SetArgs([]string{"--port", "0", "--time-scale", "50", "--drain-timeout", "2s", "--served-model-name", "qwen3"})
	c.SetOut(&out)
	c.SetErr(&out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- c.ExecuteContext(ctx) }()
	var url string
	deadline := time.Now().Add(10 * time.Second)
	for url == "" && time.Now().Before(deadline) {
		if _, rest, ok := strings.Cut(out.String(), "http://"); ok {
			url = "http://" + strings.Fields(rest)[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	if url == "" || !strings.Contains(out.String(), "KV blocks") {
		t.Fatalf("no ready line: %q", out.String())
	}
	resp, err := http.Get(url + "/health")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("health: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
}

func TestServeBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"--time-scale", "0", "--port", "0"},
		{"--reasoning-field", "thoughts", "--port", "0"},
		{"--fail-rate", "2", "--port", "0"},
		{"--traffic", "no-such-profile", "--port", "0"},
		{"--port", "70000"},
		{"--port", "0", "Qwen/Qwen3-8B"}, // arguments without --served-model-name
		{"--port", "0", "--served-model-name", ""},
		{"--port", "0", "--served-model-name", "a,,b"},
		{"--port", "0", "--served-model-name", "a", " "},
		{"--port", "0", "--log-level", "trace"},
		{"--port", "0", "--log-stats-interval", "0s"},
		{"--port", "0", "--model", "Qwen/Qwen9"},
	} {
		c := newServeCmd()
		c.SetArgs(args)
		c.SetOut(&bytes.Buffer{})
		c.SetErr(&bytes.Buffer{})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.ExecuteContext(ctx)
		cancel()
		if !inputerr.Is(err) {
			t.Errorf("%v: %v, want bad input", args, err)
		}
	}
}

// startServe runs `thinkcap serve args...` on a free loopback port until
// the test ends and returns its URL and its output so far.
func startServe(t *testing.T, args ...string) (string, *syncBuffer) {
	t.Helper()
	out := &syncBuffer{}
	c := newServeCmd()
	c.SetArgs(append([]string{"--port", "0", "--drain-timeout", "2s"}, args...))
	c.SetOut(out)
	c.SetErr(out)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, rest, ok := strings.Cut(out.String(), "http://"); ok {
			return "http://" + strings.Fields(rest)[0], out
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v: %s", err, out.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Fatalf("no ready line: %q", out.String())
	return "", nil
}

// TestServeThinksWhenAsked: through `thinkcap serve` with its default
// traffic profile (whose most common class does not think), 400 plain chat
// requests to Qwen3 (thinking on by default) and 400 with enable_thinking
// true all come back with reasoning, and 400 with thinking off none.
func TestServeThinksWhenAsked(t *testing.T) {
	url, _ := startServe(t, "--time-scale", "100000", "--seed", "4")
	const n = 400
	for _, tc := range []struct {
		name, extra string
		wantMin     float64
		wantMax     float64
	}{
		{"default", ``, 0.99, 1},
		{"enable_thinking true", `,"chat_template_kwargs":{"enable_thinking":true}`, 0.99, 1},
		{"enable_thinking false", `,"chat_template_kwargs":{"enable_thinking":false}`, 0, 0},
		{"reasoning_effort none", `,"reasoning_effort":"none"`, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			thinking := 0
			var wg sync.WaitGroup
			var mu sync.Mutex
			sem := make(chan struct{}, 16)
			for i := range n {
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					body := fmt.Sprintf(`{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"question %d"}]%s}`, i, tc.extra)
					resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
					if err != nil {
						t.Error(err)
						return
					}
					defer resp.Body.Close()
					var c struct {
						Choices []struct {
							Message struct {
								Reasoning *string `json:"reasoning"`
							} `json:"message"`
						} `json:"choices"`
					}
					if err := json.NewDecoder(resp.Body).Decode(&c); err != nil || len(c.Choices) != 1 {
						t.Errorf("status %d: %v", resp.StatusCode, err)
						return
					}
					if r := c.Choices[0].Message.Reasoning; r != nil && *r != "" {
						mu.Lock()
						thinking++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if f := float64(thinking) / n; f < tc.wantMin || f > tc.wantMax {
				t.Fatalf("%d of %d requests came back with reasoning (%.3f), want a fraction in [%g, %g]", thinking, n, f, tc.wantMin, tc.wantMax)
			}
		})
	}
}

// TestServeModelNames: serve answers to the --model argument as given
// (a profile name or a Hugging Face id, both resolve the profile) unless
// --served-model-name names others, listed in order; any served name
// works in a request, another is a 404.
func TestServeModelNames(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		ids       []string
		root      string
		profileIn string
	}{
		{nil, []string{"Qwen/Qwen3-8B"}, "Qwen/Qwen3-8B", "(qwen3-8b on"},
		{[]string{"--model", "Qwen/Qwen3-8B"}, []string{"Qwen/Qwen3-8B"}, "Qwen/Qwen3-8B", "(qwen3-8b on"},
		{[]string{"--model", "qwen3-8b"}, []string{"qwen3-8b"}, "qwen3-8b", "(qwen3-8b on"},
		{[]string{"--model", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"}, []string{"deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"}, "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "(deepseek-r1-distill-qwen-7b on"},
		{[]string{"--model", "qwen3-8b", "--served-model-name", "qwen3", "Qwen/Qwen3-8B"}, []string{"qwen3", "Qwen/Qwen3-8B"}, "qwen3-8b", "(qwen3-8b on"},
		{[]string{"--served-model-name", "a,b", "--served-model-name", "c", "--served-model-name", "a"}, []string{"a", "b", "c"}, "Qwen/Qwen3-8B", "(qwen3-8b on"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			url, out := startServe(t, append([]string{"--time-scale", "1000", "--disable-log-stats"}, tc.args...)...)
			if !strings.Contains(out.String(), "model "+strings.Join(tc.ids, ", ")+" "+tc.profileIn) {
				t.Errorf("ready line %q", out.String())
			}
			resp, err := http.Get(url + "/v1/models")
			if err != nil {
				t.Fatal(err)
			}
			var list struct {
				Data []struct{ ID, Root string }
			}
			err = json.NewDecoder(resp.Body).Decode(&list)
			resp.Body.Close()
			var ids []string
			for _, d := range list.Data {
				ids = append(ids, d.ID)
				if d.Root != tc.root {
					t.Errorf("%s: root %q, want %q", d.ID, d.Root, tc.root)
				}
			}
			if err != nil || strings.Join(ids, "|") != strings.Join(tc.ids, "|") {
				t.Fatalf("/v1/models ids %q %v, want %q", ids, err, tc.ids)
			}
			for _, name := range append(append([]string(nil), tc.ids...), "not-served") {
				resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model":"`+name+`","prompt":"x","max_tokens":2}`))
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if want := map[bool]int{true: 404, false: 200}[name == "not-served"]; resp.StatusCode != want {
					t.Errorf("model %q: status %d, want %d", name, resp.StatusCode, want)
				}
			}
		})
	}
}

// TestServeLogs: at --log-level debug each request gets uvicorn's access
// line; the stats line comes every --log-stats-interval while tokens
// flow; on SIGTERM (the context) serve says how many streams it drained.
func TestServeLogs(t *testing.T) {
	out := &syncBuffer{}
	c := newServeCmd()
	c.SetArgs([]string{"--port", "0", "--drain-timeout", "20s", "--time-scale", "1", "--log-level", "debug", "--log-stats-interval", "50ms"})
	c.SetOut(out)
	c.SetErr(out)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.ExecuteContext(ctx) }()
	var url string
	waitUntil := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s:\n%s", what, out.String())
			}
		}
	}
	waitUntil("the ready line", func() bool {
		_, rest, ok := strings.Cut(out.String(), "http://")
		if ok {
			url = "http://" + strings.Fields(rest)[0]
		}
		return ok
	})
	// About half a second of decoding at real time.
	resp, err := http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"Qwen/Qwen3-8B","messages":[{"role":"user","content":"x"}],"max_tokens":80,"ignore_eos":true,"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	waitUntil("a stats line with generation", func() bool {
		return regexp.MustCompile(`(?m)^INFO \d\d-\d\d \d\d:\d\d:\d\d \[loggers\.py\] Engine 000: Avg prompt throughput: \d+\.\d tokens/s, Avg generation throughput: [1-9]\d*\.\d tokens/s, Running: 1 reqs, Waiting: 0 reqs, GPU KV cache usage: \d+\.\d%, Prefix cache hit rate: 0\.0%$`).MatchString(out.String())
	})
	if !regexp.MustCompile(`(?m)^INFO:     127\.0\.0\.1:\d+ - "POST /v1/chat/completions HTTP/1\.1" 200 OK$`).MatchString(out.String()) {
		t.Fatalf("no access line:\n%s", out.String())
	}
	cancel() // SIGTERM while the stream runs: it drains
	body, _ := io.ReadAll(resp.Body)
	if !strings.HasSuffix(string(body), "data: [DONE]\n\n") {
		t.Errorf("the stream did not finish: %q", body)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	for _, want := range []string{`INFO:     Shutting down: draining 1 in-flight streams`, `INFO:     Drained 1 streams in `} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in:\n%s", want, out.String())
		}
	}
}

// TestServeLoadgenSplit drives the emulator (default traffic profile)
// with the load generator's length control, as thinkcap loadtest does:
// every request gets exactly its tokens, split between thinking and answer
// as its record says (sent as vllm_xargs); the low-effort records that do
// not think (sent with thinking off) get no thinking.
func TestServeLoadgenSplit(t *testing.T) {
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	tr, _ := simtest.Catalog(t).TrafficProfile(defaultTraffic)
	classes, err := workload.ClassesFromTraffic(tr)
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := emulator.NewClassSampler(classes, 2)
	if err != nil {
		t.Fatal(err)
	}
	emu, err := emulator.New(emulator.Config{Sim: sim.Config{Model: model, GPU: gpu}, TimeScale: 1000, Seed: 2, Traffic: sampler.Draw})
	if err != nil {
		t.Fatal(err)
	}
	ctx, srvURL := serveEmulator(t, emu, 60*time.Second)
	reqs, err := workload.Synthetic{Requests: 200, RatePerS: 2000, Seed: 8, Classes: classes}.Generate()
	if err != nil {
		t.Fatal(err)
	}
	measured := measureForced(ctx, t, srvURL, emu.ModelName(), reqs)
	plain, thinking, exact := 0, 0, 0
	for _, r := range reqs {
		m := measured[r.ID]
		if !m.OK() || m.ThinkTokens+m.AnswerTokens != max(r.ThinkTokens+r.AnswerTokens, 1) {
			t.Fatalf("%s: %s, %d+%d tokens for a record of %d+%d", r.ID, m.Status, m.ThinkTokens, m.AnswerTokens, r.ThinkTokens, r.AnswerTokens)
		}
		// At this time scale the client falls behind and the emulator
		// merges steps into one delta (as vLLM's output collector does),
		// which a client can only split in proportion; with a delta per
		// token the split it measures is exact.
		if m.TokenEvents == m.ThinkTokens+m.AnswerTokens {
			exact++
			if m.ThinkTokens != r.ThinkTokens {
				t.Errorf("%s: %d+%d tokens came back for a record of %d+%d: the split is not the record's", r.ID, m.ThinkTokens, m.AnswerTokens, r.ThinkTokens, r.AnswerTokens)
			}
		}
		if off := r.ThinkTokens == 0 && r.Mode == workload.ModeLow; off != (m.ThinkTokens == 0) {
			t.Errorf("%s (%s, %d think): %d thinking tokens came back", r.ID, r.Mode, r.ThinkTokens, m.ThinkTokens)
		} else if off {
			plain++
		} else {
			thinking++
		}
	}
	if plain == 0 || thinking == 0 {
		t.Fatalf("%d records without thinking, %d with: want both", plain, thinking)
	}
	if exact < len(reqs)/2 {
		t.Errorf("only %d of %d requests had a delta per token", exact, len(reqs))
	}
}

// measureForced sends reqs to the server at url as thinkcap loadtest does
// (length-forced, reasoning parser on) and returns each request's
// measurement by ID; every request must come back.
func measureForced(ctx context.Context, t *testing.T, url, model string, reqs []workload.Request) map[string]loadgen.Measurement {
	t.Helper()
	client, err := loadgen.NewClient(loadgen.ClientConfig{BaseURL: url, Model: model, ReasoningParser: true})
	if err != nil {
		t.Fatal(err)
	}
	lengths := &loadgen.LengthControl{ForceLength: true}
	var mu sync.Mutex
	measured := map[string]loadgen.Measurement{}
	out := loadgen.Run(ctx, client, loadgen.RunConfig{Requests: reqs, Build: lengths.Build,
		OnResult: func(res *workload.Result, m *loadgen.Measurement, _ bool) {
			mu.Lock()
			measured[res.ID] = *m
			mu.Unlock()
		}})
	if len(out.Results) != len(reqs) {
		t.Fatalf("%d results", len(out.Results))
	}
	mu.Lock()
	defer mu.Unlock()
	return measured
}

// TestServeReportsEveryBadFlag: serve names each bad flag at once, before
// it reads a profile or listens.
func TestServeReportsEveryBadFlag(t *testing.T) {
	_, errOut, code := thinkcap(t, "serve", "--log-level", "trace", "--port", "70000", "--fail-rate", "2", "--time-scale", "0")
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d: %s", code, exitBadInput, errOut)
	}
	for _, flag := range []string{"--log-level", "--port", "--fail-rate", "--time-scale"} {
		if !strings.Contains(errOut, flag) {
			t.Errorf("%s not named: %s", flag, errOut)
		}
	}
}
