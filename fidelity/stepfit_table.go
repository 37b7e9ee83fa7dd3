package fidelity

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/thinkcap/thinkcap/calibrate"
	"github.com/thinkcap/thinkcap/profiles"
)

// WriteStepFitTables writes the catalog's step fits as markdown (the
// README's table, which `make docs` regenerates): each coefficient with
// the physical range the fit holds it to, per GPU generation, marked where
// no point of the generation exercises it, and what each generation's
// points span, the deployments that identify them.
func WriteStepFitTables(w io.Writer, cat *profiles.Catalog) {
	gens := fitOrder(cat.StepFits)
	header := []string{"coefficient", "range", "exercised by"}
	for _, g := range gens {
		header = append(header, g)
	}
	var rows [][]string
	for _, f := range profiles.StepFields {
		id := identifierOf(f.Key)
		row := []string{"`" + f.Key + "`", rangeOf(f), id.what}
		switch {
		case f.Fit == profiles.FitNone:
			row[2] = "not fitted (the GPU profile's)"
		case slices.Contains(calibrate.DefaultHold, f.Key):
			row[2] = "held at the GPU profile's value"
		}
		for _, g := range gens {
			fit := cat.StepFits[g]
			v := *f.Value(&fit.Step)
			cell := "-"
			if v != 0 {
				cell = fmt.Sprintf("%.4g", v)
				if f.Fit != profiles.FitNone && id.by != nil && !id.by(cat, &fit) {
					cell += " †"
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	mdTable(w, header, rows)
	fmt.Fprintf(w, "\n† no point of the generation exercises it: the value is where the fit over every generation (or the profile) holds it, not a measurement of this generation; "+
		"-: unset, the coefficient it stands for applies. %s is fitted on every point, for a GPU whose generation has none.\n", profiles.FallbackGeneration)

	rows = nil
	for _, g := range gens {
		fit := cat.StepFits[g]
		span := spanOf(cat, &fit)
		var gpus []string
		for _, c := range fit.Coverage {
			gpus = append(gpus, fmt.Sprintf("%s (%d)", c.GPU, c.Points))
		}
		if len(gpus) == 0 {
			gpus = fit.GPUs
		}
		kernels := strings.Join(span.Kernels, ", ")
		if g == profiles.FallbackGeneration {
			kernels = "every generation's above"
		}
		tp := make([]string, len(span.TP))
		for i, n := range span.TP {
			tp[i] = fmt.Sprint(n)
		}
		rows = append(rows, []string{g, strings.Join(gpus, ", "), fmt.Sprint(fit.Points), fmt.Sprint(fit.Deployments),
			strings.Join(span.Families, ", "), strings.Join(span.Weights, ", "), kernels, strings.Join(tp, ", "), fmt.Sprint(span.MaxConcurrency),
			percent(fit.CVTPOT), percent(fit.CVFamilyTPOT), percent(fit.CVFamilyThroughput)})
	}
	mdTable(w, []string{"generation", "GPUs (points)", "points", "deployments", "model families", "weights", "GEMM kernels", "TP", "most in flight",
		"cv TPOT", "cv family TPOT", "cv family throughput"}, rows)
	fmt.Fprintln(w, "\ncv: each deployment predicted by coefficients fitted without it; cv family: without any deployment of its model family.")
}

// rangeOf is the physical range a fit holds the coefficient to
// (profiles/gpu.go argues each), "-" where none is declared.
func rangeOf(f profiles.StepField) string {
	if f.Max == 0 {
		return "-"
	}
	return fmt.Sprintf("%g–%g", f.Min, f.Max)
}

// fitOrder is the generations, the fallback last.
func fitOrder(fits map[string]profiles.StepFit) []string {
	var gens []string
	for _, g := range slices.Sorted(maps.Keys(fits)) {
		if g != profiles.FallbackGeneration {
			gens = append(gens, g)
		}
	}
	if _, ok := fits[profiles.FallbackGeneration]; ok {
		gens = append(gens, profiles.FallbackGeneration)
	}
	return gens
}

func percent(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// spanOf is what a fit's points span, every GPU together; the fallback's
// is every generation's.
func spanOf(cat *profiles.Catalog, fit *profiles.StepFit) profiles.Coverage {
	covs := fit.Coverage
	if fit.Generation == profiles.FallbackGeneration {
		covs = nil
		for _, g := range slices.Sorted(maps.Keys(cat.StepFits)) {
			covs = append(covs, cat.StepFits[g].Coverage...)
		}
	}
	return profiles.Union(covs)
}

// identifier says which points exercise a coefficient, and whether a
// fit's points hold any (by nil: every point does, or the coverage cannot
// tell).
type identifier struct {
	what string
	by   func(cat *profiles.Catalog, fit *profiles.StepFit) bool
}

// identifierOf is the points that exercise the coefficient key, by the
// part of the step it prices (sim/stepmodel.go).
func identifierOf(key string) identifier {
	moe := func(cat *profiles.Catalog, fit *profiles.StepFit) bool {
		return slices.Contains(spanOf(cat, fit).Architectures, "moe")
	}
	weights := func(w string) func(*profiles.Catalog, *profiles.StepFit) bool {
		return func(cat *profiles.Catalog, fit *profiles.StepFit) bool {
			return moe(cat, fit) && slices.Contains(spanOf(cat, fit).Weights, w)
		}
	}
	// A fit written before the coverage named families cannot tell.
	family := func(fams ...string) func(*profiles.Catalog, *profiles.StepFit) bool {
		return func(cat *profiles.Catalog, fit *profiles.StepFit) bool {
			have := spanOf(cat, fit).Families
			return len(have) == 0 || slices.ContainsFunc(fams, func(f string) bool { return slices.Contains(have, f) })
		}
	}
	tp := func(viaHost bool) func(*profiles.Catalog, *profiles.StepFit) bool {
		return func(cat *profiles.Catalog, fit *profiles.StepFit) bool {
			covs := fit.Coverage
			if fit.Generation == profiles.FallbackGeneration {
				covs = nil
				for _, g := range cat.StepFits {
					covs = append(covs, g.Coverage...)
				}
			}
			for _, c := range covs {
				g, err := cat.GPU(c.GPU)
				if err == nil && g.AllReduceViaHost == viaHost && slices.ContainsFunc(c.TP, func(n int) bool { return n > 1 }) {
					return true
				}
			}
			return false
		}
	}
	switch {
	case strings.HasPrefix(key, "fp8_expert_"):
		return identifier{"MoE with FP8 weights", weights("fp8")}
	case strings.HasPrefix(key, "int4_expert_"):
		return identifier{"MoE with int4 experts", weights("int4 experts")}
	case strings.HasPrefix(key, "expert_"), key == "moe_layer_overhead_us":
		return identifier{"MoE", moe}
	case key == "mla_layer_overhead_us":
		return identifier{"MLA (DeepSeek V3, Kimi K2)", family("deepseek-v3", "kimi-k2")}
	case strings.HasPrefix(key, "host_"):
		return identifier{"TP > 1 without GPU peer-to-peer (PCIe)", tp(true)}
	case key == "interconnect_efficiency", key == "all_reduce_latency_us":
		return identifier{"TP > 1 over NVLink", tp(false)}
	case key == "network_efficiency":
		return identifier{"a replica across servers", nil}
	case key == "triton_attention_compute_efficiency":
		return identifier{"attention sinks (gpt-oss) before Hopper", func(cat *profiles.Catalog, fit *profiles.StepFit) bool {
			return family("gpt-oss")(cat, fit) && fit.Generation != "hopper" && fit.Generation != "blackwell"
		}}
	case key == "api_server_harmony_cpu_ms":
		return identifier{"gpt-oss (the harmony format)", family("gpt-oss")}
	case key == "block_fp8_compute_efficiency":
		return identifier{"block-quantized FP8 weights", nil}
	case strings.HasPrefix(key, "api_"):
		return identifier{"TTFT through the API server", nil}
	}
	return identifier{"every point", nil}
}
