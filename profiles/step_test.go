package profiles

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMerge(t *testing.T) {
	base := validStep()
	tests := []struct {
		name     string
		override StepCoefficients
		want     StepCoefficients
	}{
		{"empty override keeps everything", StepCoefficients{}, base},
		{"set fields win", StepCoefficients{StepOverheadMs: 2.5, KVBandwidthEfficiency: 0.5}, func() StepCoefficients {
			s := base
			s.StepOverheadMs, s.KVBandwidthEfficiency = 2.5, 0.5
			return s
		}()},
		{"full override replaces all", StepCoefficients{
			WeightBandwidthEfficiency: 0.1, KVBandwidthEfficiency: 0.2, FP8KVReadPenalty: 0.3, ComputeEfficiency: 0.4,
			AttentionComputeEfficiency: 0.5, StepOverheadMs: 0.6, PerRequestOverheadUs: 0.7,
			InterconnectEfficiency: 0.8, AllReduceLatencyUs: 0.9,
		}, StepCoefficients{
			WeightBandwidthEfficiency: 0.1, KVBandwidthEfficiency: 0.2, FP8KVReadPenalty: 0.3, ComputeEfficiency: 0.4,
			AttentionComputeEfficiency: 0.5, StepOverheadMs: 0.6, PerRequestOverheadUs: 0.7,
			InterconnectEfficiency: 0.8, AllReduceLatencyUs: 0.9,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := base.Merge(tt.override); got != tt.want {
				t.Errorf("Merge = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestLoadStepCoefficients(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    StepCoefficients
		errs    []string
	}{
		{"subset", "step_overhead_ms: 1.4\nkv_bandwidth_efficiency: 0.8\n",
			StepCoefficients{StepOverheadMs: 1.4, KVBandwidthEfficiency: 0.8}, nil},
		{"empty file", "# nothing tuned yet\n", StepCoefficients{}, nil},
		{"unknown key", "step_overhead: 1\n", StepCoefficients{}, []string{`step.yaml:1: unknown key "step_overhead" in step coefficients`}},
		{"syntax error", "a: [\n", StepCoefficients{}, []string{"step.yaml:1: "}},
		{"out of range names the line", "step_overhead_ms: 1\ncompute_efficiency: 1.5\nall_reduce_latency_us: -2\n",
			StepCoefficients{}, []string{
				"step.yaml:2: compute_efficiency must be in (0, 1], got 1.5",
				"step.yaml:3: all_reduce_latency_us must be >= 0, got -2",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, "step.yaml", tt.content)
			got, err := LoadStepCoefficients(p)
			if len(tt.errs) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if got != tt.want {
					t.Errorf("got %+v, want %+v", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatal("want an error")
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.errs {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Errorf("error %v is not a *FileError", err)
			}
		})
	}
	if _, err := LoadStepCoefficients(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Error("missing file: want an error")
	}
}

func FuzzLoadStepCoefficients(f *testing.F) {
	for _, seed := range []string{"step_overhead_ms: 1.4\n", "compute_efficiency: 2\n", "a: [", ""} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseStepCoefficients("fuzz.yaml", data)
		if err != nil {
			return
		}
		if p := s.problems(true, ""); len(p) > 0 {
			t.Fatalf("accepted invalid coefficients: %v", p)
		}
	})
}

// TestStepFieldsCoverTheStruct: StepFields names every coefficient by its
// YAML key, each pointing at its own field, so Merge and calibration see
// all of them.
func TestStepFieldsCoverTheStruct(t *testing.T) {
	var s StepCoefficients
	if n := reflect.TypeOf(s).NumField(); len(StepFields) != n {
		t.Fatalf("%d step fields, StepCoefficients has %d", len(StepFields), n)
	}
	for i, f := range StepFields {
		*f.Value(&s) = float64(i + 1)
	}
	v := reflect.ValueOf(s)
	for i, f := range StepFields {
		field := reflect.TypeOf(s).Field(i)
		if tag, _, _ := strings.Cut(field.Tag.Get("yaml"), ","); tag != f.Key || v.Field(i).Float() != float64(i+1) {
			t.Errorf("step field %d: key %q value %v, struct field %s (yaml %q) = %v", i, f.Key, float64(i+1), field.Name, tag, v.Field(i).Float())
		}
	}
}

// TestFittedCoefficientsHaveRanges: every coefficient a fit moves declares
// its physical range (range=), inside what its kind allows, and a parent
// is a fitted coefficient of the same kind.
func TestFittedCoefficientsHaveRanges(t *testing.T) {
	keys := map[string]StepField{}
	for _, f := range StepFields {
		keys[f.Key] = f
	}
	for _, f := range StepFields {
		if f.Fit == FitNone {
			continue
		}
		if f.Max <= f.Min {
			t.Errorf("%s: fitted without a physical range (coef tag range=LO:HI)", f.Key)
		}
		if f.Lower() > f.Upper() {
			t.Errorf("%s: the fit's bounds [%v, %v] are empty", f.Key, f.Lower(), f.Upper())
		}
		if f.Parent != "" {
			p, ok := keys[f.Parent]
			if !ok || p.Fit == FitNone || p.Kind != f.Kind {
				t.Errorf("%s: parent %q is not a fitted %s", f.Key, f.Parent, f.Kind)
			}
		}
	}
}
