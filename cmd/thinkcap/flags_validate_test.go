package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// badFlagValues are values each flag must refuse with exit 2 and a message
// naming the flag, by flag name, for every command that has the flag
// (badFlagValuesFor overrides a name that means something else in one
// command). The bounds are vLLM's where the flag is vLLM's (sim/flags.go).
var badFlagValues = map[string][]string{
	// Deployment flags, as `vllm serve` bounds them.
	"model":                        {"no-such-model"},
	"gpu":                          {"no-such-gpu"},
	"tensor-parallel-size":         {"0", "-1"},
	"pipeline-parallel-size":       {"0", "-1"},
	"kv-cache-dtype":               {"int3"},
	"quantization":                 {"bitsandbytes"},
	"gpu-memory-utilization":       {"0", "1.5", "NaN"},
	"max-num-seqs":                 {"0", "-1"},
	"max-num-batched-tokens":       {"0", "-1"},
	"max-model-len":                {"0", "-1"},
	"block-size":                   {"0", "24"},
	"speculative-config":           {"{", `{"method":"ngram","num_speculative_tokens":0}`},
	"acceptance":                   {"9"},
	"num-gpu-blocks-override":      {"0", "-1"},
	"kv-cache-memory-bytes":        {"0", "-1"},
	"scheduling-policy":            {"sjf"},
	"long-prefill-token-threshold": {"-1"},
	"replicas":                     {"0", "-1"},
	"api-server-count":             {"0", "-1"},
	"router":                       {"random"},
	"vllm-version":                 {"latest"},
	"entry-point":                  {"grpc"},
	"max-cudagraph-capture-size":   {"0", "-1"},
	"cuda-graph-sizes":             {"0", "-1"},
	// Traffic.
	"traffic":         {"no-such-traffic"},
	"requests":        {"0", "-1"},
	"rate":            {"0", "-1", "NaN"},
	"arrival":         {"zipf"},
	"speedup":         {"0", "-1", "NaN"},
	"prompt-tokens":   {"lognormal:p50=abc"},
	"think-tokens":    {"lognormal:p50=abc"},
	"answer-tokens":   {"lognormal:p50=abc"},
	"concurrency":     {"0", "-1"},
	"workload-format": {"parquet"},
	"map":             {"zz"},
	"turns":           {"lognormal:p50=abc"},
	"think-time":      {"lognormal:p50=abc"},
	// What-ifs.
	"history":                    {"most"},
	"think-budget":               {"0", "-1"},
	"budget-policy":              {"maybe"},
	"effort":                     {"low=x"},
	"escalate":                   {"1.5", "-0.5", "NaN"},
	"route":                      {"mode=extreme"},
	"route-model":                {"no-such-model"},
	"route-gpu":                  {"no-such-gpu"},
	"route-tensor-parallel-size": {"0"},
	"route-replicas":             {"0"},
	// plan.
	"min-accuracy": {"math=2", "math"},
	// loadtest's shards, and as a Kubernetes Job.
	"shard":           {"2/2", "-1/2", "x"},
	"start-at":        {"yesterday"},
	"k8s-job":         {"Bad_Name"},
	"shards":          {"0"},
	"k8s-start-delay": {"-1s"},
	// size --by-hour's autoscaler (refused without --by-hour).
	"min-replicas":       {"0", "-1"},
	"autoscale-metric":   {"qps"},
	"autoscale-target":   {"0", "-1", "NaN"},
	"autoscale-interval": {"0s", "-1s"},
	"scale-up-delay":     {"-1s"},
	"cool-down":          {"-1s"},
	// Output and the checks of verify and loadtest --predict.
	"output":    {"yaml"},
	"tolerance": {"ttft_p50=lots"},
	// simulate.
	"timeline-interval": {"0", "-1", "NaN"},
	"seeds":             {"-1", "1001"},
	"confidence":        {"0", "1", "0.3", "NaN"},
	// size.
	"tp":                  {"0"},
	"pp":                  {"0", "-1"},
	"gpus":                {"no-such-gpu"},
	"slo":                 {"ttft_p95=1s"},
	"max-preemption-rate": {"-1", "NaN"},
	"max-replicas":        {"0"},
	"price":               {"h100-sxm=free"},
	// loadtest.
	"endpoint":        {"embeddings"},
	"header-timeout":  {"0s", "-1s"},
	"request-timeout": {"0s", "-1s"},
	"stall-timeout":   {"-1s"},
	"scrape-interval": {"-1s"},
	"warmup":          {"abc"},
	"duration":        {"0s", "-1s"},
	"max-in-flight":   {"-1"},
	"save-text":       {"1.5", "-0.1", "NaN"},
	"force-length":    {"maybe"},
	// serve.
	"port":               {"-1", "70000"},
	"log-level":          {"loud"},
	"log-stats-interval": {"0s"},
	"time-scale":         {"0", "NaN"},
	"reasoning-field":    {"thoughts"},
	"api-key":            {""},
	"fail-rate":          {"1.5", "NaN"},
	"abort-rate":         {"1.5", "NaN"},
	"header-delay":       {"-1s"},
	"drain-timeout":      {"-1s"},
	// The log commands.
	"tpot":               {"0", "NaN"},
	"threshold":          {"-1", "NaN"},
	"min-count":          {"-1"},
	"accuracy-tolerance": {"101", "NaN"},
	"spike-min-mass":     {"0", "1.5"},
	"name":               {"a b"},
	// verify and loadtest --predict: the verdict's floor.
	"min-requests": {"-1"},
	// loadtest's progress lines, breaker and failure bound.
	"progress-interval":        {"-1s"},
	"max-consecutive-failures": {"-1"},
	"max-failure-rate":         {"-0.1", "1.5", "NaN"},
	"goodput":                  {"tpot=50"},
	"metadata":                 {"novalue"},
	"percentiles":              {"0", "101"},
	"save-result":              {"/nonexistent-dir/r.json"},
	"header":                   {"novalue", "Bad Name=1"},
	"extra-body":               {"[1]", "{\"model\": \"x\"}"},
	"report":                   {"/nonexistent-dir/r.html"},
	"sweep":                    {"-1"},
	"dataset-name":             {"hf"},
	"dataset-path":             {"/nonexistent.json"},
	"sharegpt-output-len":      {"-1"},
	"custom-output-len":        {"-1"},
	"ramp-up":                  {"step:1s", "linear:-1s"},
	"max-rate":                 {"-1"},
	"engine":                   {"tgi"},
	// calibrate --corpus.
	"hold": {"no_such_coefficient"},
}

// badFlagValuesFor are the values of a flag whose name means something else
// in one command.
var badFlagValuesFor = map[string]map[string][]string{
	"fit":      {"report": {"yaml"}},
	"loadtest": {"threshold": {"ttft_p99<<2s", "latency<1s"}},
}

// freeFlags take any value a command cannot check before it uses it (a
// path, a name the server or a run decides), by flag name, with the reason.
var freeFlags = map[string]string{
	"eval":          "a path, read as the eval",
	"k8s-image":     "an image reference, which the cluster resolves",
	"k8s-namespace": "a namespace name, which the cluster checks",
	"k8s-secret":    "a Secret's name, which the cluster checks",
	"k8s-pvc":       "a volume claim's name, which the cluster checks",
	"profiles":      "a path, read when the catalog is loaded",
	"step-model":    "a path, read when the deployment is built",
	"workload":      "a path, read as the log",
	"seed":          "any integer is a seed",
	"results":       "a path to write",
	"timeline":      "a path to write",
	"plot":          "a path to write",
	"model-error":   "a path to write",
	"plot-dir":      "a path to write",
	"out":           "a path to write",
	"url":           "the server, asked by the preflight",
	"api-key-env":   "an environment variable's name",
	"ca-cert":       "a path, read when the client is built",
	"host":          "an address to listen on, checked by listening",
	"model-profile": "a profile resolved with --predict once the server is asked",
	"corpus":        "a directory, read as the measurement corpus",
	"env":           "any environment variable, as vLLM takes any: the kernel table reads those it knows (sim/kernels.go)",
}

// freeFlagsFor are the free flags of one command.
var freeFlagsFor = map[string]map[string]string{
	"loadtest":  {"model": "the served name, as the server lists it", "gpu": "resolved with --predict once the server is asked"},
	"verify":    {"model": "resolved after the run says what it served", "gpu": "resolved after the run is read", "report": "a path to write"},
	"calibrate": {"model": "resolved after the run says what it served", "gpu": "resolved after the run is read", "fit": "coefficient names, checked against the runs' step model"},
	"fit":       {"output": "a path to write"},
	"serve":     {"served-model-name": "any names the API answers to"},
}

// flagExtra are flags a flag needs beside it to be checked at all.
var flagExtra = map[string][]string{
	"acceptance":                 {"--speculative-config", `{"method":"ngram","num_speculative_tokens":2}`},
	"budget-policy":              {"--think-budget", "100"},
	"think-time":                 {"--turns", "3"},
	"shards":                     {"--k8s-job", "t"},
	"k8s-start-delay":            {"--k8s-job", "t"},
	"route-model":                {"--route", "low"},
	"route-gpu":                  {"--route", "low"},
	"route-tensor-parallel-size": {"--route", "low"},
	"route-replicas":             {"--route", "low"},
}

// flagExtraFor overrides flagExtra in one command: loadtest refuses
// --route, so its route flags are refused as unused without it.
var flagExtraFor = map[string]map[string][]string{
	"loadtest": {"route-model": nil, "route-gpu": nil, "route-tensor-parallel-size": nil, "route-replicas": nil},
}

// flagBase are the arguments each command runs with around the bad flag:
// a small run, so that a flag the command failed to check shows as a
// finished run (exit 0) or a later error that does not name the flag,
// never as a long one (loadtest stops sending after 2 s even when
// --requests=0 were taken for its default of 2000); loadtest's server
// counts what reaches it.
func flagBase(t *testing.T, url string) map[string][]string {
	dir := t.TempDir()
	return map[string][]string{
		"simulate": {"--requests", "5"},
		"capacity": {},
		"size":     {"--slo", "ttft_p99=100s", "--requests", "5", "--max-replicas", "1"},
		// --predict, so that the prediction's flags are checked as values
		// (TestLoadtestDeploymentFlagsWithoutPredict covers them without).
		"loadtest":  {"--url", url, "--model", "Qwen/Qwen3-8B", "--requests", "1", "--duration", "2s", "--scrape-interval", "0", "--out", filepath.Join(dir, "run"), "--predict"},
		"serve":     {"--host", "256.0.0.1"}, // a host no listener takes: never a server left running
		"verify":    {filepath.Join(dir, "no-run")},
		"calibrate": {filepath.Join(dir, "no-run")},
		"stats":     {filepath.Join("testdata", "stats-log.jsonl")},
		"fit":       {filepath.Join("testdata", "fit-log.jsonl")},
		"drift":     {filepath.Join("testdata", "drift-base.jsonl"), filepath.Join("testdata", "drift-new.jsonl")},
		"curve":     {filepath.Join("testdata", "curve-eval.csv")},
		"profiles":  {},
		"fidelity":  {"--corpus", filepath.Join(dir, "no-corpus")},
		"merge":     {filepath.Join(dir, "no-shard"), "--out", filepath.Join(dir, "merged")},
		"plan":      {"--slo", "ttft_p99=100s", "--requests", "5", "--max-replicas", "1", "--eval", filepath.Join("..", "..", "testdata", "eval.jsonl")},
	}
}

// namesFlag reports whether the message names the flag: --name, or its
// shorthand as -o: names it.
func namesFlag(msg string, f *pflag.Flag) bool {
	return strings.Contains(msg, "--"+f.Name) || f.Shorthand != "" && strings.Contains(msg, "-"+f.Shorthand+":")
}

// TestEveryFlagIsValidated walks every flag of every command through cobra:
// each bad value exits 2 naming the flag, before any work (no request
// reaches loadtest's server). A flag with no bad value here and not listed
// as free fails the test: a new flag is validated, or says why not.
func TestEveryFlagIsValidated(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "flag validation should have stopped this request", http.StatusTeapot)
	}))
	defer srv.Close()
	base := flagBase(t, srv.URL)

	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if !c.Runnable() || c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		name := c.Name()
		args, ok := base[name]
		if !ok {
			t.Errorf("command %s has no base arguments in flagBase", name)
			return
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Value.Type() == "bool" || f.Name == "help" {
				return // pflag itself refuses what is not a boolean
			}
			values, ok := badFlagValuesFor[name][f.Name]
			if !ok {
				values, ok = badFlagValues[f.Name]
			}
			_, free := freeFlagsFor[name][f.Name]
			if _, ok := freeFlags[f.Name]; ok && len(values) == 0 {
				free = true
			}
			switch {
			case free:
				return
			case !ok:
				t.Errorf("%s --%s (%s) has no bad value in flags_validate_test.go: validate it and add one, or list it as free with the reason",
					name, f.Name, f.Value.Type())
				return
			}
			for _, v := range values {
				extra, ok := flagExtraFor[name][f.Name]
				if !ok {
					extra = flagExtra[f.Name]
				}
				line := append(append(append([]string{name}, args...), extra...), "--"+f.Name+"="+v)
				t.Run(name+"/"+f.Name+"="+v, func(t *testing.T) {
					_, errOut, code := thinkcap(t, line...)
					if code != exitBadInput || !namesFlag(errOut, f) {
						t.Errorf("thinkcap %s: exit %d, stderr %q; want exit 2 naming --%s", strings.Join(line, " "), code, errOut, f.Name)
					}
				})
			}
		})
	}
	walk(newRootCmd(io.Discard, io.Discard))
	if n := hits.Load(); n > 0 {
		t.Errorf("%d requests reached the server: a bad flag was found after the load test began", n)
	}
}

// TestFlagTableIsCurrent: every flag the table names exists in some
// command, so the table cannot keep rows for flags long gone.
func TestFlagTableIsCurrent(t *testing.T) {
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) { seen[f.Name] = true })
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(io.Discard, io.Discard))
	var stale []string
	for _, m := range []map[string][]string{badFlagValues, flagExtra} {
		for name := range m {
			if !seen[name] {
				stale = append(stale, name)
			}
		}
	}
	for name := range freeFlags {
		if !seen[name] {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	if len(stale) > 0 {
		t.Errorf("flags_validate_test.go names flags no command has: %s", strings.Join(stale, ", "))
	}
}

// TestZeroFlagsAreRefused: a flag given as 0 where 0
// meant "unset" and became the default with exit 0; and a flag left out
// still takes its default.
func TestZeroFlagsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--max-num-seqs", "0"}, "--max-num-seqs must be at least 1, got 0"},
		{[]string{"simulate", "--rate", "0"}, "--rate must be a positive number of requests per second, got 0"},
		{[]string{"simulate", "--requests", "0"}, "--requests must be at least 1, got 0"},
		{[]string{"simulate", "-t", "0"}, "--tensor-parallel-size must be at least 1, got 0"},
		{[]string{"simulate", "--replicas", "0"}, "--replicas must be at least 1, got 0"},
		{[]string{"capacity", "--block-size", "0"}, "--block-size must be a positive multiple of 16, got 0"},
		{[]string{"capacity", "--max-num-batched-tokens", "0"}, "--max-num-batched-tokens must be at least 1, got 0"},
		{[]string{"capacity", "--gpu-memory-utilization", "0"}, "--gpu-memory-utilization must be in (0, 1], got 0"},
		{[]string{"size", "--slo", "ttft_p99=1s", "--max-num-seqs", "0,256"}, "--max-num-seqs must be at least 1, got 0"},
	} {
		_, errOut, code := thinkcap(t, tc.args...)
		if code != exitBadInput || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
	// Several bad flags are all named at once.
	_, errOut, code := thinkcap(t, "simulate", "--max-num-seqs", "0", "--rate", "0", "-t", "0")
	for _, w := range []string{"--max-num-seqs", "--rate", "--tensor-parallel-size"} {
		if code != exitBadInput || !strings.Contains(errOut, w) {
			t.Errorf("three bad flags: exit %d, stderr %q lacks %s", code, errOut, w)
		}
	}
	// Left out, they are vLLM's defaults.
	if _, errOut, code := thinkcap(t, "capacity"); code != 0 {
		t.Errorf("capacity with the defaults: exit %d: %s", code, errOut)
	}
}

// TestLoadtestDeploymentFlagsWithoutPredict: without --predict the
// prediction's flags would change nothing, yet a malformed value is still
// refused as such, and a good one is refused as unused rather than
// silently ignored; no request is sent either way.
func TestLoadtestDeploymentFlagsWithoutPredict(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer srv.Close()
	run := []string{"loadtest", "--url", srv.URL, "--model", "m", "--requests", "1", "--scrape-interval", "0", "--out", filepath.Join(t.TempDir(), "run")}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--speculative-config", "{"}, []string{"--speculative-config: invalid JSON"}},
		{[]string{"--max-num-seqs", "0"}, []string{"--max-num-seqs must be at least 1, got 0"}},
		{[]string{"--tolerance", "ttft_p50=lots"}, []string{"--tolerance:"}},
		{[]string{"--gpu", "h200", "-t", "2"}, []string{"--gpu, --tensor-parallel-size only matter with --predict"}},
		{[]string{"--model-profile", "qwen3-8b"}, []string{"--model-profile only matters with --predict"}},
	} {
		_, errOut, code := thinkcap(t, append(slices.Clone(run), tc.args...)...)
		for _, w := range tc.want {
			if code != exitBadInput || !strings.Contains(errOut, w) {
				t.Errorf("loadtest %v: exit %d, stderr %q; want exit 2 with %q", tc.args, code, errOut, w)
			}
		}
	}
	if n := hits.Load(); n > 0 {
		t.Errorf("%d requests reached the server", n)
	}
}
