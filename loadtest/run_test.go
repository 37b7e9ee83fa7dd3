package loadtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

func TestRunWritesRunDirectory(t *testing.T) {
	srv, _ := vllmtest.Fake(t, 5)
	dir := filepath.Join(t.TempDir(), "run")
	o := testOptions(srv.URL, dir, synthetic(t, 20, 50, "20", "6", "4"))
	o.Model, o.APIKey, o.APIKeyEnv = "test-model", "sekrit-key", "TEST_KEY"
	o.ScrapeInterval, o.JSON = 20*time.Millisecond, true
	out, errOut, code := load(t, o)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Kind     string
		Requests struct{ Total, Completed, Failed int }
		Tokens   struct{ Think, Answer struct{ Mean float64 } }
		Capacity struct {
			NumGPUBlocks int `json:"num_gpu_blocks"`
		}
		KVUsage  struct{ Mean float64 } `json:"kv_usage"`
		LatencyS struct {
			TTFT, TTFA struct{ P50 float64 }
		} `json:"latency_s"`
		Sent *struct{} `json:"latency_from_sent_s"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	// Every fifth request gets a 503: a failed record, not an aborted run.
	if s.Kind != "loadtest" || s.Requests.Total != 20 || s.Requests.Failed != 4 || s.Requests.Completed != 16 {
		t.Fatalf("requests %+v", s.Requests)
	}
	if s.Tokens.Think.Mean != 5 || s.Tokens.Answer.Mean != 5 {
		t.Fatalf("tokens %+v: want the streamed split of 10 tokens", s.Tokens)
	}
	if s.Capacity.NumGPUBlocks != 1000 || s.KVUsage.Mean != 0.25 || s.Sent == nil {
		t.Fatalf("server side: %+v", s)
	}
	if !(s.LatencyS.TTFA.P50 > s.LatencyS.TTFT.P50) {
		t.Fatalf("TTFA %g should come after TTFT %g: thinking streams first", s.LatencyS.TTFA.P50, s.LatencyS.TTFT.P50)
	}
	for _, f := range []string{"results.jsonl", "timeline.csv", "metadata.json", "summary.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("sekrit-key")) {
			t.Fatalf("%s contains the API key", f)
		}
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 20 {
		t.Fatalf("%d results, %v", len(res), err)
	}
	failed := 0
	for _, r := range res {
		if r.Status == workload.StatusHTTPError {
			failed++
			if r.HTTPStatus != 503 || !strings.Contains(r.Error, "overloaded") {
				t.Fatalf("failed record %+v", r)
			}
		}
	}
	if failed != 4 {
		t.Fatalf("%d http errors recorded", failed)
	}
}

func TestConnectionRefusedIsARecord(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there now
	dir := t.TempDir()
	// Past the preflight (NoPreflight), each refused connection is a
	// connect_error record, and a run where nothing succeeded fails.
	o := testOptions(url, dir, synthetic(t, 3, 100, "5", "1", "1"))
	o.Model, o.NoPreflight, o.JSON = "m", true, true
	_, errOut, code := load(t, o)
	if code != exitCheckFailed || !strings.Contains(errOut, "no request succeeded (3 connect_error") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 3 || res[0].Status != workload.StatusConnectError {
		t.Fatalf("results %+v, %v", res, err)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		bad  func(*Options)
	}{
		{"no --url", func(o *Options) { o.URL = "" }},
		{"no server, no --model", func(o *Options) { o.Model = "" }},
		{"--endpoint embeddings", func(o *Options) { o.Endpoint = "embeddings" }},
		{"--save-text 2", func(o *Options) { o.SaveText = 2 }},
		{"--stall-timeout -1s", func(o *Options) { o.StallTimeout = -time.Second }},
	} {
		o := testOptions("http://127.0.0.1:1", filepath.Join(t.TempDir(), "run"), synthetic(t, 1, 10, "5", "1", "1"))
		o.Model = "m"
		c.bad(&o)
		if _, errOut, code := load(t, o); code != exitBadInput {
			t.Errorf("%s: exit %d: %s", c.name, code, errOut)
		}
	}
}

// TestTwoPhase: a two-phase budget sends phase 2 after phase 1.
func TestTwoPhase(t *testing.T) {
	srv, n := vllmtest.Fake(t, 0)
	dir := t.TempDir()
	w := workload.WhatIfOptions{ThinkBudget: 4, BudgetPolicy: workload.PolicyTwoPhase}
	reqs, _, err := w.Apply(synthetic(t, 6, 100, "10", "8", "2"), 0)
	if err != nil {
		t.Fatal(err)
	}
	o := testOptions(srv.URL, dir, reqs)
	o.Model, o.APIKey, o.JSON = "test-model", "sekrit-key", true
	o.ThinkBudget, o.BudgetPolicy = w.ThinkBudget, w.BudgetPolicy
	if _, errOut, code := load(t, o); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := workload.ReadResultsFile(filepath.Join(dir, "results.jsonl"))
	if err != nil || len(res) != 12 || n.Load() != 12 {
		t.Fatalf("%d results, %d requests served, %v", len(res), n.Load(), err)
	}
	for _, r := range res {
		if !r.OK() || (r.After == "") != r.Continued {
			t.Fatalf("record %+v", r)
		}
	}
}

// slowOptions is a load test of n requests at rate against the slow
// server, constant arrivals, never scraping.
func slowOptions(t *testing.T, url, dir string, n int, rate float64, think, answer string) Options {
	t.Helper()
	reqs := traffic(t, workload.TrafficOptions{Requests: n, RatePerS: rate, Arrival: arrival(t, "constant"), Prompt: dist(t, "8"), Think: dist(t, think), Answer: dist(t, answer)}, 0)
	o := testOptions(url, dir, reqs)
	o.Model = "slow-model"
	return o
}

// TestStartAndProgressLines: off a terminal, a start line says what will
// run and a plain progress line comes every ProgressInterval.
func TestStartAndProgressLines(t *testing.T) {
	srv, _ := vllmtest.Slow(t, 20*time.Millisecond)
	o := slowOptions(t, srv.URL, filepath.Join(t.TempDir(), "run"), 9, 10, "2", "2")
	o.ScrapeInterval, o.ProgressInterval = 20*time.Millisecond, 50*time.Millisecond
	_, errOut, code := load(t, o)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	start := fmt.Sprintf("thinkcap: load test of 9 requests over ~0.8s (10.0 req/s) against %s, model slow-model\n", srv.URL)
	if !strings.HasPrefix(errOut, start) {
		t.Errorf("stderr does not start with the start line %q:\n%s", start, errOut)
	}
	progress := regexp.MustCompile(`(?m)^thinkcap: \d / 9 requests, failed 0, in flight \d+, [\d.]+ req/s \(target 10\.0\)`)
	if n := len(progress.FindAllString(errOut, -1)); n < 2 {
		t.Errorf("%d progress lines in:\n%s", n, errOut)
	}
	// Off by default at this length (10 s), and with 0.
	o = testOptions(srv.URL, filepath.Join(t.TempDir(), "quiet"), synthetic(t, 3, 20, "8", "1", "1"))
	o.Model, o.ProgressInterval = "slow-model", 0
	_, errOut, code = load(t, o)
	if code != 0 || progress.MatchString(errOut) || strings.Contains(errOut, "/ 3 requests") {
		t.Errorf("exit %d, progress with ProgressInterval 0:\n%s", code, errOut)
	}
}

// TestLongReplaySaysSo: a replay whose schedule spans an hour starts with
// a line that shows the Duration cap (here stopping it at once);
// TestStartLineOfALongReplay shows the warning without.
func TestLongReplaySaysSo(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	log := filepath.Join(t.TempDir(), "log.jsonl")
	var b strings.Builder
	for i, at := range []float64{0, 1800, 3720} {
		fmt.Fprintf(&b, `{"id":"r%d","arrival_s":%g,"prompt_tokens":8,"think_tokens":1,"answer_tokens":1}`+"\n", i, at)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions(srv.URL, filepath.Join(t.TempDir(), "run"), traffic(t, workload.TrafficOptions{Workload: log}, 0))
	o.Model, o.Replay, o.Duration, o.DurationGiven = "slow-model", true, 100*time.Millisecond, true
	_, errOut, code := load(t, o)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "load test of 3 requests over ~0.1s") {
		t.Errorf("start line should show the Duration cap:\n%s", errOut)
	}
}

// TestOutDirectory: a directory holding a run is not overwritten without
// Force (bad input naming it), and a run refused before sending leaves no
// directory behind.
func TestOutDirectory(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	opts := func(dir string) Options {
		o := testOptions(srv.URL, dir, synthetic(t, 2, 50, "8", "1", "1"))
		o.Model = "slow-model"
		return o
	}
	if _, errOut, code := load(t, opts(dir)); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := load(t, opts(dir))
	if code != exitBadInput || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "--force") {
		t.Fatalf("second run into the same Out: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile)); !bytes.Equal(before, after) {
		t.Fatal("the refused run changed the existing one")
	}
	forced := opts(dir)
	forced.Force = true
	if _, errOut, code := load(t, forced); code != 0 {
		t.Fatalf("Force: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile)); bytes.Equal(before, after) {
		t.Fatal("Force did not overwrite the run")
	}

	// Refused runs: a bad option, a prediction that cannot be configured.
	for name, bad := range map[string]func(*Options){
		"save text 2": func(o *Options) { o.SaveText = 2 },
		"predict without a step model": func(o *Options) {
			o.Predict = &Predict{Config: func(string) (sim.Config, error) {
				return sim.Config{}, errors.New("--step-model: open no-such-file.yaml: no such file or directory")
			}}
		},
	} {
		fresh := filepath.Join(t.TempDir(), "refused")
		o := opts(fresh)
		bad(&o)
		if _, errOut, code := load(t, o); code == 0 {
			t.Errorf("%s: exit 0: %s", name, errOut)
		}
		if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: refused run left %s behind (%v)", name, fresh, err)
		}
	}
}

// TestSaveText: SaveText stores the prompt with the reasoning and the
// answer; without it no text is stored at all.
func TestSaveText(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	for _, c := range []struct {
		fraction float64
		saved    int
	}{{0, 0}, {1, 4}} {
		dir := filepath.Join(t.TempDir(), "run")
		o := testOptions(srv.URL, dir, synthetic(t, 4, 50, "12", "2", "2"))
		o.Model, o.SaveText = "slow-model", c.fraction
		if _, errOut, code := load(t, o); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		f, err := os.Open(filepath.Join(dir, loadgen.TextsFile))
		if c.saved == 0 {
			if !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("texts stored without SaveText: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		for sc := bufio.NewScanner(f); sc.Scan(); n++ {
			var rec struct{ ID, Prompt, Reasoning, Answer string }
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.ID == "" || len(strings.Fields(rec.Prompt)) < 6 || rec.Reasoning != " thought thought" || rec.Answer != " answer answer" {
				t.Errorf("saved text %+v", rec)
			}
		}
		if n != c.saved {
			t.Errorf("%d texts saved, want %d", n, c.saved)
		}
	}
}

// TestQueueRowFromServer: the Queue row is the server's queue-time
// histogram over the run, and "not measured" (null) when not scraped.
func TestQueueRowFromServer(t *testing.T) {
	srv, _ := vllmtest.Slow(t, time.Millisecond)
	for _, c := range []struct {
		scrape time.Duration
		want   *float64
	}{{20 * time.Millisecond, new(0.2)}, {0, nil}} {
		o := testOptions(srv.URL, filepath.Join(t.TempDir(), "run"), synthetic(t, 5, 50, "8", "2", "2"))
		o.Model, o.ScrapeInterval, o.JSON = "slow-model", c.scrape, true
		out, errOut, code := load(t, o)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var s struct {
			LatencyS struct {
				Queue struct{ Mean, P50 *float64 }
			} `json:"latency_s"`
		}
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		q := s.LatencyS.Queue
		switch {
		case c.want == nil && (q.Mean != nil || q.P50 != nil):
			t.Errorf("never scraped: queue %v/%v, want null", *q.Mean, *q.P50)
		case c.want != nil && (q.Mean == nil || *q.Mean < 0.199 || *q.Mean > 0.201 || q.P50 == nil || *q.P50 <= 0 || *q.P50 > 0.3):
			t.Errorf("scraped: queue mean %v p50 %v, want mean 0.2 and p50 in (0, 0.3]", q.Mean, q.P50)
		}
	}
}
