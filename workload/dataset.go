package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
)

// This file reads the prompt datasets of `vllm bench serve` (--dataset-name,
// --dataset-path; vllm/benchmarks/datasets.py): ShareGPT's conversations
// and vLLM's custom JSONL of prompts. A load test sends their text as
// given; the server's usage.prompt_tokens is what the result records.
//
// Simplified: thinkcap has no tokenizer, so a text's length in tokens is
// estimated at four bytes a token (English prose under the common BPE
// tokenizers); it decides the output length of a ShareGPT conversation
// (its first reply's), unless --sharegpt-output-len fixes it, and vLLM's
// length filter below.

// The dataset names, as vllm bench serve's --dataset-name.
const (
	DatasetShareGPT = "sharegpt"
	DatasetCustom   = "custom"
)

// DatasetNames lists the datasets thinkcap reads.
var DatasetNames = []string{DatasetShareGPT, DatasetCustom}

// vLLM's length filter for these datasets (is_valid_sequence in
// vllm/benchmarks/datasets.py): prompt and output at least 4 tokens, the
// prompt at most 1,024, both together at most 2,048.
const (
	datasetMinLen    = 4
	datasetMaxPrompt = 1024
	datasetMaxTotal  = 2048
	// DefaultCustomOutputLen is vLLM's --custom-output-len default.
	DefaultCustomOutputLen = 256
	bytesPerToken          = 4
)

// DatasetPrompt is one prompt of a dataset with its lengths in tokens
// (estimated for the prompt; the dataset's, or estimated, for the output).
type DatasetPrompt struct {
	Text                       string
	PromptTokens, OutputTokens int
}

// DatasetOptions choose how a dataset is read.
type DatasetOptions struct {
	// OutputLen fixes every output length (--sharegpt-output-len or
	// --custom-output-len); 0 takes the dataset's (a custom line's
	// output_tokens, else DefaultCustomOutputLen; a ShareGPT reply's).
	OutputLen int
}

// EstimateTokens is a text's length in tokens at four bytes a token.
func EstimateTokens(text string) int {
	return max(int(math.Round(float64(len(text))/bytesPerToken)), 1)
}

// ReadDataset reads every prompt of a dataset file that passes vLLM's
// length filter. Errors name the file and line.
func ReadDataset(name, path string, o DatasetOptions) ([]DatasetPrompt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ps []DatasetPrompt
	switch name {
	case DatasetShareGPT:
		ps, err = readShareGPT(f, path, o)
	case DatasetCustom:
		ps, err = readCustom(f, path, o)
	default:
		return nil, fmt.Errorf("dataset %q: want one of %s", name, strings.Join(DatasetNames, ", "))
	}
	if err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("%s: no prompt passes vLLM's length filter (prompt and output at least %d tokens, prompt at most %d, both at most %d)",
			path, datasetMinLen, datasetMaxPrompt, datasetMaxTotal)
	}
	return ps, nil
}

// keep is vLLM's is_valid_sequence.
func keep(p DatasetPrompt) bool { return ValidLengths(p.PromptTokens, p.OutputTokens) }

// ValidLengths is vLLM's is_valid_sequence with its defaults: whether
// `vllm bench serve` keeps a prompt of these lengths in tokens.
func ValidLengths(prompt, output int) bool {
	return prompt >= datasetMinLen && output >= datasetMinLen &&
		prompt <= datasetMaxPrompt && prompt+output <= datasetMaxTotal
}

// readShareGPT streams a ShareGPT file, a JSON array of {"conversations":
// [{"from": "human", "value": …}, {"from": "gpt", "value": …}, …]}: each
// entry with two turns or more gives its first turn as the prompt and its
// second's length as the output, as vLLM's ShareGPTDataset does. The array
// is decoded one entry at a time: the public dump is 600 MB.
func readShareGPT(r io.Reader, path string, o DatasetOptions) ([]DatasetPrompt, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	bad := func(err error) error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset // the bad byte's, in the whole stream
		}
		return fmt.Errorf("%s:%d: ShareGPT: %w", path, lineOf(path, off), err)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, bad(errors.New("want a JSON array of conversations"))
	}
	var ps []DatasetPrompt
	for dec.More() {
		var entry struct {
			Conversations []struct {
				Value string `json:"value"`
			} `json:"conversations"`
		}
		if err := dec.Decode(&entry); err != nil {
			return nil, bad(err)
		}
		if len(entry.Conversations) < 2 {
			continue
		}
		p := DatasetPrompt{Text: entry.Conversations[0].Value, OutputTokens: o.OutputLen}
		p.PromptTokens = EstimateTokens(p.Text)
		if p.OutputTokens == 0 {
			p.OutputTokens = EstimateTokens(entry.Conversations[1].Value)
		}
		if keep(p) {
			ps = append(ps, p)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	return ps, nil
}

// readCustom reads vLLM's custom dataset: JSONL of {"prompt": …}, each line
// optionally with its output length (output_tokens, or output_len).
func readCustom(r io.Reader, path string, o DatasetOptions) ([]DatasetPrompt, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 64<<20)
	var ps []DatasetPrompt
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var rec struct {
			Prompt       *string `json:"prompt"`
			OutputTokens int     `json:"output_tokens"`
			OutputLen    int     `json:"output_len"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: custom dataset: %w", path, line, err)
		}
		if rec.Prompt == nil {
			return nil, fmt.Errorf("%s:%d: custom dataset: no \"prompt\"", path, line)
		}
		if rec.OutputTokens < 0 || rec.OutputLen < 0 {
			return nil, fmt.Errorf("%s:%d: custom dataset: a negative output length", path, line)
		}
		p := DatasetPrompt{Text: *rec.Prompt, PromptTokens: EstimateTokens(*rec.Prompt), OutputTokens: o.OutputLen}
		if p.OutputTokens == 0 {
			p.OutputTokens = cmpOr(rec.OutputTokens, rec.OutputLen, DefaultCustomOutputLen)
		}
		if keep(p) {
			ps = append(ps, p)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ps, nil
}

func cmpOr(vals ...int) int {
	for _, v := range vals {
		if v != 0 {
			return v
		}
	}
	return 0
}

// SampleDataset draws n prompts: the dataset shuffled by seed and taken in
// that order, cycling when it has fewer than n (vLLM oversamples too).
func SampleDataset(ps []DatasetPrompt, n int, seed uint64) []DatasetPrompt {
	order := rand.New(rand.NewPCG(seed, 0x64617461)).Perm(len(ps))
	out := make([]DatasetPrompt, n)
	for i := range out {
		out[i] = ps[order[i%len(order)]]
	}
	return out
}

// UseDataset puts a dataset's prompts on reqs, one a request drawn by
// seed (SampleDataset): their lengths, and their text into texts by request
// ID. The arrival times stay the traffic's; the synthetic traffic's
// classes (mode, prefix) do not apply, and the category is the dataset's
// name.
func UseDataset(reqs []Request, name string, ps []DatasetPrompt, seed uint64, texts map[string]string) {
	for i, p := range SampleDataset(ps, len(reqs), seed) {
		r := &reqs[i]
		r.PromptTokens, r.ThinkTokens, r.AnswerTokens = p.PromptTokens, 0, p.OutputTokens
		r.PrefixID, r.PrefixTokens = "", 0
		r.Mode, r.Category = "", name
		texts[r.ID] = p.Text
	}
}

// lineOf is the 1-based line of byte offset off in the file at path,
// counted again when an error needs it (0 when the file cannot be read).
func lineOf(path string, off int64) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	line := 1
	br := bufio.NewReader(io.LimitReader(f, off))
	for {
		b, err := br.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}
