package loadgen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadMetadataRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "metadata.json")
	start := time.Date(2026, 9, 1, 12, 0, 0, 123456789, time.UTC)
	cc := &CacheConfig{
		NumGPUBlocks: 2375, BlockSize: 16, CacheDtype: "fp8", EnablePrefixCaching: true,
		GPUMemoryUtilization: 0.9, KVCacheSizeTokens: 38000, KVCacheMaxConcurrency: 9.28,
		Engine: "0", Engines: 2, Labels: map[string]string{"num_gpu_blocks": "2375", "block_size": "16"},
	}
	m := Metadata{
		ThinkcapVersion: "v1.2.3",
		Command:         []string{"thinkcap", "loadtest", "--warmup", "30s"},
		TargetURL:       "http://gpu:8000/v1",
		ServerVersion:   "thinkcap-emulator Qwen/Qwen3-8B time_scale=20",
		Model:           "Qwen/Qwen3-8B",
		MaxModelLen:     40960,
		CacheConfig:     cc,
		Start:           start,
		End:             start.Add(90 * time.Second),
		Scrape:          &ScrapeStats{Attempts: 60, Failures: 1, LastError: "scrape: http 500"},
		Options:         map[string]any{"warmup": "30s", "rate": 12.5, "stream": true},
	}
	if err := WriteMetadata(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.CacheConfig, cc) {
		t.Errorf("cache config %+v\nwant         %+v", got.CacheConfig, cc)
	}
	if got.MaxModelLen != 40960 || got.Model != m.Model || got.ServerVersion != m.ServerVersion ||
		got.TargetURL != m.TargetURL || got.ThinkcapVersion != "v1.2.3" {
		t.Errorf("got %+v", got)
	}
	if !reflect.DeepEqual(got.Command, m.Command) {
		t.Errorf("command %q", got.Command)
	}
	if !got.Start.Equal(start) || !got.End.Equal(m.End) {
		t.Errorf("start %v end %v", got.Start, got.End)
	}
	if got.Scrape == nil || *got.Scrape != *m.Scrape {
		t.Errorf("scrape %+v", got.Scrape)
	}
	// JSON numbers come back as float64.
	want := map[string]any{"warmup": "30s", "rate": 12.5, "stream": true}
	if !reflect.DeepEqual(got.Options, want) {
		t.Errorf("options %#v, want %#v", got.Options, want)
	}
	if w, ok := got.Options["warmup"].(string); !ok || w != "30s" {
		t.Errorf("warmup %#v", got.Options["warmup"])
	}
	if n, d, err := ParseWarmup(got.Options["warmup"].(string)); err != nil || n != 0 || d != 30*time.Second {
		t.Errorf("warmup parses to %d, %v, %v", n, d, err)
	}
	if s := EmulatorTimeScale(got.ServerVersion); s != 20 {
		t.Errorf("time scale %v", s)
	}

	// A minimal run: the optional parts stay nil.
	if err := WriteMetadata(path, Metadata{Model: "m", Start: start}); err != nil {
		t.Fatal(err)
	}
	got, err = ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.CacheConfig != nil || got.Scrape != nil || got.Options != nil || got.MaxModelLen != 0 || !got.End.IsZero() || got.Model != "m" {
		t.Errorf("minimal: %+v", got)
	}
}

func TestReadMetadataErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such", "metadata.json")
	if _, err := ReadMetadata(missing); err == nil || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	} else if !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: error %q does not name the path", err)
	}

	for _, c := range []struct{ name, body string }{
		{"truncated", `{"model": "m", "max_model_len": 4`},
		{"not json", "model: m\n"},
		{"wrong type", `{"max_model_len": "long"}`},
		{"empty", ""},
	} {
		path := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadMetadata(path)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %q does not name %s", c.name, err, path)
		}
	}
}

func TestEmulatorTimeScale(t *testing.T) {
	for _, c := range []struct {
		version string
		want    float64
	}{
		{"thinkcap-emulator Qwen/Qwen3-8B time_scale=20", 20},
		{"thinkcap-emulator m time_scale=2.5", 2.5},
		{"time_scale=0.5", 0.5},
		{"time_scale=1e+06", 1e6},
		{"time_scale=7 extra words", 7},
		{"0.11.0", 1},
		{"", 1},
		{"time_scale=abc", 1},
		{"time_scale=-3", 1},
		{"time_scale=0", 1},
		{"time_scale=", 1},
		{"time_scale=NaN", 1},
		{"time_scale=Inf", 1},
		{"time_scale=+Inf", 1},
		{"xtime_scale=20", 1},
		{"time_scale = 20", 1},
		// The first usable field wins.
		{"time_scale=abc time_scale=4", 4},
		{"time_scale=3 time_scale=4", 3},
	} {
		if got := EmulatorTimeScale(c.version); got != c.want {
			t.Errorf("EmulatorTimeScale(%q) = %v, want %v", c.version, got, c.want)
		}
	}
}

func TestParseWarmup(t *testing.T) {
	for _, c := range []struct {
		in string
		n  int
		d  time.Duration
	}{
		{"100", 100, 0},
		{"0", 0, 0},
		{"30s", 0, 30 * time.Second},
		{"1m30s", 0, 90 * time.Second},
		{"500ms", 0, 500 * time.Millisecond},
		{"0s", 0, 0},
	} {
		n, d, err := ParseWarmup(c.in)
		if err != nil || n != c.n || d != c.d {
			t.Errorf("ParseWarmup(%q) = %d, %v, %v; want %d, %v", c.in, n, d, err, c.n, c.d)
		}
	}
	for _, in := range []string{"-1", "abc", "", "-5s", "10x", "1.5", "30 s"} {
		n, d, err := ParseWarmup(in)
		if err == nil {
			t.Errorf("ParseWarmup(%q) = %d, %v: no error", in, n, d)
			continue
		}
		if n != 0 || d != 0 {
			t.Errorf("ParseWarmup(%q): %d, %v with the error", in, n, d)
		}
		if !strings.Contains(err.Error(), "100") || !strings.Contains(err.Error(), "30s") {
			t.Errorf("ParseWarmup(%q): error %q does not show the forms", in, err)
		}
	}
}
