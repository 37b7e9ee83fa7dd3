package samplelog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
)

// The prompt datasets' samples: conversations in ShareGPT's layout and
// prompts in vLLM's custom JSONL, of generated English-like words (no
// public text is copied), with lengths spread as a chat dataset's are:
// short and long questions, short and long replies. The tests read them as
// `loadtest --dataset-name sharegpt|custom` does.

var words = strings.Fields(`the a of to and in is for on that with as it be are this by
from at or an not have can which will more than one all about what when how your their there
model server request token cache memory batch latency throughput answer question explain write
code function data table value number system time first second load test deploy scale cluster
reason think step plan check result error return list string sort search graph tree path query`)

// text is n generated words.
func text(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	b.WriteByte('.')
	return b.String()
}

// ShareGPT is n conversations in ShareGPT's layout: a human turn, a gpt
// reply, and sometimes a second exchange (which vLLM's reader ignores).
func ShareGPT(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x5348))
	type turn struct {
		From  string `json:"from"`
		Value string `json:"value"`
	}
	type conversation struct {
		ID            string `json:"id"`
		Conversations []turn `json:"conversations"`
	}
	convs := make([]conversation, n)
	for i := range convs {
		c := conversation{ID: "sample-" + itoa(i)}
		c.Conversations = []turn{
			{"human", text(rng, int(lognormal(rng, 60, 0.9))+2)},
			{"gpt", text(rng, int(lognormal(rng, 150, 0.8))+2)},
		}
		if rng.Float64() < 0.3 {
			c.Conversations = append(c.Conversations, turn{"human", text(rng, 20)}, turn{"gpt", text(rng, 40)})
		}
		convs[i] = c
	}
	b, _ := json.MarshalIndent(convs, "", " ")
	return append(b, '\n')
}

// Custom is n prompts in vLLM's custom JSONL, some with their own output
// length.
func Custom(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x4355))
	var b bytes.Buffer
	for range n {
		rec := map[string]any{"prompt": text(rng, int(lognormal(rng, 80, 0.7))+2)}
		if rng.Float64() < 0.5 {
			rec["output_tokens"] = 32 + rng.IntN(300)
		}
		line, _ := json.Marshal(rec)
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
