package profiles

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validGPUYAML = `gpus:
  - name: my-gpu
    memory_gib: 10
    memory_bandwidth_gbps: 100
    bf16_tflops: 10
    interconnect_gbps: 64
    step:
      weight_bandwidth_efficiency: 0.5
      kv_bandwidth_efficiency: 0.5
      fp8_kv_read_penalty: 1
      compute_efficiency: 0.5
      attention_compute_efficiency: 0.5
      interconnect_efficiency: 0.5
`

// h100Override redefines the embedded h100-sxm with a cheaper price.
const h100Override = `gpus:
  - name: h100-sxm
    memory_gib: 79.19
    memory_bandwidth_gbps: 3350
    bf16_tflops: 989.5
    fp8_tflops: 1979
    interconnect_gbps: 900
    price_per_hour: 1.50
    step:
      weight_bandwidth_efficiency: 0.9
      kv_bandwidth_efficiency: 0.9
      fp8_kv_read_penalty: 1.08
      compute_efficiency: 0.6
      attention_compute_efficiency: 0.45
      step_overhead_ms: 1
      interconnect_efficiency: 0.7
`

const trafficYAML = `traffic:
  - name: chat
    classes:
      - name: all
        share: 1
        prompt_tokens: "400"
        think_tokens: "0"
        answer_tokens: "200"
`

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadPathOverridesEmbeddedGPU(t *testing.T) {
	c := embeddedCatalog(t)
	embedded := len(c.GPUs)
	p := writeFile(t, t.TempDir(), "cluster.yaml", h100Override)
	if err := c.LoadPath(p); err != nil {
		t.Fatal(err)
	}
	g, err := c.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	if g.PricePerHour != 1.50 {
		t.Errorf("price = %v, want the user's 1.50", g.PricePerHour)
	}
	if len(c.GPUs) != embedded {
		t.Errorf("%d GPUs after overriding one, want the %d embedded", len(c.GPUs), embedded)
	}
	if fresh := embeddedCatalog(t); fresh.GPUs["h100-sxm"].PricePerHour != 2.99 {
		t.Error("a user file changed the embedded profiles")
	}
}

func TestLoadPathReplacesCaseInsensitively(t *testing.T) {
	c := embeddedCatalog(t)
	if err := c.LoadYAML("u.yaml", []byte(strings.Replace(h100Override, "h100-sxm", "H100-SXM", 1))); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.GPUs["h100-sxm"]; ok {
		t.Error("old h100-sxm kept next to H100-SXM")
	}
	if g, err := c.GPU("h100-sxm"); err != nil || g.PricePerHour != 1.50 {
		t.Errorf("GPU(h100-sxm) = %v, %v; want the user's", g.PricePerHour, err)
	}
}

func TestLoadPathDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a-gpu.yaml", validGPUYAML)
	writeFile(t, dir, "b-traffic.yml", trafficYAML)
	writeFile(t, dir, "notes.txt", "not yaml")
	writeFile(t, dir, ".hidden.yaml", "broken: [")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub"), "deeper.yaml", "broken: [")

	c := embeddedCatalog(t)
	if err := c.LoadPath(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GPU("my-gpu"); err != nil {
		t.Error(err)
	}
	if _, err := c.TrafficProfile("chat"); err != nil {
		t.Error(err)
	}
	if _, err := c.TrafficProfile("effort-modes"); err != nil {
		t.Error("embedded traffic lost:", err)
	}
}

func TestLoadMixedKindsInOneFile(t *testing.T) {
	var c Catalog
	doc := validGPUYAML + trafficYAML + "---\n" + `models:
  - name: tiny
    layers: 2
    hidden_size: 64
    num_heads: 4
    num_kv_heads: 2
    head_dim: 16
    intermediate_size: 128
    vocab_size: 1000
    total_params_b: 0.001
    active_params_b: 0.001
    max_model_len: 2048
    weight_dtype: bf16
`
	if err := c.LoadYAML("mixed.yaml", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	if len(c.GPUs) != 1 || len(c.Traffic) != 1 || len(c.Models) != 1 {
		t.Errorf("loaded %d gpus, %d traffic, %d models; want 1 each", len(c.GPUs), len(c.Traffic), len(c.Models))
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    []string // substrings of the error
	}{
		{"syntax error", "gpus:\n  - name: x\n    memory_gib: [1,\n", []string{"bad.yaml:3: did not find expected node content"}},
		{"type error", "models:\n  - name: q\n    layers: many\n", []string{"bad.yaml:3: ", "cannot unmarshal"}},
		{"unknown key", "gpus:\n  - name: x\n    memory_gb: 80\n", []string{`bad.yaml:3: unknown key "memory_gb" in a gpu`}},
		{"unknown step key", "gpus:\n  - name: x\n    step:\n      overhead_ms: 1\n", []string{`bad.yaml:4: unknown key "overhead_ms" in step coefficients`}},
		{"unknown top-level key", "gpu: []\n", []string{`bad.yaml:1: unknown key "gpu" in the top level`}},
		{"no profiles", "# nothing here\n", []string{"bad.yaml: no profiles"}},
		{"invalid entries name their lines", "gpus:\n  - name: nostep\n" +
			"    memory_gib: 1\n    memory_bandwidth_gbps: 1\n    bf16_tflops: 1\n    interconnect_gbps: 1\n" +
			"  - name: bad\n    memory_gib: -1\n",
			[]string{`bad.yaml:2: gpu "nostep": step.weight_bandwidth_efficiency must be in (0, 1], got 0`,
				`bad.yaml:7: gpu "bad": memory_gib must be > 0, got -1`}},
		{"duplicate name", validGPUYAML + "---\n" + validGPUYAML, []string{`bad.yaml:16: gpu "my-gpu" is already defined at bad.yaml:2`}},
		{"duplicate key", "gpus: []\ngpus: []\n", []string{`bad.yaml:2: mapping key "gpus" already defined at line 1`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "bad.yaml", tt.content)
			c := embeddedCatalog(t)
			gpus, models := len(c.GPUs), len(c.Models)
			err := c.LoadPath(p)
			if err == nil {
				t.Fatal("LoadPath succeeded, want an error")
			}
			msg := strings.ReplaceAll(err.Error(), filepath.Dir(p)+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != p {
				t.Errorf("error %v is not a *FileError for %s", err, p)
			}
			if len(c.GPUs) != gpus || len(c.Models) != models {
				t.Error("a failed load changed the catalog")
			}
		})
	}
}

func TestLoadPathMissing(t *testing.T) {
	var c Catalog
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if err := c.LoadPath(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("err = %v, want it to name %s", err, missing)
	}
	empty := t.TempDir()
	if err := c.LoadPath(empty); err == nil || !strings.Contains(err.Error(), "no *.yaml") {
		t.Errorf("empty directory: err = %v", err)
	}
}

// A failing file in a directory keeps the good files out too: loads are all
// or nothing, and every file's problems are reported together.
func TestLoadPathDirectoryAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", validGPUYAML)
	writeFile(t, dir, "b.yaml", "gpus:\n  - name: x\n    memory_gb: 80\n")
	writeFile(t, dir, "c.yaml", "traffic: [")
	var c Catalog
	err := c.LoadPath(dir)
	if err == nil {
		t.Fatal("want an error")
	}
	for _, w := range []string{"b.yaml:3:", "c.yaml:1:"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not name %s", err, w)
		}
	}
	if len(c.GPUs) != 0 {
		t.Error("a failed directory load added a.yaml's GPU")
	}
}

func TestDuplicateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", validGPUYAML)
	writeFile(t, dir, "b.yaml", validGPUYAML)
	var c Catalog
	err := c.LoadPath(dir)
	if err == nil || !strings.Contains(err.Error(), "already defined at "+filepath.Join(dir, "a.yaml")+":2") {
		t.Errorf("err = %v, want the first definition named", err)
	}
}

// FuzzLoadYAML checks that no input makes the loader panic, and that whatever
// it accepts is valid.
func FuzzLoadYAML(f *testing.F) {
	for _, seed := range []string{validGPUYAML, h100Override, trafficYAML, "gpus: [~]", "a: [", "", "---\n---\n",
		"gpus: &a [*a]", "models:\n  - name: q\n    layers: 1e400\n", "traffic:\n  - classes: [{share: .nan}]\n"} {
		f.Add([]byte(seed))
	}
	f.Add([]byte("model_error:\n  levels: [0.05, 0.5, 0.95]\n  metrics:\n    tpot:\n      - {points: 50, deployments: 5, q: [-0.3, 0, 0.3]}\n      - {generation: ampere, points: 50, deployments: 5, q: [-0.6, 0, 0.2]}\n"))
	for _, name := range []string{"data/gpus.yaml", "data/models.yaml", "data/traffic/effort-modes.yaml", "data/model-error.yaml"} {
		data, err := dataFS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Catalog
		if err := c.LoadYAML("fuzz.yaml", data); err != nil {
			if len(c.GPUs)+len(c.Models)+len(c.Traffic) != 0 || c.ModelError != nil {
				t.Fatal("failed load changed the catalog")
			}
			return
		}
		// A model error that loads gives ordered, finite bands anywhere.
		var metrics map[string][]ModelErrorCell
		if c.ModelError != nil {
			metrics = c.ModelError.Metrics
		}
		for metric := range metrics {
			for _, conf := range []float64{0.5, 0.9, 0.98} {
				lo, mid, hi, _, ok := c.ModelError.Band(metric, ErrorRegime{Concurrency: "2-32", Phase: "decode-heavy", Generation: "ampere"}, conf)
				if ok && !(lo <= mid && mid <= hi) || math.IsNaN(lo+mid+hi) || math.IsInf(lo+mid+hi, 0) {
					t.Fatalf("%s at %g: band [%g %g %g]", metric, conf, lo, mid, hi)
				}
			}
		}
		for _, g := range c.GPUs {
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range c.Models {
			if err := m.Validate(); err != nil {
				t.Fatal(err)
			}
		}
		for _, tr := range c.Traffic {
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}
