package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/internal/inputerr"
)

// flagNames maps an options field, as the packages name it in an
// inputerr.Error, to the flag that sets it: the packages know their
// options' fields, only the commands know the flags. A field two commands
// set with different flags gets two names in its package, never one entry
// here that is wrong for one of them.
var flagNames = map[string]string{
	"APIKeys":                  "--api-key",
	"AbortRate":                "--abort-rate",
	"Acceptance":               "--acceptance",
	"AccuracyTolerance":        "--accuracy-tolerance",
	"Address":                  "--host/--port",
	"Answer":                   "--answer-tokens",
	"Arrival":                  "--arrival",
	"Autoscale.CoolDownS":      "--cool-down",
	"Autoscale.IntervalS":      "--autoscale-interval",
	"Autoscale.Max":            "--max-replicas",
	"Autoscale.Metric":         "--autoscale-metric",
	"Autoscale.Min":            "--min-replicas",
	"Autoscale.ScaleUpDelayS":  "--scale-up-delay",
	"Autoscale.Target":         "--autoscale-target",
	"BudgetPolicy":             "--budget-policy",
	"Concurrency":              "--concurrency",
	"Confidence":               "--confidence",
	"Corpus":                   "--corpus",
	"Dataset.Path":             "--dataset-path",
	"DrainTimeout":             "--drain-timeout",
	"Duration":                 "--duration",
	"Effort":                   "--effort",
	"Endpoint":                 "--endpoint",
	"Engine":                   "--engine",
	"Escalate":                 "--escalate",
	"FailRate":                 "--fail-rate",
	"Fit":                      "--fit",
	"ForceLength":              "--force-length",
	"GPUs":                     "--gpus",
	"Goodput":                  "--goodput",
	"HeaderDelay":              "--header-delay",
	"HeaderTimeout":            "--header-timeout",
	"History":                  "--history",
	"Hold":                     "--hold",
	"KVCacheDtypes":            "--kv-cache-dtype",
	"LogLevel":                 "--log-level",
	"LogStatsInterval":         "--log-stats-interval",
	"MaxConsecutiveFailures":   "--max-consecutive-failures",
	"MaxInFlight":              "--max-in-flight",
	"MaxPreemptionRate":        "--max-preemption-rate",
	"MaxRate":                  "--max-rate",
	"MaxReplicas":              "--max-replicas",
	"Metadata":                 "--metadata",
	"MinAccuracy":              "--min-accuracy",
	"MinCount":                 "--min-count",
	"MinRequests":              "--min-requests",
	"Model":                    "--model",
	"ModelError":               "--model-error",
	"Models":                   "--model",
	"Name":                     "--name",
	"NoPreflight":              "--no-preflight",
	"Out":                      "--out",
	"PP":                       "--pp",
	"Percentiles":              "--percentiles",
	"Plot":                     "--plot",
	"PlotDir":                  "--plot-dir",
	"Port":                     "--port",
	"Predict":                  "--predict",
	"Prices":                   "--price",
	"ProgressInterval":         "--progress-interval",
	"Prompt":                   "--prompt-tokens",
	"RatePerS":                 "--rate",
	"ReasoningField":           "--reasoning-field",
	"Report":                   "--report",
	"RequestTimeout":           "--request-timeout",
	"Requests":                 "--requests",
	"Route":                    "--route",
	"Route.GPU":                "--route-gpu",
	"Route.Model":              "--route-model",
	"Route.Replicas":           "--route-replicas",
	"Route.TensorParallelSize": "--route-tensor-parallel-size",
	"SLO":                      "--slo",
	"SLOs":                     "--slo",
	"SaveResult":               "--save-result",
	"SaveText":                 "--save-text",
	"ScrapeAllShards":          "--scrape-all-shards",
	"ScrapeInterval":           "--scrape-interval",
	"Seeds":                    "--seeds",
	"ServedModelNames":         "--served-model-name",
	"Shard":                    "--shard",
	"Speculative":              "--speculative-config",
	"Speedup":                  "--speedup",
	"SpikeMinMass":             "--spike-min-mass",
	"StallTimeout":             "--stall-timeout",
	"StartAt":                  "--start-at",
	"StepModel":                "--step-model",
	"TP":                       "--tp",
	"TPOTS":                    "--tpot",
	"Think":                    "--think-tokens",
	"ThinkBudget":              "--think-budget",
	"ThinkTime":                "--think-time",
	"Threshold":                "--threshold",
	"Thresholds":               "--threshold",
	"TimeScale":                "--time-scale",
	"TimelineIntervalS":        "--timeline-interval",
	"Tolerances":               "--tolerance",
	"Traffic":                  "--traffic",
	"Turns":                    "--turns",
	"URL":                      "--url",
	"Warmup":                   "--warmup",
	"Workload":                 "--workload",

	// sim.DeploymentOptions.Engine: the engine flags, named as `vllm serve`
	// names them.
	"Engine.APIServerCount":            "--api-server-count",
	"Engine.AsyncScheduling":           "--async-scheduling",
	"Engine.BlockSize":                 "--block-size",
	"Engine.DisablePrefixCaching":      "--enable-prefix-caching",
	"Engine.CUDAGraphSizes":            "--cuda-graph-sizes",
	"Engine.EnforceEager":              "--enforce-eager",
	"Engine.EntryPoint":                "--entry-point",
	"Engine.GPUMemoryUtilization":      "--gpu-memory-utilization",
	"Engine.KVCacheDtype":              "--kv-cache-dtype",
	"Engine.KVCacheMemoryBytes":        "--kv-cache-memory-bytes",
	"Engine.LongPrefillTokenThreshold": "--long-prefill-token-threshold",
	"Engine.MaxCUDAGraphCaptureSize":   "--max-cudagraph-capture-size",
	"Engine.MaxModelLen":               "--max-model-len",
	"Engine.MaxNumBatchedTokens":       "--max-num-batched-tokens",
	"Engine.MaxNumSeqs":                "--max-num-seqs",
	"Engine.NoAsyncScheduling":         "--no-async-scheduling",
	"Engine.NumGPUBlocksOverride":      "--num-gpu-blocks-override",
	"Engine.PipelineParallelSize":      "--pipeline-parallel-size",
	"Engine.Quantization":              "--quantization",
	"Engine.Replicas":                  "--replicas",
	"Engine.Router":                    "--router",
	"Engine.SchedulingPolicy":          "--scheduling-policy",
	"Engine.TensorParallelSize":        "--tensor-parallel-size",
	"Engine.VLLMVersion":               "--vllm-version",
}

// init gives the table to inputerr before any command runs, so every
// error names the flag the user typed.
func init() { inputerr.SetNames(flagNames) }

// given is the options' Given for the flags of fs: whether the user set
// the field, by the flag flagNames maps it to ("--a/--b": either). A field
// with no entry was never set by a flag (TestFlagNamesCoverGiven keeps the
// fields the packages ask about in the table); none when fs is nil.
func given(fs *pflag.FlagSet) func(field string) bool {
	return func(field string) bool {
		if fs == nil {
			return false
		}
		for _, flag := range strings.Split(flagNames[field], "/") {
			if name := strings.TrimPrefix(flag, "--"); name != "" && fs.Changed(name) {
				return true
			}
		}
		return false
	}
}
