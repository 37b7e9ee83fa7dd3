// Package samplelog makes thinkcap's sample data from a fixed seed: a day of
// production traffic of a reasoning model and an accuracy-versus-budget
// eval. `go run ./testdata/gen` writes them to testdata/; a test checks the
// committed files are what the generator makes, so they cannot drift.
package samplelog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// Seed makes the committed sample files.
const Seed = 20261101

// class is one kind of production traffic, with its own length tails.
type class struct {
	mode, category string
	share          float64
	promptP50      float64
	promptSigma    float64
	thinkP50       float64 // 0: thinking off
	thinkSigma     float64
	answerP50      float64
	answerSigma    float64
	maxTokens      int     // the cap: requests that reach it stop with finish_reason length
	accuracy       float64 // chance a request is judged correct
	prefixID       string
	prefixTokens   int
}

// The classes of a typical client mix: most
// traffic is easy and does not think, RAG thinks a little over a shared
// system prompt, code and math think long, and math often hits the cap.
var classes = []class{
	{"low", "extraction", 0.40, 600, 0.6, 0, 0, 80, 0.5, 1024, 0.97, "sys-extract", 320},
	{"low", "chat", 0.25, 250, 0.8, 0, 0, 180, 0.7, 2048, 0.93, "", 0},
	{"medium", "rag", 0.20, 2400, 0.5, 450, 0.8, 260, 0.5, 4096, 0.88, "sys-rag", 900},
	{"medium", "code", 0.10, 900, 0.7, 1400, 0.9, 500, 0.6, 8192, 0.81, "", 0},
	{"high", "math", 0.05, 300, 0.5, 3600, 0.7, 350, 0.5, 8192, 0.72, "", 0},
}

// record is a native request record with a wall-clock timestamp.
type record struct {
	ID           string `json:"id"`
	Timestamp    string `json:"timestamp"`
	PromptTokens int    `json:"prompt_tokens"`
	ThinkTokens  int    `json:"think_tokens"`
	AnswerTokens int    `json:"answer_tokens"`
	Mode         string `json:"mode"`
	Category     string `json:"category"`
	PrefixID     string `json:"prefix_id,omitempty"`
	PrefixTokens int    `json:"prefix_tokens,omitempty"`
	FinishReason string `json:"finish_reason"`
	Correct      bool   `json:"correct"`
}

// diurnal is the relative request rate by hour of day (UTC): quiet at
// night, a morning ramp, a peak after lunch.
var diurnal = [24]float64{
	0.25, 0.2, 0.18, 0.18, 0.2, 0.3, 0.5, 0.8, 1.1, 1.4, 1.6, 1.7,
	1.6, 1.8, 1.9, 1.8, 1.6, 1.3, 1.0, 0.8, 0.6, 0.5, 0.4, 0.3,
}

// Log is a day of production traffic: n requests from 2026-11-01 00:00 UTC
// with the diurnal rate, as JSONL request records. thinkScale stretches the
// thinking (1 for the base log; drift compares a log made with more).
func Log(seed uint64, n int, thinkScale float64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	times := arrivals(rng, n)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for i, at := range times {
		c := pick(rng)
		prompt := max(1, int(lognormal(rng, c.promptP50, c.promptSigma)))
		if c.prefixTokens > 0 {
			prompt += c.prefixTokens
		}
		think := 0
		if c.thinkP50 > 0 {
			think = int(lognormal(rng, c.thinkP50*thinkScale, c.thinkSigma))
		}
		answer := max(1, int(lognormal(rng, c.answerP50, c.answerSigma)))
		finish := "stop"
		if think+answer > c.maxTokens {
			// Cut at max_tokens: mid-thought (an unclosed <think>, no answer)
			// or mid-answer.
			finish = "length"
			if think >= c.maxTokens {
				think, answer = c.maxTokens, 0
			} else {
				answer = c.maxTokens - think
			}
		}
		ts := start.Add(time.Duration(at * float64(time.Second)))
		r := record{
			ID: fmt.Sprintf("req-%05d", i+1), Timestamp: ts.Format(time.RFC3339Nano),
			PromptTokens: prompt, ThinkTokens: think, AnswerTokens: answer,
			Mode: c.mode, Category: c.category, PrefixID: c.prefixID, PrefixTokens: c.prefixTokens,
			FinishReason: finish, Correct: finish == "stop" && rng.Float64() < c.accuracy,
		}
		if err := enc.Encode(&r); err != nil {
			panic(err) // a fixed struct always encodes
		}
	}
	return buf.Bytes()
}

// arrivals are n sorted times over one day (seconds) with the diurnal
// shape: a non-homogeneous Poisson process conditioned on n arrivals is n
// independent draws from the rate's normalised profile.
func arrivals(rng *rand.Rand, n int) []float64 {
	var cum [25]float64
	for h, r := range diurnal {
		cum[h+1] = cum[h] + r
	}
	out := make([]float64, n)
	for i := range out {
		u := rng.Float64() * cum[24]
		h := sort.SearchFloat64s(cum[1:], u)
		out[i] = 3600 * (float64(h) + (u-cum[h])/diurnal[h])
	}
	sort.Float64s(out)
	return out
}

func pick(rng *rand.Rand) *class {
	u := rng.Float64()
	for i := range classes {
		if u < classes[i].share {
			return &classes[i]
		}
		u -= classes[i].share
	}
	return &classes[len(classes)-1]
}

func lognormal(rng *rand.Rand, p50, sigma float64) float64 {
	return p50 * math.Exp(sigma*rng.NormFloat64())
}

// evalRow is one eval item run at one thinking budget.
type evalRow struct {
	Item        string `json:"item"`
	Category    string `json:"category"`
	Budget      int    `json:"budget"`
	Correct     bool   `json:"correct"`
	TotalTokens int    `json:"total_tokens"`
}

// curve gives a category's accuracy at a thinking budget: extraction is
// best without thinking, RAG knees at a few hundred tokens, math keeps
// improving past 2,000, and long thinking on easy tasks
// slightly hurts (overthinking).
func curve(category string, budget float64) float64 {
	switch category {
	case "extraction":
		return 0.95 - 0.01*math.Log2(1+budget/256)
	case "rag":
		return 0.70 + 0.18*(1-math.Exp(-budget/300)) - 0.004*math.Log2(1+budget/1024)
	default: // math
		return 0.30 + 0.55*(1-math.Exp(-budget/1800))
	}
}

// Budgets of the sample eval.
var Budgets = []int{0, 256, 512, 1024, 2048, 4096}

// Eval is an accuracy-versus-budget eval: items per category, each run at
// every budget, as JSONL rows (item, category, budget, correct,
// total_tokens).
func Eval(seed uint64, items int) []byte {
	rng := rand.New(rand.NewPCG(seed, 2))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, cat := range []string{"extraction", "rag", "math"} {
		for i := range items {
			// Each item has a natural thinking length; the budget caps it.
			natural := map[string]float64{"extraction": 150, "rag": 500, "math": 2500}[cat] * math.Exp(0.8*rng.NormFloat64())
			answer := 80 + rng.IntN(200)
			for _, b := range Budgets {
				think := int(math.Min(natural, float64(b)))
				row := evalRow{
					Item: fmt.Sprintf("%s-%03d", cat, i+1), Category: cat, Budget: b,
					Correct:     rng.Float64() < curve(cat, float64(b)),
					TotalTokens: think + answer,
				}
				if err := enc.Encode(&row); err != nil {
					panic(err)
				}
			}
		}
	}
	return buf.Bytes()
}
