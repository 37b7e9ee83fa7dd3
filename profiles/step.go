package profiles

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// StepField is one coefficient of StepCoefficients: its YAML key and where
// it lives, so that code which treats every coefficient alike (Merge,
// calibration) does not list them again.
type StepField struct {
	Key   string
	Value func(*StepCoefficients) *float64
}

// StepFields lists the coefficients in the struct's order.
var StepFields = []StepField{
	{"weight_bandwidth_efficiency", func(s *StepCoefficients) *float64 { return &s.WeightBandwidthEfficiency }},
	{"kv_bandwidth_efficiency", func(s *StepCoefficients) *float64 { return &s.KVBandwidthEfficiency }},
	{"fp8_kv_read_penalty", func(s *StepCoefficients) *float64 { return &s.FP8KVReadPenalty }},
	{"compute_efficiency", func(s *StepCoefficients) *float64 { return &s.ComputeEfficiency }},
	{"attention_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.AttentionComputeEfficiency }},
	{"triton_attention_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.TritonAttentionComputeEfficiency }},
	{"block_fp8_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.BlockFP8ComputeEfficiency }},
	{"step_overhead_ms", func(s *StepCoefficients) *float64 { return &s.StepOverheadMs }},
	{"per_request_overhead_us", func(s *StepCoefficients) *float64 { return &s.PerRequestOverheadUs }},
	{"per_request_gpu_us", func(s *StepCoefficients) *float64 { return &s.PerRequestGPUUs }},
	{"interconnect_efficiency", func(s *StepCoefficients) *float64 { return &s.InterconnectEfficiency }},
	{"host_all_reduce_efficiency", func(s *StepCoefficients) *float64 { return &s.HostAllReduceEfficiency }},
	{"network_efficiency", func(s *StepCoefficients) *float64 { return &s.NetworkEfficiency }},
	{"all_reduce_latency_us", func(s *StepCoefficients) *float64 { return &s.AllReduceLatencyUs }},
	{"host_all_reduce_latency_us", func(s *StepCoefficients) *float64 { return &s.HostAllReduceLatencyUs }},
	{"host_small_all_reduce_efficiency", func(s *StepCoefficients) *float64 { return &s.HostSmallAllReduceEfficiency }},
	{"host_small_all_reduce_latency_us", func(s *StepCoefficients) *float64 { return &s.HostSmallAllReduceLatencyUs }},
	{"per_layer_overhead_us", func(s *StepCoefficients) *float64 { return &s.PerLayerOverheadUs }},
	{"moe_layer_overhead_us", func(s *StepCoefficients) *float64 { return &s.MoELayerOverheadUs }},
	{"mla_layer_overhead_us", func(s *StepCoefficients) *float64 { return &s.MLALayerOverheadUs }},
	{"expert_bandwidth_efficiency", func(s *StepCoefficients) *float64 { return &s.ExpertBandwidthEfficiency }},
	{"expert_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.ExpertComputeEfficiency }},
	{"fp8_expert_bandwidth_efficiency", func(s *StepCoefficients) *float64 { return &s.FP8ExpertBandwidthEfficiency }},
	{"fp8_expert_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.FP8ExpertComputeEfficiency }},
	{"int4_expert_bandwidth_efficiency", func(s *StepCoefficients) *float64 { return &s.INT4ExpertBandwidthEfficiency }},
	{"int4_expert_compute_efficiency", func(s *StepCoefficients) *float64 { return &s.INT4ExpertComputeEfficiency }},
	{"activation_io_per_layer", func(s *StepCoefficients) *float64 { return &s.ActivationIOPerLayer }},
	{"api_request_overhead_ms", func(s *StepCoefficients) *float64 { return &s.APIRequestOverheadMs }},
	{"api_prompt_token_us", func(s *StepCoefficients) *float64 { return &s.APIPromptTokenUs }},
	{"api_server_cpu_ms", func(s *StepCoefficients) *float64 { return &s.APIServerCPUMs }},
	{"api_server_harmony_cpu_ms", func(s *StepCoefficients) *float64 { return &s.HarmonyAPIServerCPUMs }},
}

// Merge returns s with every non-zero field of override in place of its own.
// Zero means "not set" in an override (a --step-model file lists only the
// knobs it tunes), so an override cannot set a coefficient to exactly zero;
// a tiny positive value does the same job.
func (s StepCoefficients) Merge(override StepCoefficients) StepCoefficients {
	for _, f := range StepFields {
		if v := *f.Value(&override); v != 0 {
			*f.Value(&s) = v
		}
	}
	return s
}

// LoadStepCoefficients reads a --step-model file: a YAML mapping of
// StepCoefficients keys (weight_bandwidth_efficiency: 0.88, ...), any subset
// of them. Unknown keys and out-of-range values are errors naming file:line;
// keys left out are zero, which Merge treats as "keep the GPU's value".
func LoadStepCoefficients(path string) (StepCoefficients, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return StepCoefficients{}, err
	}
	return parseStepCoefficients(path, data)
}

func parseStepCoefficients(path string, data []byte) (StepCoefficients, error) {
	var s StepCoefficients
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return StepCoefficients{}, errors.Join(yamlErrors(path, err)...)
	}
	problems := s.problems(true, "")
	if len(problems) == 0 {
		return s, nil
	}
	// Point each problem at its key's line; the problems start with the key.
	var node yaml.Node
	_ = yaml.Unmarshal(data, &node) // parsed above; errors cannot differ
	keyLines := map[string]int{}
	if node.Kind == yaml.DocumentNode && len(node.Content) > 0 && node.Content[0].Kind == yaml.MappingNode {
		m := node.Content[0].Content
		for i := 0; i+1 < len(m); i += 2 {
			keyLines[m[i].Value] = m[i].Line
		}
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		fe := &FileError{Path: path, Err: p}
		for key, line := range keyLines {
			if strings.HasPrefix(p.Error(), key+" ") {
				fe.Line = line
			}
		}
		errs[i] = fe
	}
	return StepCoefficients{}, errors.Join(errs...)
}

// EncodeStepCoefficients writes s as a --step-model file (every key, in
// the struct's order) under a head comment, which LoadStepCoefficients
// reads back.
func EncodeStepCoefficients(s StepCoefficients, head string) ([]byte, error) {
	return EncodeYAML(s, head)
}
