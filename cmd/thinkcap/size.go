package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/size"
)

type sizeOptions struct {
	dep               deploymentFlags // the settings every candidate shares
	traffic           trafficFlags
	whatIf            whatIfFlags
	models            []string
	gpus              []string
	tp                []int
	kvDtypes          []string
	specs             string
	maxNumSeqs        []int
	slo               string
	maxPreemptionRate float64
	maxReplicas       int
	prices            []string
	output            string
	plotPath          string
}

// sizeVaried are the deployment flags size takes as lists (its own), and
// the route-pool flags it does not take: a sized pool is the one pool.
var sizeVaried = map[string]bool{
	"model": true, "gpu": true, "tensor-parallel-size": true, "kv-cache-dtype": true,
	"speculative-config": true, "max-num-seqs": true, "replicas": true, "router": true,
	"route": true, "route-model": true, "route-gpu": true, "route-tensor-parallel-size": true, "route-replicas": true,
}

func newSizeCmd() *cobra.Command {
	var o sizeOptions
	cmd := &cobra.Command{
		Use:   "size",
		Short: "Find the cheapest vLLM deployment that serves the traffic within the SLOs",
		Long: `size simulates every combination of the candidate lists (models × GPUs × TP
× KV cache dtype × speculative configs × max_num_seqs) on the traffic and finds
for each the fewest replicas that meet every SLO and the preemption limit, and
the maximum rate one replica sustains. It ranks the passing deployments by cost
per hour (GPUs × price) and shows FP8 KV and speculative variants against their
baselines. Exit status 1 when no candidate passes.`,
		Example: `  thinkcap size --slo ttft_p99=2s,tpot_p99=60ms --gpus h100-sxm,h200 --tp 1,2 --kv-cache-dtype auto,fp8
  thinkcap size --workload requests.jsonl --rate 4 --model qwen3-14b,qwen3-32b --slo ttfa_p99=30s,e2e_p99=120s \
      --speculative-config 'off,{"method":"eagle3","model":"RedHatAI/Qwen3-14B-speculator.eagle3","num_speculative_tokens":3}' --price h100-sxm=2.5 -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSize(cmd, &o) },
	}
	fs := cmd.Flags()
	// The shared deployment and what-if flags, less those size varies.
	shared := pflag.NewFlagSet("shared", pflag.ContinueOnError)
	o.dep.register(shared)
	o.whatIf.register(shared)
	shared.VisitAll(func(f *pflag.Flag) {
		if !sizeVaried[f.Name] {
			fs.AddFlag(f)
		}
	})
	o.traffic.register(fs)
	fs.StringSliceVar(&o.models, "model", []string{"qwen3-8b"}, "model profiles or Hugging Face ids to try (a list)")
	fs.StringSliceVar(&o.gpus, "gpus", []string{"h100-sxm"}, "GPU profiles to try, e.g. h100-sxm,h200,b200")
	fs.IntSliceVar(&o.tp, "tp", []int{1}, "tensor-parallel sizes to try, e.g. 1,2,4,8")
	fs.StringSliceVar(&o.kvDtypes, "kv-cache-dtype", []string{"auto"}, "KV cache dtypes to try, e.g. auto,fp8")
	fs.StringVar(&o.specs, "speculative-config", "off", `speculative configs to try: off or vLLM's JSON, comma-separated, e.g. 'off,{"method":"eagle3","model":"RedHatAI/Qwen3-14B-speculator.eagle3","num_speculative_tokens":3}'`)
	fs.IntSliceVar(&o.maxNumSeqs, "max-num-seqs", nil, "max_num_seqs values to try (default: vLLM's for each GPU)")
	fs.StringVar(&o.slo, "slo", "", "latency SLOs, e.g. ttft_p99=2s,ttfa_p99=30s,e2e_p99=120s,tpot_p99=60ms (metrics ttft, ttfa, tpot, e2e; stats mean, p50, p90, p99)")
	fs.Float64Var(&o.maxPreemptionRate, "max-preemption-rate", 0, "preemptions per request allowed (0: none under peak load)")
	fs.IntVar(&o.maxReplicas, "max-replicas", size.DefaultMaxReplicas, "most replicas to try per candidate")
	fs.StringSliceVar(&o.prices, "price", nil, "USD per GPU-hour over the profiles', e.g. h100-sxm=2.5,h200=3.2")
	fs.StringVarP(&o.output, "output", "o", "table", "table or json")
	fs.StringVar(&o.plotPath, "plot", "", "write the capacity curves (first SLO against rate per replica) as PNG to this file")
	return cmd
}

func runSize(cmd *cobra.Command, o *sizeOptions) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	if o.traffic.concurrency != 0 {
		return badInput(errors.New("--concurrency: size searches open-loop traffic, give a rate"))
	}
	// Every flag before any work; size's own lists are checked by
	// size.Space.Validate, its --speculative-config list in space.
	if err := errors.Join(o.dep.checkValues(), o.traffic.validate(), o.whatIf.validate()); err != nil {
		return badInput(err)
	}
	if o.maxReplicas < 1 { // size.Options takes 0 for its default
		return badInput(fmt.Errorf("--max-replicas must be at least 1, got %d", o.maxReplicas))
	}
	slos, err := size.ParseSLOs(o.slo)
	if err != nil {
		return badInput(fmt.Errorf("--slo: %w", err))
	}
	prices, err := parsePrices(o.prices)
	if err != nil {
		return badInput(err)
	}
	opts := size.Options{SLOs: slos, MaxPreemptionRate: o.maxPreemptionRate, MaxReplicas: o.maxReplicas, Prices: prices}
	if err := opts.Validate(); err != nil {
		return badInput(err)
	}
	cat, err := o.dep.catalog()
	if err != nil {
		return err
	}
	space, err := o.space(cat)
	if err != nil {
		return err
	}
	cands, err := space.Candidates()
	if err != nil {
		return badInput(err)
	}
	reqs, err := o.traffic.load(cat, o.dep.seed, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if reqs, _, err = o.whatIf.apply(reqs, o.dep.seed); err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), "sizing")
	if bar != nil {
		bar.unit = "candidates"
	}
	opts.Progress = bar.update
	res, err := size.Search(cands, reqs, opts)
	bar.done()
	if err != nil {
		return badInput(err)
	}
	if o.plotPath != "" {
		if err := writePlotFile(o.plotPath, res, slos[0]); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	if o.output == "json" {
		err = writeJSON(out, res)
	} else {
		err = size.WriteTable(out, res)
	}
	if err != nil {
		return err
	}
	if res.Best == nil {
		return errors.New("no candidate meets the SLOs")
	}
	return nil
}

// space turns the flags into the candidate grid.
func (o *sizeOptions) space(cat *profiles.Catalog) (size.Space, error) {
	var errs []error
	s := size.Space{TP: o.tp, KVCacheDtypes: o.kvDtypes, MaxNumSeqs: o.maxNumSeqs}
	for _, name := range o.models {
		m, err := cat.Model(strings.TrimSpace(name))
		if err != nil {
			errs = append(errs, fmt.Errorf("--model: %w", err))
			continue
		}
		s.Models = append(s.Models, m)
	}
	for _, name := range o.gpus {
		g, err := cat.GPU(strings.TrimSpace(name))
		if err != nil {
			errs = append(errs, fmt.Errorf("--gpus: %w", err))
			continue
		}
		s.GPUs = append(s.GPUs, g)
	}
	for _, spec := range splitOutsideBraces(o.specs) {
		sp, err := o.speculative(cat, spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		s.Speculative = append(s.Speculative, sp)
	}
	if o.dep.stepModel != "" {
		override, err := profiles.LoadStepCoefficients(o.dep.stepModel)
		if err != nil {
			errs = append(errs, fmt.Errorf("--step-model: %w", err))
		}
		s.StepOverride = override
	}
	d := &o.dep
	s.Base = sim.Config{
		Quantization: d.quantization, GPUMemoryUtilization: d.gpuMemUtil,
		MaxNumBatchedTokens: d.maxBatched, MaxModelLen: d.maxModelLen, BlockSize: d.blockSize,
		DisablePrefixCaching: !d.prefixCache, NumGPUBlocksOverride: d.blocks, KVCacheMemoryBytes: d.kvMemBytes,
		SchedulingPolicy: d.policy, LongPrefillTokenThreshold: d.longPrefill, Seed: d.seed,
	}
	if err := s.Validate(); err != nil {
		errs = append(errs, err)
	}
	return s, badInput(errors.Join(errs...))
}

// speculative parses one --speculative-config entry with --acceptance (or
// the method's default acceptance) and, for draft_model, the drafter.
func (o *sizeOptions) speculative(cat *profiles.Catalog, spec string) (size.Speculative, error) {
	sc, err := sim.ParseSpeculativeConfig(spec)
	if err != nil || sc == nil {
		return size.Speculative{}, err
	}
	if o.dep.acceptance != "" {
		if sc.AcceptanceRates, err = sim.ParseAcceptance(o.dep.acceptance, sc.NumSpeculativeTokens); err != nil {
			return size.Speculative{}, fmt.Errorf("--acceptance: %w", err)
		}
	} else {
		sc.AcceptanceRates = sim.DefaultAcceptance(sc.Method, sc.NumSpeculativeTokens)
	}
	sp := size.Speculative{Config: sc}
	if sc.Method == "draft_model" {
		draft, err := cat.Model(sc.Model)
		if err != nil {
			return sp, fmt.Errorf("--speculative-config: draft model: %w", err)
		}
		sp.DraftModel = &draft
	}
	return sp, nil
}

// splitOutsideBraces splits a list on the commas that are not inside a JSON
// object, so 'off,{"method":"ngram","num_speculative_tokens":3}' is two.
func splitOutsideBraces(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// parsePrices reads --price gpu=usd entries.
func parsePrices(items []string) (map[string]float64, error) {
	prices := map[string]float64{}
	var errs []error
	for _, item := range items {
		gpu, v, ok := strings.Cut(item, "=")
		p, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil || math.IsNaN(p) || math.IsInf(p, 0) || p <= 0 {
			errs = append(errs, fmt.Errorf("--price: %q: want gpu=USD per GPU-hour, e.g. h100-sxm=2.5", item))
			continue
		}
		prices[strings.TrimSpace(gpu)] = p
	}
	return prices, errors.Join(errs...)
}

func writePlotFile(path string, res *size.Result, slo size.SLO) error {
	f, err := os.Create(path)
	if err != nil {
		return badInput(fmt.Errorf("--plot: %w", err))
	}
	if err := size.WritePlot(f, res, slo); err != nil {
		f.Close()
		return fmt.Errorf("--plot: %w", err)
	}
	return f.Close()
}
