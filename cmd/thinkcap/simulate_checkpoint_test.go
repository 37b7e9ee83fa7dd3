package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSimulateQuantizedCheckpoint: a quantized checkpoint's id runs its base
// model with the format its name says, and the table says so in one line
// (the JSON in config.checkpoint); a --quantization that contradicts the id,
// or a format thinkcap does not model, is bad input naming the flag.
func TestSimulateQuantizedCheckpoint(t *testing.T) {
	run := []string{"simulate", "--requests", "20", "--rate", "1", "--seeds", "1", "--model", "Qwen/Qwen3-8B-AWQ"}
	out, errOut, code := thinkcap(t, run...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if want := "model: Qwen/Qwen3-8B-AWQ resolved to qwen3-8b with awq weights ("; strings.Count(out, want) != 1 {
		t.Errorf("the table does not say once %q:\n%s", want, out)
	}
	out, errOut, code = thinkcap(t, append(run, "-o", "json")...)
	var s struct {
		Config struct{ Model, Checkpoint string }
	}
	if code != exitOK || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("-o json: exit %d\n%s", code, errOut)
	}
	if s.Config.Model != "qwen3-8b" || !strings.Contains(s.Config.Checkpoint, "with awq weights") {
		t.Errorf("config %+v; want qwen3-8b resolved with awq weights", s.Config)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(run, "--quantization", "fp8"), "--quantization fp8 contradicts --model Qwen/Qwen3-8B-AWQ"},
		{[]string{"simulate", "--requests", "20", "--model", "Qwen/Qwen3-8B-GPTQ-Int8"}, "--model: model \"Qwen/Qwen3-8B-GPTQ-Int8\" is a checkpoint of qwen3-8b with GPTQ INT8 weights"},
	} {
		_, errOut, code := thinkcap(t, c.args...)
		if code != exitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, exitBadInput, c.want)
		}
	}
}
