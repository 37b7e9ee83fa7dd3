package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thinkcap/thinkcap/emulator"
	"github.com/thinkcap/thinkcap/internal/simtest"
	"github.com/thinkcap/thinkcap/internal/vllmtest"
	"github.com/thinkcap/thinkcap/sim"
	"github.com/thinkcap/thinkcap/workload"
)

// recordingEmulator is thinkcap serve on loopback that keeps the bodies of
// the chat requests it receives.
func recordingEmulator(t *testing.T) (string, func() []chatBody) {
	t.Helper()
	model, gpu := simtest.Model(t, "qwen3-8b"), simtest.GPU(t, "h100-sxm")
	emu, err := emulator.New(emulator.Config{Sim: sim.Config{Model: model, GPU: gpu}, TimeScale: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	go func() { _ = emu.Run(ctx) }()
	var mu sync.Mutex
	var bodies []chatBody
	// Registered first so that it runs last, after Tap closes its server.
	t.Cleanup(func() {
		emu.Close()
		cancel()
	})
	srv := vllmtest.Tap(t, emu.Handler(), func(_ http.ResponseWriter, _ *http.Request, chat []byte) bool {
		var cb chatBody
		if chat != nil && json.Unmarshal(chat, &cb) == nil {
			mu.Lock()
			bodies = append(bodies, cb)
			mu.Unlock()
		}
		return true
	})
	return srv.URL, func() []chatBody {
		mu.Lock()
		defer mu.Unlock()
		return append([]chatBody(nil), bodies...)
	}
}

type chatBody struct {
	Messages []struct{ Role, Content string } `json:"messages"`
}

// TestLoadtestSessions: a load test replays sessions turn by turn, each
// turn sent after the previous answer with the history its --history policy
// keeps (checked on the bodies the emulator received): the earlier prompts
// and answers under strip-traces, the thinking inline too under
// keep-traces; the records carry session and turn, and the server counts
// the history in the later turns' prompts.
func TestLoadtestSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("drives an emulated server")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "sessions.jsonl")
	var lines []string
	for s := range 2 {
		for turn := 1; turn <= 3; turn++ {
			r := workload.Request{ID: "s" + string(rune('a'+s)) + "-" + string(rune('0'+turn)), ArrivalS: float64(s) * 0.1,
				PromptTokens: 60, ThinkTokens: 40, AnswerTokens: 20, SessionID: "s" + string(rune('a'+s)), Turn: turn, ThinkTimeS: 0.05}
			b, _ := json.Marshal(r)
			lines = append(lines, string(b))
		}
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"strip-traces", "keep-traces"} {
		url, bodies := recordingEmulator(t)
		run := filepath.Join(dir, policy)
		_, errOut, code := thinkcap(t, "loadtest", "--url", url, "--model", "Qwen/Qwen3-8B", "--workload", log, "--history", policy,
			"--scrape-interval", "20ms", "--out", run)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", policy, code, errOut)
		}
		got := bodies()
		if len(got) != 6 {
			t.Fatalf("%s: %d requests received, want 6", policy, len(got))
		}
		byTurns := map[int]int{}
		for _, b := range got {
			n := len(b.Messages)
			byTurns[n]++
			if n == 1 {
				continue
			}
			// user, assistant, ..., user: the earlier turns, then the new input.
			for i, m := range b.Messages {
				want := "user"
				if i%2 == 1 {
					want = "assistant"
				}
				if m.Role != want {
					t.Fatalf("%s: message %d is %s, want %s: %+v", policy, i, m.Role, want, b.Messages)
				}
			}
			answer := b.Messages[1].Content
			if inline := strings.Contains(answer, "<think>"); inline != (policy == "keep-traces") || answer == "" {
				t.Errorf("%s: the first answer sent back is %q", policy, answer)
			}
		}
		// Turn 1 sends one message, turn 2 three, turn 3 five, for each session.
		if byTurns[1] != 2 || byTurns[3] != 2 || byTurns[5] != 2 {
			t.Errorf("%s: requests by message count %v", policy, byTurns)
		}
		results, err := workload.ReadResultsFile(filepath.Join(run, "results.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		prompt := map[int]int{}
		for _, r := range results {
			if r.Status != workload.StatusOK || r.SessionID == "" {
				t.Fatalf("%s: %s %s session %q", policy, r.ID, r.Status, r.SessionID)
			}
			prompt[r.Turn] = max(prompt[r.Turn], r.PromptTokens)
		}
		if !(prompt[1] < prompt[2] && prompt[2] < prompt[3]) {
			t.Errorf("%s: the server's prompt tokens by turn %v do not grow with the history", policy, prompt)
		}
		// The emulator's prefix cache holds each conversation's earlier
		// messages for its later turns, and says so in its counters.
		sb, err := os.ReadFile(filepath.Join(run, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Hit *float64 `json:"prefix_cache_hit_rate"`
		}
		if err := json.Unmarshal(sb, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Hit == nil || *sum.Hit < 0.1 {
			t.Errorf("%s: prefix-cache hit rate %v: the later turns should hit their history", policy, sum.Hit)
		}
		// verify compares the sessions turn by turn (the verdict itself may
		// go either way on six requests).
		out, errOut, code := thinkcap(t, "verify", run, "-o", "json", "--min-requests", "1")
		if code != exitOK && code != exitCheckFailed {
			t.Fatalf("%s: verify exit %d: %s", policy, code, errOut)
		}
		var v struct {
			Turns []struct {
				Turn, Requests int
				History        float64 `json:"history_tokens_mean"`
			} `json:"turns"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatal(err)
		}
		if len(v.Turns) != 3 || v.Turns[0].Requests != 2 || v.Turns[0].History != 0 || v.Turns[2].History <= v.Turns[1].History {
			t.Errorf("%s: verify's turns %+v", policy, v.Turns)
		}
	}
}
