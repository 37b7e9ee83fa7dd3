package fidelity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/thinkcap/thinkcap/calibrate"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Record is one load point of the measurement corpus: a deployment, a
// workload and a load, and what the client measured there
// (testdata/measured/SCHEMA.md).
type Record struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Ref    Ref    `json:"ref"`
	Date   string `json:"date,omitempty"`
	Model  string `json:"model"`
	GPU    string `json:"gpu"`
	// GPUPublished is the source's own hardware line where GPU departs
	// from it on measured evidence, given in Notes.
	GPUPublished  string  `json:"gpu_published,omitempty"`
	TP            int     `json:"tp"`
	PP            int     `json:"pp"`
	DP            int     `json:"dp"`
	EP            bool    `json:"ep"`
	Quantization  string  `json:"quantization"`
	KVCacheDtype  string  `json:"kv_cache_dtype"`
	VLLMVersion   string  `json:"vllm_version"`
	Engine        Engine  `json:"engine"`
	Workload      Load    `json:"workload"`
	Concurrency   int     `json:"concurrency"`
	RequestRate   float64 `json:"request_rate"`
	Measured      Metrics `json:"measured"`
	Notes         string  `json:"notes,omitempty"`
	Replayability string  `json:"-"` // set by Read: "" when replayable, else why not

	file string
	line int
}

// Ref is where a record's figures were read.
type Ref struct {
	URL    string `json:"url"`
	Repo   string `json:"repo,omitempty"`
	Path   string `json:"path,omitempty"`
	Commit string `json:"commit,omitempty"`
}

// Engine is the engine flags a source gives; nil or zero is unknown.
type Engine struct {
	MaxNumSeqs           int     `json:"max_num_seqs,omitempty"`
	MaxNumBatchedTokens  int     `json:"max_num_batched_tokens,omitempty"`
	MaxModelLen          int     `json:"max_model_len,omitempty"`
	BlockSize            int     `json:"block_size,omitempty"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization,omitempty"`
	EnablePrefixCaching  *bool   `json:"enable_prefix_caching,omitempty"`
	EnableChunkedPrefill *bool   `json:"enable_chunked_prefill,omitempty"`
	EnforceEager         *bool   `json:"enforce_eager,omitempty"`
	AsyncScheduling      *bool   `json:"async_scheduling,omitempty"`
	AttentionBackend     string  `json:"attention_backend,omitempty"`
	// AvailableKVGiB is the "Available KV cache memory" (GiB per GPU) the
	// source logged: the replay sizes the KV cache from it, as
	// --kv-cache-memory-bytes does, rather than from the memory model.
	AvailableKVGiB float64           `json:"available_kv_gib,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
}

// Load is the workload a load point ran: the dataset and its lengths.
type Load struct {
	Dataset   string `json:"dataset"`
	InputLen  Length `json:"input_len"`
	OutputLen Length `json:"output_len"`
	PrefixLen int    `json:"prefix_len,omitempty"`
	// DistinctPrompts > 0: the client cycles through this many prompts, so
	// a repeated prompt is a whole prefix-cache hit when caching is on.
	DistinctPrompts int     `json:"distinct_prompts,omitempty"`
	IgnoreEOS       *bool   `json:"ignore_eos,omitempty"`
	NumPrompts      int     `json:"num_prompts,omitempty"`
	Warmups         int     `json:"warmups,omitempty"`
	RangeRatio      float64 `json:"range_ratio,omitempty"`
	Client          string  `json:"client,omitempty"`
}

// Length is a token-length distribution as a source defines it: a uniform
// draw on [Min, Max] (Min = Max: fixed) when Dist is empty and Max is set,
// a named distribution (normal, lognormal, exponential) by its parameters,
// or only a Mean (a dataset).
type Length struct {
	Dist string  `json:"dist,omitempty"`
	Min  float64 `json:"min,omitempty"`
	Max  float64 `json:"max,omitempty"`
	Mean float64 `json:"mean,omitempty"`
	SD   float64 `json:"sd,omitempty"`
}

// Metrics is what the client measured, in milliseconds and tokens/s.
type Metrics struct {
	TPOT              Stat    `json:"tpot_ms"`
	ITL               Stat    `json:"itl_ms"`
	TTFT              Stat    `json:"ttft_ms"`
	E2EL              Stat    `json:"e2el_ms"`
	OutputThroughput  float64 `json:"output_throughput,omitempty"`
	TotalThroughput   float64 `json:"total_throughput,omitempty"`
	RequestThroughput float64 `json:"request_throughput,omitempty"`
	DurationS         float64 `json:"duration_s,omitempty"`
	Completed         int     `json:"completed,omitempty"`
	TotalInputTokens  int64   `json:"total_input_tokens,omitempty"`
	TotalOutputTokens int64   `json:"total_output_tokens,omitempty"`
}

// Stat is a latency's statistics as a source gives them (0: not given).
type Stat = calibrate.Stat

// Where is the record's file:line, for messages.
func (r *Record) Where() string { return fmt.Sprintf("%s:%d", r.file, r.line) }

// ClosedLoop reports whether the point ran at a fixed concurrency.
func (r *Record) ClosedLoop() bool { return r.Concurrency > 0 }

// ReadCorpus reads every *.jsonl file of dir, in name order. A line that
// does not parse or lacks what any replay needs is an error naming its
// file:line; all of them are reported.
func ReadCorpus(dir string) ([]Record, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--corpus %s: no *.jsonl files", dir)
	}
	slices.Sort(files)
	var recs []Record
	var errs []error
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("--corpus: %w", err)
		}
		rs, err := readRecords(fh, filepath.Base(f))
		fh.Close()
		recs = append(recs, rs...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	seen := map[string]string{}
	for i := range recs {
		r := &recs[i]
		if prev, ok := seen[r.ID]; ok {
			errs = append(errs, fmt.Errorf("%s: id %q already used at %s", r.Where(), r.ID, prev))
		}
		seen[r.ID] = r.Where()
	}
	return recs, errors.Join(errs...)
}

// readRecords parses one JSONL stream; name labels its lines in errors.
func readRecords(in io.Reader, name string) ([]Record, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	var recs []Record
	var errs []error
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		var r Record
		if err := dec.Decode(&r); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", name, n, err))
			continue
		}
		r.file, r.line = name, n
		if err := r.validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %w", name, n, r.ID, err))
			continue
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return recs, errors.Join(errs...)
}

// validate reports every field a record must have whatever it measured:
// an id, a source with a reference, the deployment, the load and at least
// one measured figure.
func (r *Record) validate() error {
	var errs []error
	need := func(ok bool, what string) {
		if !ok {
			errs = append(errs, errors.New(what))
		}
	}
	need(r.ID != "", "no id")
	need(r.Source != "", "no source")
	need(r.Ref.URL != "" || r.Ref.Repo != "" && r.Ref.Path != "" && r.Ref.Commit != "", "ref needs a url or repo, path and commit")
	need(r.Model != "", "no model")
	need(r.GPU != "", "no gpu")
	need(r.TP >= 1, "tp must be at least 1")
	need(r.PP >= 0 && r.DP >= 0, "pp and dp must not be negative")
	need(r.Concurrency > 0 || r.RequestRate != 0, "neither concurrency nor request_rate")
	need(r.Concurrency >= 0 && r.RequestRate >= -1, "concurrency must not be negative, request_rate at least -1 (inf)")
	need(r.Measured.any(), "nothing measured")
	for _, l := range []struct {
		name string
		len  Length
	}{{"input_len", r.Workload.InputLen}, {"output_len", r.Workload.OutputLen}} {
		if err := l.len.validate(); err != nil {
			errs = append(errs, fmt.Errorf("workload.%s: %w", l.name, err))
		}
	}
	return errors.Join(errs...)
}

func (m *Metrics) any() bool {
	return given(m.TPOT) || given(m.ITL) || given(m.TTFT) || given(m.E2EL) || m.OutputThroughput > 0 ||
		m.TotalThroughput > 0 || m.RequestThroughput > 0
}

// given reports whether the source gave any of the statistics.
func given(s Stat) bool { return s.Mean > 0 || s.Median > 0 || s.P90 > 0 || s.P99 > 0 }

func (l Length) validate() error {
	switch l.Dist {
	case "":
		if l.Max == 0 && l.Mean == 0 {
			return errors.New("needs min/max or a mean")
		}
		if l.Max > 0 && (l.Min < 0 || l.Min > l.Max) {
			return fmt.Errorf("min %g must be in [0, max %g]", l.Min, l.Max)
		}
	case "normal", "lognormal", "exponential":
		if l.Mean <= 0 {
			return fmt.Errorf("%s needs a positive mean", l.Dist)
		}
	default:
		return fmt.Errorf("unknown dist %q (normal, lognormal, exponential, or none for uniform min..max)", l.Dist)
	}
	return nil
}

// shortModel is the model's name without its organisation, for tables.
func shortModel(hf string) string {
	if i := strings.LastIndexByte(hf, '/'); i >= 0 {
		return hf[i+1:]
	}
	return hf
}
