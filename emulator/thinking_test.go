package emulator

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/thinkcap/thinkcap/loadgen/vllmapi"
	"github.com/thinkcap/thinkcap/profiles"
	"github.com/thinkcap/thinkcap/workload"
)

// effortClasses is a profile with a class that does not think (the
// largest share, as in the default profile) and three effort classes that
// do, of increasing thinking.
func effortClasses(t testing.TB) []workload.Class {
	t.Helper()
	d := func(spec string) workload.Dist {
		x, err := workload.ParseDist(spec)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	return []workload.Class{
		{Name: "chat", Share: 0.7, Prompt: d("100"), Think: workload.Constant(0), Answer: d("uniform:50..150")},
		{Name: "low", Mode: "low", Share: 0.1, Prompt: d("100"), Think: d("uniform:0..400"), Answer: d("100")},
		{Name: "medium", Mode: "medium", Share: 0.1, Prompt: d("100"), Think: d("lognormal:p50=800,p99=3000,max=4000"), Answer: d("100")},
		{Name: "high", Mode: "high", Share: 0.1, Prompt: d("100"), Think: d("lognormal:p50=3000,p99=12000,max=16000"), Answer: d("100")},
	}
}

// TestClassSamplerModes: over 400 seeded draws per mode, thinking off never
// thinks, thinking on always does (even though the class that does not
// think has the largest share), and more effort draws more thinking.
func TestClassSamplerModes(t *testing.T) {
	const n = 400
	s, err := NewClassSampler(effortClasses(t), 11)
	if err != nil {
		t.Fatal(err)
	}
	type stat struct{ thinking, mean float64 }
	draw := func(m Thinking) stat {
		var st stat
		for range n {
			think, _ := s.Draw(m)
			if think > 0 {
				st.thinking++
			}
			st.mean += float64(think)
		}
		return stat{st.thinking / n, st.mean / n}
	}
	off, on := draw(Thinking{}), draw(Thinking{On: true})
	if off.thinking != 0 {
		t.Errorf("thinking off: %.3f of draws think, want 0", off.thinking)
	}
	if on.thinking < 0.99 {
		t.Errorf("thinking on: %.3f of draws think, want >= 0.99", on.thinking)
	}
	var means []float64
	for _, e := range []string{"minimal", "low", "medium", "high", "max"} {
		st := draw(Thinking{On: true, Effort: e})
		if st.thinking < 0.99 {
			t.Errorf("effort %s: %.3f of draws think, want >= 0.99", e, st.thinking)
		}
		means = append(means, st.mean)
	}
	// minimal and max have no class: the nearest effort's (low, high).
	if !(means[1] < means[2] && means[2] < means[3]) || means[0] > 1.2*means[1] || means[4] < 0.8*means[3] {
		t.Errorf("mean thinking by effort minimal..max %.0f, want low < medium < high and minimal ≈ low, max ≈ high", means)
	}
	t.Logf("thinking on: mean %.0f; by effort minimal..max: %.0f", on.mean, means)
}

// TestClassSamplerDefaultProfile: the embedded default profile, whose low
// class does not think, still serves a thinking low-effort request a
// thinking draw (from the nearest thinking effort, medium).
func TestClassSamplerDefaultProfile(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cat.TrafficProfile("effort-modes")
	if err != nil {
		t.Fatal(err)
	}
	classes, err := workload.ClassesFromTraffic(tr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewClassSampler(classes, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Thinking{{On: true}, {On: true, Effort: "low"}, {On: true, Effort: "high"}} {
		for range 400 {
			if think, _ := s.Draw(m); think == 0 {
				t.Fatalf("%+v: a draw without thinking", m)
			}
		}
	}
	for range 400 {
		if think, answer := s.Draw(Thinking{}); think != 0 || answer == 0 || answer > 512 {
			t.Fatalf("thinking off: %d/%d, want the low class's answer alone", think, answer)
		}
	}
}

// TestThinkingRules sends each model's thinking controls through the HTTP
// handler, 100 requests a case, and counts the answers with reasoning: the
// request decides the mode within what the model can do.
func TestThinkingRules(t *testing.T) {
	cat, err := profiles.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	for _, tc := range []struct {
		model, body string
		want        float64 // fraction of answers with reasoning
	}{
		{"qwen3-8b", ``, 1},
		{"qwen3-8b", `,"chat_template_kwargs":{"enable_thinking":true}`, 1},
		{"qwen3-8b", `,"reasoning_effort":"medium"`, 1},
		{"qwen3-8b", `,"chat_template_kwargs":{"enable_thinking":false}`, 0},
		{"qwen3-8b", `,"reasoning_effort":"none"`, 0},
		// enable_thinking wins over reasoning_effort (vLLM #43401 sets it
		// only when unset).
		{"qwen3-8b", `,"reasoning_effort":"none","chat_template_kwargs":{"enable_thinking":true}`, 1},
		// R1 distills' template always opens <think>: off is ignored.
		{"deepseek-r1-distill-qwen-7b", `,"chat_template_kwargs":{"enable_thinking":false}`, 1},
		{"deepseek-r1-distill-qwen-7b", `,"reasoning_effort":"none"`, 1},
		// gpt-oss always has an analysis channel.
		{"gpt-oss-20b", `,"reasoning_effort":"none"`, 1},
		{"gpt-oss-20b", `,"reasoning_effort":"low"`, 1},
		// A model without reasoning never thinks.
		{"llama-3.1-8b", ``, 0},
		{"llama-3.1-8b", `,"chat_template_kwargs":{"enable_thinking":true}`, 0},
	} {
		t.Run(tc.model+tc.body, func(t *testing.T) {
			model, err := cat.Model(tc.model)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewClassSampler(effortClasses(t), 5)
			if err != nil {
				t.Fatal(err)
			}
			srv, url := startServer(t, func(c *Config) {
				c.Sim.Model = model
				c.TimeScale = 1e5
				c.Traffic = s.Draw
			})
			thinking := 0
			var mu sync.Mutex
			var wg sync.WaitGroup
			sem := make(chan struct{}, 8)
			for i := range n {
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					resp := post(t, url+vllmapi.PathChatCompletions, fmt.Sprintf(`{"model":%q,"messages":[{"role":"user","content":"q %d"}]%s}`, srv.ModelName(), i, tc.body))
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					var c vllmapi.ChatCompletion
					if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) != 1 {
						t.Errorf("%s %v", b, err)
						return
					}
					if r := c.Choices[0].Message.Reasoning; r != nil && *r != "" {
						mu.Lock()
						thinking++
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if got := float64(thinking) / n; got != tc.want {
				t.Errorf("%d of %d answers have reasoning, want a fraction of %g", thinking, n, tc.want)
			}
		})
	}
}

// TestForcedSplit: a length-forced request (what thinkcap loadtest sends)
// generates max_tokens, split as its vllm_xargs asks when it does, capped
// by thinking_token_budget, all answer when thinking is off, and otherwise
// in a thinking draw's proportion (never no thinking).
func TestForcedSplit(t *testing.T) {
	s, err := NewClassSampler(effortClasses(t), 9)
	if err != nil {
		t.Fatal(err)
	}
	_, url := startServer(t, func(c *Config) { c.TimeScale = 1e5; c.Traffic = s.Draw })
	forced := `"max_tokens":90,"min_tokens":90,"ignore_eos":true`
	for _, tc := range []struct {
		body          string
		think, answer int // -1: any positive number
	}{
		{`,"vllm_xargs":{"thinkcap_think_tokens":60}`, 60, 30},
		{`,"vllm_xargs":{"thinkcap_think_tokens":"60"}`, 60, 30},
		{`,"vllm_xargs":{"thinkcap_think_tokens":0}`, 0, 90},
		{`,"vllm_xargs":{"thinkcap_think_tokens":500}`, 90, 0},
		{`,"vllm_xargs":{"thinkcap_think_tokens":60},"thinking_token_budget":20`, 20, 70},
		{`,"vllm_xargs":{"thinkcap_think_tokens":60},"chat_template_kwargs":{"enable_thinking":false}`, 0, 90},
		{`,"chat_template_kwargs":{"enable_thinking":false}`, 0, 90},
		{``, -1, -1},
		{`,"reasoning_effort":"high"`, -1, -1},
	} {
		for i := range 20 {
			c, think, answer := postChat(t, url, fmt.Sprintf(`{"messages":[{"role":"user","content":"q %d"}],%s%s}`, i, forced, tc.body))
			ok := think+answer == 90 && c.Usage.CompletionTokens == 90
			if tc.think >= 0 {
				ok = ok && think == tc.think && answer == tc.answer
			} else {
				ok = ok && think > 0
			}
			if !ok {
				t.Fatalf("%s: think %d answer %d (usage %d), want %d/%d", tc.body, think, answer, c.Usage.CompletionTokens, tc.think, tc.answer)
			}
		}
	}
	for _, bad := range []string{`"vllm_xargs":{"thinkcap_think_tokens":-1}`, `"vllm_xargs":{"thinkcap_think_tokens":1.5}`, `"reasoning_effort":"extreme"`} {
		resp := post(t, url+vllmapi.PathChatCompletions, `{"messages":[{"role":"user","content":"q"}],`+bad+`}`)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if _, _, code, ok := vllmapi.ParseError(b); resp.StatusCode != 400 || !ok || code != 400 {
			t.Errorf("%s: status %d %s, want vLLM's 400", bad, resp.StatusCode, b)
		}
	}
}
