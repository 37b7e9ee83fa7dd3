package loadtest

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/internal/inputerr"
	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/workload"
)

// metadata are the parsed --metadata items.
func metadata(t *testing.T, items ...string) [][2]string {
	t.Helper()
	m, err := ParseMetadata(items)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// orderedKeys are a JSON object's keys in file order.
func orderedKeys(t *testing.T, b []byte) ([]string, map[string]any) {
	t.Helper()
	var vals map[string]any
	if err := json.Unmarshal(b, &vals); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys, vals
}

// TestSaveResultReadsLikeVLLMBench: SaveResult writes every key
// of a real `vllm bench serve --save-result` file (loadtest/testdata, with
// its provenance), in its order and with its JSON types, its values
// consistent with the run; Metadata adds string keys after num_prompts,
// Percentiles picks the p-keys, Goodput fills request_goodput.
func TestSaveResultReadsLikeVLLMBench(t *testing.T) {
	real, err := os.ReadFile("testdata/vllm-bench-serve-result.json")
	if err != nil {
		t.Fatal(err)
	}
	wantKeys, wantVals := orderedKeys(t, real)

	srv, _ := vllmtest.Slow(t, 2*time.Millisecond)
	tmp := t.TempDir()
	path := filepath.Join(tmp, "result.json")
	o := testOptions(srv.URL, filepath.Join(tmp, "run"), synthetic(t, 8, 40, "8", "4", "6"))
	o.Model, o.ScrapeInterval, o.SaveResult, o.Metadata = "slow-model", time.Second, path, metadata(t, "gpu=H100", "note = a b=c")
	_, errOut, code := load(t, o)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b, []byte("\n")) != 0 || !bytes.Contains(b, []byte(`"completed": 8, `)) {
		t.Errorf("not one line in Python's json.dump style: %.200s", b)
	}
	keys, vals := orderedKeys(t, b)
	// Every key of vLLM's file, in its order among ours.
	at := 0
	for _, k := range wantKeys {
		i := indexOf(keys[at:], k)
		if i < 0 {
			t.Fatalf("key %q missing or out of order (ours: %v)", k, keys)
		}
		at += i + 1
		if k == "label" || k == "request_goodput" || k == "max_concurrency" {
			continue // null in vLLM's file and ours here (no label, goodput or cap)
		}
		if kindOf(vals[k]) != kindOf(wantVals[k]) {
			t.Errorf("%s: %v (%s), vLLM writes %v (%s)", k, vals[k], kindOf(vals[k]), wantVals[k], kindOf(wantVals[k]))
		}
	}
	if vals["gpu"] != "H100" || vals["note"] != "a b=c" || indexOf(keys, "gpu") != indexOf(keys, "num_prompts")+1 {
		t.Errorf("metadata: gpu %v, note %v, keys %v", vals["gpu"], vals["note"], keys)
	}
	num := func(k string) float64 { f, _ := vals[k].(float64); return f }
	// The prompts are at least the 8 tokens asked (the server counts its own).
	if num("completed") != 8 || num("failed") != 0 || num("total_output_tokens") != 80 || num("total_input_tokens") < 64 {
		t.Errorf("counts: %v completed, %v failed, %v in, %v out", vals["completed"], vals["failed"], vals["total_input_tokens"], vals["total_output_tokens"])
	}
	if d := num("duration"); !(d > 0) || math.Abs(num("request_throughput")-8/d) > 1e-9 || math.Abs(num("output_throughput")-80/d) > 1e-9 {
		t.Errorf("throughputs inconsistent with duration %v: %v req/s, %v tok/s", d, vals["request_throughput"], vals["output_throughput"])
	}
	// Tokens 2 ms apart: TPOT and ITL near 2 ms; TTFT and E2E positive and ordered.
	if tp := num("mean_tpot_ms"); tp < 1.5 || tp > 20 || num("median_itl_ms") < 1.5 || num("median_itl_ms") > 20 {
		t.Errorf("TPOT %v ms, ITL median %v ms; tokens were 2 ms apart", tp, vals["median_itl_ms"])
	}
	if !(num("p99_ttft_ms") >= num("median_ttft_ms") && num("median_ttft_ms") > 0 && num("mean_e2el_ms") > num("mean_ttft_ms")) {
		t.Errorf("TTFT p99 %v, median %v, E2E mean %v", vals["p99_ttft_ms"], vals["median_ttft_ms"], vals["mean_e2el_ms"])
	}
	if c := num("max_concurrent_requests"); c < 1 || c > 8 {
		t.Errorf("max_concurrent_requests %v", c)
	}
	if r := num("request_rate"); r < 20 || r > 80 {
		t.Errorf("request_rate %v, offered 40", r)
	}

	// Percentiles and goodput; a closed loop's rate is "inf".
	o = testOptions(srv.URL, filepath.Join(tmp, "run2"), traffic(t, workload.TrafficOptions{Requests: 4, Concurrency: 2, Prompt: dist(t, "8"), Think: dist(t, "4"), Answer: dist(t, "6")}, 0))
	o.Model, o.Concurrency, o.ScrapeInterval = "slow-model", 2, time.Second
	o.SaveResult, o.Percentiles, o.Goodput = path, []float64{50, 99.9}, goodput(t, "tpot=1s")
	_, errOut, code = load(t, o)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ = os.ReadFile(path)
	keys, vals = orderedKeys(t, b)
	for _, k := range []string{"p50_ttft_ms", "p99.9_tpot_ms", "p50_itl_ms", "p99.9_e2el_ms"} {
		if _, ok := vals[k]; !ok {
			t.Errorf("no %s in %v", k, keys)
		}
	}
	if _, ok := vals["p99_ttft_ms"]; ok {
		t.Error("p99_ttft_ms written though --percentiles did not ask for it")
	}
	// The same percentiles in summary.json, each latency's distribution.
	var sum struct {
		LatencyS map[string]struct {
			Dist *struct {
				Min, Max    float64
				Percentiles []struct{ P, Value float64 }
			} `json:"distribution"`
		} `json:"latency_s"`
	}
	sb, _ := os.ReadFile(filepath.Join(tmp, "run2", "summary.json"))
	if err := json.Unmarshal(sb, &sum); err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"ttft", "tpot", "itl", "e2e"} {
		d := sum.LatencyS[m].Dist
		if d == nil || len(d.Percentiles) != 2 || d.Percentiles[0].P != 50 || d.Percentiles[1].P != 99.9 ||
			!(d.Min <= d.Percentiles[0].Value && d.Percentiles[0].Value <= d.Percentiles[1].Value && d.Percentiles[1].Value <= d.Max) {
			t.Errorf("summary.json %s distribution %+v", m, d)
		}
	}
	if vals["request_rate"] != "inf" || vals["max_concurrency"] != 2.0 || vals["request_goodput"] != vals["request_throughput"] {
		t.Errorf("closed loop: rate %v, max_concurrency %v, goodput %v of %v", vals["request_rate"], vals["max_concurrency"], vals["request_goodput"], vals["request_throughput"])
	}

	if _, err := ParseMetadata([]string{"novalue"}); !slices.Contains(inputerr.Fields(err), "Metadata") || !strings.Contains(err.Error(), `"novalue": want KEY=VALUE`) {
		t.Errorf("metadata novalue: %v", err)
	}
	for _, c := range []struct {
		name string
		bad  func(*Options)
		want string
	}{
		{"percentile 0", func(o *Options) { o.Percentiles = []float64{0} }, "Percentiles: 0 is not a percentile"},
		{"save-result nowhere", func(o *Options) { o.SaveResult = filepath.Join(tmp, "nowhere", "r.json") }, "its directory does not exist"},
	} {
		o := testOptions(srv.URL, filepath.Join(tmp, "bad"), synthetic(t, 1, 10, "8", "1", "1"))
		o.Model = "slow-model"
		c.bad(&o)
		if _, errOut, code := load(t, o); code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, want %d with %q: %s", c.name, code, exitBadInput, c.want, errOut)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// kindOf is a decoded JSON value's type.
func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case float64:
		return "number"
	case string:
		return "string"
	case bool:
		return "bool"
	case []any:
		return "array"
	}
	return "object"
}
