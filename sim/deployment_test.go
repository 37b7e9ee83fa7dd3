package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/thinkcap/thinkcap/internal/simtest"
)

func TestDeploymentOptionsGivenZero(t *testing.T) {
	cat := simtest.Catalog(t)
	o := DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm"}
	// Not given, 0 is vLLM's default.
	cfg, err := o.Config(cat)
	if err != nil || cfg.MaxNumSeqs <= 0 || cfg.TensorParallelSize != 1 {
		t.Fatalf("defaults: max-num-seqs %d, tp %d, %v", cfg.MaxNumSeqs, cfg.TensorParallelSize, err)
	}
	// Given, 0 is refused as vLLM refuses it.
	o.Given = func(flag string) bool { return flag == "Engine.MaxNumSeqs" }
	if err := o.Validate(); err == nil || err.Error() != "--max-num-seqs must be at least 1, got 0" {
		t.Errorf("max-num-seqs 0 given: %v", err)
	}
	if _, err := o.Config(cat); err == nil {
		t.Error("Config took a refused value")
	}
}

func TestDeploymentOptionsConfigErrors(t *testing.T) {
	cat := simtest.Catalog(t)
	for _, tc := range []struct {
		name string
		o    DeploymentOptions
		want string
	}{
		{"model", DeploymentOptions{Model: "nope", GPU: "h100-sxm"}, "--model: "},
		{"gpu", DeploymentOptions{Model: "qwen3-8b", GPU: "nope"}, "--gpu: "},
		{"step model", DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", StepModel: "/nonexistent.yaml"}, "--step-model: "},
		{"acceptance alone", DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", Acceptance: "2"}, "--acceptance needs --speculative-config"},
		{"draft model", DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm",
			SpeculativeConfig: `{"method":"draft_model","model":"nope","num_speculative_tokens":2}`}, "--speculative-config: draft model: "},
	} {
		if _, err := tc.o.Config(cat); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	o := DeploymentOptions{Model: "qwen3-8b", GPU: "h100-sxm", SpeculativeConfig: `{"method":"draft_model","model":"qwen3-0.6b","num_speculative_tokens":2}`}
	cfg, err := o.Config(cat)
	if err != nil || cfg.DraftModel == nil || cfg.DraftModel.Name != "qwen3-0.6b" || len(cfg.Speculative.AcceptanceRates) != 2 {
		t.Errorf("draft model config %+v, %v", cfg.DraftModel, err)
	}
}

// TestDeploymentOptionsAsyncContradiction: --async-scheduling and
// --no-async-scheduling, each asked by its field, are refused together.
func TestDeploymentOptionsAsyncContradiction(t *testing.T) {
	for _, tc := range []struct {
		given []string
		want  string
	}{
		{[]string{"Engine.AsyncScheduling"}, ""},
		{[]string{"Engine.NoAsyncScheduling"}, ""},
		{[]string{"Engine.AsyncScheduling", "Engine.NoAsyncScheduling"}, "--async-scheduling and --no-async-scheduling contradict each other: give one"},
	} {
		o := DeploymentOptions{Given: func(field string) bool { return slices.Contains(tc.given, field) }}
		err := o.CheckValues()
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%v given: %v, want %q", tc.given, err, tc.want)
		}
	}
}
