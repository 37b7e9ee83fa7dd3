package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/loadgen"
	"github.com/thinkcap/thinkcap/workload"
)

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
	srv, _ := vllmtest.Slow(t, 50*time.Millisecond)
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
			srv, _ := vllmtest.Slow(t, 50*time.Millisecond)
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
