package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

// slowVLLM is a vLLM-like server on loopback that streams one token every
// tokenGap (reasoning first, then content), so a load test against it
// lasts long enough to be stopped mid-run. It serves /v1/models, and
// /metrics with the queue-time histogram growing by one observation of
// 0.2 s per finished request. prompts records the user messages received.
func slowVLLM(t *testing.T, tokenGap time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var finished atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"object":"list","data":[{"id":"slow-model","object":"model","root":"slow-model","max_model_len":4096}]}`)
	})
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		n := finished.Load()
		fmt.Fprint(w, "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"slow-model\"} 1\n")
		fmt.Fprint(w, "# TYPE vllm:request_queue_time_seconds histogram\n")
		for _, le := range []string{"0.3", "0.5", "+Inf"} {
			fmt.Fprintf(w, "vllm:request_queue_time_seconds_bucket{engine=\"0\",le=\"%s\",model_name=\"slow-model\"} %d\n", le, n)
		}
		fmt.Fprintf(w, "vllm:request_queue_time_seconds_count{engine=\"0\",model_name=\"slow-model\"} %d\n", n)
		fmt.Fprintf(w, "vllm:request_queue_time_seconds_sum{engine=\"0\",model_name=\"slow-model\"} %g\n", 0.2*float64(n))
	})
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			MaxTokens int `json:"max_completion_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Errorf("request body: %v", err)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n")
		fl.Flush()
		for i := range body.MaxTokens {
			field, text := "content", "answer"
			if i < body.MaxTokens/2 {
				field, text = "reasoning", "thought"
			}
			fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"%s\":\" %s\"},\"finish_reason\":null}]}\n\n", field, text)
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(tokenGap):
			}
		}
		fmt.Fprintf(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"total_tokens\":%d,\"completion_tokens\":%d}}\n\n", 10+body.MaxTokens, body.MaxTokens)
		fmt.Fprint(w, "data: [DONE]\n\n")
		finished.Add(1)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &finished
}

// TestHelperThinkcapProcess is not a test: it is thinkcap itself when a
// test re-executes the test binary (THINKCAP_HELPER_PROCESS=1) with the
// command line after "--", so that signals reach a real process.
func TestHelperThinkcapProcess(t *testing.T) {
	if os.Getenv("THINKCAP_HELPER_PROCESS") != "1" {
		t.Skip("helper process")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// startThinkcap runs thinkcap in a child process, its stderr in the buffer.
func startThinkcap(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperThinkcapProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), "THINKCAP_HELPER_PROCESS=1")
	stderr := &syncBuffer{}
	cmd.Stderr, cmd.Stdout = stderr, &bytes.Buffer{}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, stderr
}

// waitForRun waits (a few seconds at most) until the run directory holds
// at least n result lines and a timeline row.
func waitForRun(t *testing.T, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		res, _ := os.ReadFile(filepath.Join(dir, loadgen.ResultsFile))
		tl, _ := os.ReadFile(filepath.Join(dir, loadgen.TimelineFile))
		if bytes.Count(res, []byte("\n")) >= n && bytes.Count(tl, []byte("\n")) >= 2 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the run did not get to %d results in time", n)
}

func slowLoadtestArgs(url, dir string) []string {
	// 40 requests over ~2 s, each streaming 10 tokens 50 ms apart: the
	// run lasts ~2.5 s unless stopped, and is stopped after 3 results.
	return []string{"loadtest", "--url", url, "--model", "slow-model", "--requests", "40", "--rate", "20",
		"--arrival", "constant", "--prompt-tokens", "8", "--think-tokens", "5", "--answer-tokens", "5",
		"--scrape-interval", "20ms", "--out", dir}
}

// TestLoadtestKilledLeavesUsableRun: after kill -9 the run directory
// still says what it is: metadata.json with state "running" (so a reader
// knows the process died) and the planned count, a timeline with a
// header and rows, and result lines that parse.
func TestLoadtestKilledLeavesUsableRun(t *testing.T) {
	srv, _ := slowVLLM(t, 50*time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	cmd, _ := startThinkcap(t, slowLoadtestArgs(srv.URL, dir)...)
	waitForRun(t, dir, 3)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	m, err := loadgen.ReadMetadata(filepath.Join(dir, loadgen.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	if m.State != loadgen.RunRunning || !m.Died() || m.RequestsPlanned != 40 || m.Model != "slow-model" {
		t.Fatalf("metadata after kill -9: %+v", m)
	}
	tl, err := os.Open(filepath.Join(dir, loadgen.TimelineFile))
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	rows, err := loadgen.ReadTimelineCSVNoted(tl, func(string) {})
	if err != nil || len(rows) == 0 {
		t.Fatalf("timeline after kill -9: %d rows, %v", len(rows), err)
	}
	data, err := os.ReadFile(filepath.Join(dir, loadgen.ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		var r workload.Result
		if err := json.Unmarshal(l, &r); err != nil && !(i == len(lines)-1 && !bytes.HasSuffix(data, []byte("\n"))) {
			t.Fatalf("results line %d: %v", i+1, err)
		}
	}
	if len(lines) < 3 {
		t.Fatalf("%d result lines", len(lines))
	}
	if _, err := os.Stat(filepath.Join(dir, loadgen.SummaryFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("summary.json after kill -9: %v", err)
	}
}

// TestLoadtestSignalMarksRunInterrupted: SIGINT and SIGTERM stop the run,
// say how far it got, write every file with the run marked interrupted
// and exit as a shell expects of a signalled process (130, 143).
func TestLoadtestSignalMarksRunInterrupted(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		t.Run(c.name, func(t *testing.T) {
			srv, _ := slowVLLM(t, 50*time.Millisecond)
			dir := filepath.Join(t.TempDir(), "run")
			cmd, stderr := startThinkcap(t, slowLoadtestArgs(srv.URL, dir)...)
			waitForRun(t, dir, 3)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.code {
				t.Fatalf("exit %v, want %d; stderr:\n%s", err, c.code, stderr)
			}
			got := regexp.MustCompile(`interrupted after (\d+) of 40 requests`).FindStringSubmatch(stderr.String())
			if got == nil {
				t.Fatalf("stderr does not say how far the run got:\n%s", stderr)
			}
			m, err := loadgen.ReadMetadata(filepath.Join(dir, loadgen.MetadataFile))
			if err != nil {
				t.Fatal(err)
			}
			res, err := workload.ReadResultsFile(filepath.Join(dir, loadgen.ResultsFile))
			if err != nil {
				t.Fatal(err)
			}
			if m.State != loadgen.RunInterrupted || !m.Interrupted || m.RequestsPlanned != 40 ||
				m.RequestsFinished != len(res) || fmt.Sprint(len(res)) != got[1] || len(res) >= 40 ||
				!strings.Contains(m.Reason, c.name) {
				t.Fatalf("metadata %+v with %d records, stderr says %s", m, len(res), got[1])
			}
			if _, err := os.Stat(filepath.Join(dir, loadgen.SummaryFile)); err != nil {
				t.Errorf("summary.json: %v", err)
			}
		})
	}
}

// TestLoadtestStartAndProgressLines: off a terminal, a start line says
// what will run and a plain progress line comes every --progress-interval.
func TestLoadtestStartAndProgressLines(t *testing.T) {
	srv, _ := slowVLLM(t, 20*time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	_, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "9", "--rate", "10",
		"--arrival", "constant", "--prompt-tokens", "8", "--think-tokens", "2", "--answer-tokens", "2",
		"--scrape-interval", "20ms", "--progress-interval", "50ms", "--out", dir)
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
	_, errOut, code = thinkcap(t, "loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "3", "--rate", "20",
		"--prompt-tokens", "8", "--think-tokens", "1", "--answer-tokens", "1", "--scrape-interval", "0", "--progress-interval", "0",
		"--out", filepath.Join(t.TempDir(), "quiet"))
	if code != 0 || progress.MatchString(errOut) || strings.Contains(errOut, "/ 3 requests") {
		t.Errorf("exit %d, progress with --progress-interval 0:\n%s", code, errOut)
	}
}

// TestLoadtestLongReplaySaysSo: a replay whose schedule spans an hour
// starts with a line that shows the --duration cap (here stopping it at
// once); loadtest's TestStartLineOfALongReplay shows the warning without.
func TestLoadtestLongReplaySaysSo(t *testing.T) {
	srv, _ := slowVLLM(t, time.Millisecond)
	log := filepath.Join(t.TempDir(), "log.jsonl")
	var b strings.Builder
	for i, at := range []float64{0, 1800, 3720} {
		fmt.Fprintf(&b, `{"id":"r%d","arrival_s":%g,"prompt_tokens":8,"think_tokens":1,"answer_tokens":1}`+"\n", i, at)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "slow-model", "--workload", log,
		"--duration", "100ms", "--scrape-interval", "0", "--out", filepath.Join(t.TempDir(), "run"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "load test of 3 requests over ~0.1s") {
		t.Errorf("start line should show the --duration cap:\n%s", errOut)
	}
	// Without the cap, the start line warns: loadtest's TestStartLineOfALongReplay.
}

// TestLoadtestOutDirectory: a directory holding a run is not overwritten
// without --force (exit 2 naming it), and a run refused before sending
// leaves no directory behind.
func TestLoadtestOutDirectory(t *testing.T) {
	srv, _ := slowVLLM(t, time.Millisecond)
	dir := filepath.Join(t.TempDir(), "run")
	args := []string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "2", "--rate", "50",
		"--prompt-tokens", "8", "--think-tokens", "1", "--answer-tokens", "1", "--scrape-interval", "0", "--out", dir}
	if _, errOut, code := thinkcap(t, args...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before, err := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile))
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := thinkcap(t, args...)
	if code != exitBadInput || !strings.Contains(errOut, dir) || !strings.Contains(errOut, "--force") {
		t.Fatalf("second run into the same --out: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile)); !bytes.Equal(before, after) {
		t.Fatal("the refused run changed the existing one")
	}
	if _, errOut, code := thinkcap(t, append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, loadgen.MetadataFile)); bytes.Equal(before, after) {
		t.Fatal("--force did not overwrite the run")
	}

	// Refused runs: bad flags, a --predict that cannot be configured.
	for _, extra := range [][]string{
		{"--save-text", "2"},
		{"--warmup", "soon"},
		{"--predict", "--step-model", "no-such-file.yaml"},
	} {
		fresh := filepath.Join(t.TempDir(), "refused")
		a := append(append([]string{}, args[:len(args)-1]...), fresh)
		if _, errOut, code := thinkcap(t, append(a, extra...)...); code == 0 {
			t.Errorf("%v: exit 0: %s", extra, errOut)
		}
		if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: refused run left %s behind (%v)", extra, fresh, err)
		}
	}
}

// TestLoadtestSaveText: --save-text stores the prompt with the reasoning
// and the answer; without it no text is stored at all.
func TestLoadtestSaveText(t *testing.T) {
	srv, _ := slowVLLM(t, time.Millisecond)
	for _, c := range []struct {
		flags []string
		saved int
	}{{nil, 0}, {[]string{"--save-text", "1"}, 4}} {
		dir := filepath.Join(t.TempDir(), "run")
		args := append([]string{"loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "4", "--rate", "50",
			"--prompt-tokens", "12", "--think-tokens", "2", "--answer-tokens", "2", "--scrape-interval", "0", "--out", dir}, c.flags...)
		if _, errOut, code := thinkcap(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		f, err := os.Open(filepath.Join(dir, loadgen.TextsFile))
		if c.saved == 0 {
			if !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("texts stored without --save-text: %v", err)
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

// TestLoadtestQueueRowFromServer: the Queue row is the server's queue-time
// histogram over the run, and "not measured" (null) when not scraped.
func TestLoadtestQueueRowFromServer(t *testing.T) {
	srv, _ := slowVLLM(t, time.Millisecond)
	for _, c := range []struct {
		scrape string
		want   *float64
	}{{"20ms", new(0.2)}, {"0", nil}} {
		dir := filepath.Join(t.TempDir(), "run")
		out, errOut, code := thinkcap(t, "loadtest", "--url", srv.URL, "--model", "slow-model", "--requests", "5", "--rate", "50",
			"--prompt-tokens", "8", "--think-tokens", "2", "--answer-tokens", "2", "--scrape-interval", c.scrape, "--out", dir, "-o", "json")
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
