package sim

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/profiles"
)

// corpusRow is one startup log of testdata/capacity/corpus-*.jsonl (the
// fields this test reads; the collectors' format is in PROVENANCE.md).
type corpusRow struct {
	ID                   string  `json:"id"`
	ModelHF              string  `json:"model_hf"`
	ModelProfile         string  `json:"model_profile"`
	GPU                  string  `json:"gpu"`
	GPUProfile           string  `json:"gpu_profile"`
	GPUTotalGiB          float64 `json:"gpu_total_gib"`
	TP                   int     `json:"tp"`
	PP                   int     `json:"pp"`
	DP                   int     `json:"dp"`
	VLLMVersion          string  `json:"vllm_version"`
	Engine               string  `json:"engine"`
	Entry                string  `json:"entry"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	MaxModelLen          int     `json:"max_model_len"`
	MaxNumSeqs           int     `json:"max_num_seqs"`
	MaxNumBatchedTokens  int     `json:"max_num_batched_tokens"`
	KVCacheDtype         string  `json:"kv_cache_dtype"`
	Quantization         string  `json:"quantization"`
	BlockSize            int     `json:"block_size"`
	EnforceEager         *bool   `json:"enforce_eager"`
	Speculative          string  `json:"speculative"`
	// Sampler is "flashinfer" when the row's log prints "Using FlashInfer
	// for top-p & top-k sampling" (--flashinfer-sampler).
	Sampler string `json:"sampler"`
	Logged  struct {
		AvailableKVGiB float64 `json:"available_kv_gib"`
		KVCacheTokens  int64   `json:"kv_cache_tokens"`
	} `json:"logged"`
	file string
}

func readCorpus(t *testing.T) []corpusRow {
	t.Helper()
	files, err := filepath.Glob("../testdata/capacity/corpus-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rows []corpusRow
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			if strings.TrimSpace(sc.Text()) == "" {
				continue
			}
			var r corpusRow
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatalf("%s:%d: %v", f, n, err)
			}
			r.file = filepath.Base(f)
			rows = append(rows, r)
		}
		fh.Close()
	}
	return rows
}

// corpusQuantizations maps a row's quantization to --quantization; false:
// a method thinkcap does not model (its weight bytes are not the profile's).
func corpusQuantization(q string) (string, bool) {
	switch q {
	case "", "none", "None":
		return "", true
	case "fp8", "mxfp4", "nvfp4", "awq":
		return q, true
	}
	return "", false
}

// corpusUnmodelled says why a row's model has no profile: an architecture
// thinkcap does not model, or one it does that has no profile yet.
func corpusUnmodelled(model string) string {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "-vl-") || strings.Contains(m, "llava") || strings.Contains(m, "omni"):
		return "vision/audio encoder and its profile run not modelled (" + model + ")"
	case strings.Contains(m, "qwen3-next") || strings.Contains(m, "qwen3.6") || strings.Contains(m, "qwen3.8") ||
		strings.Contains(m, "qwen36") || strings.Contains(m, "granite-4.0-h"):
		return "hybrid linear-attention / Mamba layers not modelled (" + model + ")"
	case strings.Contains(m, "gemma") || strings.Contains(m, "laguna") || strings.Contains(m, "exaone") || strings.Contains(m, "granite"):
		return "no profile for this architecture yet (" + model + ")"
	}
	return "no model profile for " + model
}

// corpusModelAliases are checkpoints whose config.json has the fields
// thinkcap reads equal to a profile's (the FP8 checkpoint's quantization
// comes from the row's --quantization).
var corpusModelAliases = map[string]string{
	"Qwen/Qwen3-235B-A22B-FP8":            "qwen3-235b-a22b",
	"meta-llama/Meta-Llama-3-8B-Instruct": "llama-3.1-8b", // Llama 3.1 changed only RoPE scaling and the context
}

// corpusConfig is the deployment a row describes, as a planner would pass
// it: the profile's GPU memory, the row's flags, vLLM's defaults for the
// rest. skip is why the row cannot be predicted ("" when it can).
func corpusConfig(cat *profiles.Catalog, r corpusRow) (cfg Config, skip string) {
	if r.Engine == "v0" {
		return cfg, "V0 engine: another profile and block accounting"
	}
	name := r.ModelProfile
	if name == "" {
		name = r.ModelHF
	}
	if alias, ok := corpusModelAliases[r.ModelHF]; ok {
		name = alias
	}
	m, err := cat.Model(name)
	if err != nil {
		return cfg, corpusUnmodelled(r.ModelHF)
	}
	var g profiles.GPU
	switch {
	case r.GPUProfile != "":
		if g, err = cat.GPU(r.GPUProfile); err != nil {
			return cfg, "no GPU profile " + r.GPUProfile
		}
	case r.GPUTotalGiB > 0 && r.TP <= 1:
		// An unnamed GPU whose total the log prints: a planner knows its
		// memory; at TP 1 nothing else of the profile enters capacity.
		g = profiles.GPU{Name: fmt.Sprintf("gpu-%.2fgib", r.GPUTotalGiB), MemoryGiB: r.GPUTotalGiB}
	default:
		return cfg, "no GPU profile for " + r.GPU
	}
	q, ok := corpusQuantization(r.Quantization)
	if !ok {
		return cfg, "quantization " + r.Quantization + " not modelled"
	}
	if r.Speculative != "" {
		return cfg, "speculative decoding in the log"
	}
	if r.DP > 1 {
		return cfg, "data parallel"
	}
	cfg = Config{Model: m, GPU: g, TensorParallelSize: max(r.TP, 1), PipelineParallelSize: max(r.PP, 1), VLLMVersion: r.VLLMVersion,
		GPUMemoryUtilization: r.GPUMemoryUtilization, MaxModelLen: r.MaxModelLen, MaxNumSeqs: r.MaxNumSeqs,
		MaxNumBatchedTokens: r.MaxNumBatchedTokens, KVCacheDtype: r.KVCacheDtype, Quantization: q, BlockSize: r.BlockSize,
		FlashInferSampler: r.Sampler == "flashinfer"}
	if cfg.KVCacheDtype == "auto" {
		cfg.KVCacheDtype = ""
	}
	if strings.HasPrefix(r.Entry, "bench") || r.Entry == "llm" {
		cfg.EntryPoint = "llm"
	}
	if err := cfg.Resolve(); err != nil {
		return cfg, "config: " + err.Error()
	}
	return cfg, ""
}

// corpusExceptions are the rows allowed beyond 3 % from GPU memory alone,
// each with the reason (docs/capacity.md lists them too).
var corpusExceptions = map[string]string{
	// The issue compares an EAGLE server with a baseline and does not say
	// which printed the lines; the logged pool is exactly 32/33 of the
	// plain model's: one EAGLE drafter layer shares it.
	"I-19": "EAGLE drafter layer in the pool (the row names no speculative config)",
	// The log's own terms: weights 27.72 GiB and activation peak 1.40 GiB
	// against 27.51 and 0.89 modelled; --enable-expert-parallel's
	// all-to-all buffers and expert placement are not modelled.
	"I-21": "expert parallel: logged weights +0.21 GiB, activation peak +0.51 GiB beyond the model",
	// The same model and flags as R-04 on the 40 GB part leave 1.54 GiB
	// for activations and non-torch memory, against 0.67 GiB on the 80 GB
	// part: something else held memory on that GPU.
	// The author ran two single-GPU replicas of one deployment and saw
	// 9.10 GiB (I-14) or 10.33 GiB (I-17) of KV memory depending on start
	// order: the pair is the spread of one configuration; I-14 is within 1 %.
	"I-17": "same deployment as I-14 with 1.23 GiB more KV memory: start-order spread the author reports",
	// PP 4 of Qwen3-235B-A22B FP8 over PCIe (RTX PRO 6000, no profile: its
	// logged total): the author's table gives one stage's figures without
	// saying which, and the stages' memory used differs by 3.6 GiB.
	"I-28": "PP 4 from an author's table: which stage's figures are given is not said; stage memory differs by 3.6 GiB",
	"R-05": "1.54 GiB beyond weights and KV against 0.67 on the same deployment's 80 GB rows: unexplained (other processes?)",
}

// corpusMedianBound is the median |error| from GPU memory alone this test
// holds the model to: under the target of 1 %, the figure reached
// (0.81 %) with a little room.
const corpusMedianBound = 0.0095

// TestCapacityCorpus predicts every corpus row's "GPU KV cache size" (a)
// from the logged available KV memory, which must agree to the block
// within the log's rounding of the GiB figure, and (b) from GPU memory
// alone, as a planner starts: the median |error| is bounded, every row is
// within 3 % or excepted with a reason, and no row vLLM started is
// predicted not to start. It prints the table of rows with their error.
func TestCapacityCorpus(t *testing.T) {
	rows := readCorpus(t)
	if len(rows) == 0 {
		t.Skip("no corpus rows in testdata/capacity")
	}
	cat := simtest.Catalog(t)
	// --vllm-version's default is the newest release the corpus covers.
	def, _ := ParseVLLMVersion(DefaultVLLMVersion)
	for _, r := range rows {
		if v, err := ParseVLLMVersion(r.VLLMVersion); err == nil && def.Before(v) {
			t.Errorf("%s logs vLLM %s, newer than DefaultVLLMVersion %s: raise the default", r.ID, r.VLLMVersion, DefaultVLLMVersion)
		}
	}
	var errs, kept []float64 // |error| of every predicted row, and of the rows not excepted
	var table strings.Builder
	fmt.Fprintf(&table, "%-6s %-18s %-9s %3s %-8s %12s %12s %8s %12s %8s  %s\n",
		"id", "model", "gpu", "tp", "vllm", "logged", "from-kv", "err", "from-gpu", "err", "note")
	for _, r := range rows {
		cfg, skip := corpusConfig(cat, r)
		if skip == "" && r.Logged.KVCacheTokens == 0 && r.Logged.AvailableKVGiB == 0 {
			skip = "no GPU KV cache size or available KV memory logged"
		}
		if skip != "" {
			fmt.Fprintf(&table, "%-6s %-18.18s skipped: %s\n", r.ID, r.ModelHF, skip)
			continue
		}
		derived := ""
		if r.Logged.KVCacheTokens == 0 {
			// Only the available memory is logged: the tokens it gives
			// (exact on every row that logs both) stand for the line.
			r.Logged.KVCacheTokens = corpusTokens(t, cfg, r.Logged.AvailableKVGiB)
			derived = " (tokens from the logged KV memory)"
		}
		logged := float64(r.Logged.KVCacheTokens)
		fromKV, errKV := "-", "-"
		if r.Logged.AvailableKVGiB > 0 && derived == "" {
			// The log rounds the GiB to 0.01: any memory in that interval
			// is the log's; exact means the logged tokens fall between the
			// interval's ends.
			lo, hi := corpusTokens(t, cfg, r.Logged.AvailableKVGiB-0.005), corpusTokens(t, cfg, r.Logged.AvailableKVGiB+0.005)
			mid := corpusTokens(t, cfg, r.Logged.AvailableKVGiB)
			fromKV, errKV = fmt.Sprint(mid), fmt.Sprintf("%+.2f%%", 100*(float64(mid)-logged)/logged)
			if float64(lo) > logged || float64(hi) < logged {
				if _, ok := corpusKVExceptions[r.ID]; !ok {
					t.Errorf("%s (%s): from the logged %.2f GiB, %d..%d tokens; logged %d", r.ID, r.file, r.Logged.AvailableKVGiB, lo, hi, r.Logged.KVCacheTokens)
				}
			}
		}
		c := cfg
		got, err := ComputeCapacity(&c)
		if err != nil {
			t.Errorf("%s (%s): vLLM started, thinkcap says it does not: %v", r.ID, r.file, err)
			continue
		}
		e := (float64(got.KVCacheTokens) - logged) / logged
		errs = append(errs, math.Abs(e))
		note := derived
		if reason, ok := corpusExceptions[r.ID]; ok {
			note = reason
		} else {
			kept = append(kept, math.Abs(e))
		}
		if _, ok := corpusExceptions[r.ID]; !ok && math.Abs(e) > 0.03 {
			t.Errorf("%s (%s): from GPU memory %d tokens, logged %d (%+.2f%%): beyond 3%%", r.ID, r.file, got.KVCacheTokens, r.Logged.KVCacheTokens, 100*e)
		}
		fmt.Fprintf(&table, "%-6s %-18.18s %-9s %3d %-8s %12d %12s %8s %12d %+7.2f%%  %s\n", r.ID, cfg.Model.Name, cfg.GPU.Name,
			cfg.TensorParallelSize, cfg.VLLMVersion, r.Logged.KVCacheTokens, fromKV, errKV, got.KVCacheTokens, 100*e, note)
	}
	t.Logf("capacity corpus: %d rows, %d predicted\n%s", len(rows), len(errs), table.String())
	if len(errs) == 0 {
		return
	}
	median := corpusMedian(errs)
	t.Logf("median |error| from GPU memory %.2f%% over %d rows, worst %.2f%%; without the excepted rows %.2f%% over %d",
		100*median, len(errs), 100*slices.Max(errs), 100*corpusMedian(kept), len(kept))
	if median > corpusMedianBound {
		t.Errorf("median |error| %.2f%%; want ≤ %.2f%%", 100*median, 100*corpusMedianBound)
	}
}

func corpusMedian(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	if len(v)%2 == 0 {
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return v[len(v)/2]
}

// corpusKVExceptions are rows whose logged available KV memory does not give
// the logged tokens, with the reason.
var corpusKVExceptions = map[string]string{
	"I-19": "EAGLE drafter layer in the pool: logged tokens are 32/33 of the plain model's",
	// The "Available KV cache memory" line is Worker_TP3's; the pool the
	// engine logs is 0.26 % larger than 10.65 GiB gives (expert parallel,
	// TP 8): not explained yet.
	"I-21": "another worker's available memory (EP, TP 8): +0.26 %",
	"I-28": "PP 4: the author's one per-GPU KV figure is an unnamed stage's; the pool is the poorest stage's",
}

// corpusTokens is the KV cache tokens cfg gets from avail GiB of KV memory.
func corpusTokens(t *testing.T, cfg Config, availGiB float64) int64 {
	t.Helper()
	cfg.KVCacheMemoryBytes = int64(availGiB * bytesPerGiB)
	cfg.NumGPUBlocksOverride = 0
	got, err := ComputeCapacity(&cfg)
	if err != nil {
		return 0
	}
	return got.KVCacheTokens
}
