package workload

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestResultWriterRoundTrip(t *testing.T) {
	results := []Result{
		{Request: sampleRequests[0], Status: StatusOK, TTFTS: 0.12, TTFAS: 3.4, ThinkS: 3.28, TPOTS: 0.011, E2ES: 5.5, QueueS: 0.02, Replica: 1},
		{Request: sampleRequests[1], Status: StatusHTTPError, HTTPStatus: 503, Error: "overloaded <retry>", ScheduledS: 0.25, SentS: 0.2501, TokenSource: "usage"},
		{Request: Request{ID: "z", PromptTokens: 1}, Status: StatusTruncated, Preemptions: 2, RecomputedTokens: 900},
	}
	var buf bytes.Buffer
	w := NewResultWriter(&buf)
	for i := range results {
		if err := w.Write(&results[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Count() != len(results) {
		t.Errorf("Count() = %d", w.Count())
	}
	text := buf.String()
	if strings.Count(text, "\n") != len(results) || !strings.Contains(text, "<retry>") {
		t.Errorf("output:\n%s", text)
	}
	got, err := ReadResults(strings.NewReader(text), "results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, results) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, results)
	}

	// The same records give the same bytes.
	var again bytes.Buffer
	w2 := NewResultWriter(&again)
	for i := range results {
		w2.Write(&results[i])
	}
	w2.Flush()
	if again.String() != text {
		t.Error("output is not deterministic")
	}
	// Result files read as request files too (extra keys ignored).
	reqs, err := Read(strings.NewReader(text), "results.jsonl", "")
	if err != nil || len(reqs) != len(results) || reqs[2] != results[1].Request { // sorted by arrival
		t.Errorf("results read as requests: %+v, %v", reqs, err)
	}
}

func TestResultWriterRejectsNaN(t *testing.T) {
	var buf bytes.Buffer
	w := NewResultWriter(&buf)
	if err := w.Write(&Result{Request: Request{ID: "n"}, Status: StatusOK, TTFTS: math.NaN()}); err == nil || !strings.Contains(err.Error(), `"n"`) {
		t.Errorf("error %v", err)
	}
	w.Flush()
	if buf.Len() != 0 {
		t.Errorf("partial output %q", buf.String())
	}
}

func TestResultWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	w := NewResultWriter(&buf)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 100 {
				w.Write(&Result{Request: Request{ID: strings.Repeat("x", i+1), PromptTokens: 1}, Status: StatusOK})
			}
		})
	}
	wg.Wait()
	w.Flush()
	got, err := ReadResults(&buf, "r.jsonl")
	if err != nil || len(got) != 800 {
		t.Fatalf("%d results, %v", len(got), err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	w := NewResultWriter(failingWriter{})
	w.Write(&Result{Status: StatusOK})
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("flush error %v", err)
	}
	if err := WriteRequests(failingWriter{}, sampleRequests); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("write requests error %v", err)
	}
}

func TestWriteRequestsRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteRequests(&buf, sampleRequests); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(buf.String(), "\n")
	if want := `{"id":"a","arrival_s":0,"prompt_tokens":512,"think_tokens":1200,"answer_tokens":180,"mode":"high","category":"math","finish_reason":"stop"}`; first != want {
		t.Errorf("first line\n got %s\nwant %s", first, want)
	}
	got, err := Read(&buf, "out.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sampleRequests) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, sampleRequests)
	}
}

func TestReadResultsErrors(t *testing.T) {
	tests := []struct{ input, want string }{
		{`{"status":"done"}`, `r.jsonl:1: status: must be one of`},
		{`{"status":"ok","ttft_s":"x"}`, `r.jsonl:1: json: cannot unmarshal string`},
		{"\n", "r.jsonl: no result records"},
	}
	for _, tt := range tests {
		if _, err := ReadResults(strings.NewReader(tt.input), "r.jsonl"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.input, err, tt.want)
		}
	}
}
