package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"strconv"
)

// FormatMooncake is the public Mooncake trace (kvcache-ai/Mooncake,
// FAST'25 and its traces/): one JSON object a line with timestamp
// (milliseconds from the trace's start), input_length, output_length and
// hash_ids, the hashes of the prompt's blocks of MooncakeBlockTokens
// tokens, equal where two prompts share a prefix (the format Dynamo,
// AIBrix and llm-d replay).
const FormatMooncake = "mooncake"

// MooncakeBlockTokens is the Mooncake trace's block: 512 tokens a hash.
const MooncakeBlockTokens = 512

// mooncakeRecord is one line of a Mooncake trace.
type mooncakeRecord struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
}

// readMooncake reads a Mooncake trace into request records: arrival from
// the timestamp, prompt from input_length, the output as answer tokens (the
// trace does not split thinking from answer), and as its shared prefix the
// longest run of leading block hashes another request of the trace also
// starts with: the prefix group thinkcap's cache model shares, named by
// those hashes. Two requests with the same longest shared run hit each
// other's blocks exactly; one whose longest shared run is shorter than a
// group it also starts with (a prefix nested in a longer shared one) hits
// only its own group: fewer hits than vLLM's block-by-block cache finds.
func readMooncake(r io.Reader, name string) ([]Request, ReadStats, error) {
	var recs []mooncakeRecord
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		var m mooncakeRecord
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, ReadStats{}, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		switch {
		case m.Timestamp == nil || *m.Timestamp < 0 || *m.Timestamp/1000 > MaxArrivalS:
			return nil, ReadStats{}, fmt.Errorf("%s:%d: timestamp: want milliseconds from the trace's start, at least 0", name, line)
		case m.InputLength == nil || *m.InputLength < 1 || *m.InputLength > MaxTokens:
			return nil, ReadStats{}, fmt.Errorf("%s:%d: input_length: want a positive token count", name, line)
		case m.OutputLength == nil || *m.OutputLength < 0 || *m.OutputLength > MaxTokens:
			return nil, ReadStats{}, fmt.Errorf("%s:%d: output_length: want a token count", name, line)
		}
		recs = append(recs, m)
	}
	if err := sc.Err(); err != nil {
		return nil, ReadStats{}, fmt.Errorf("%s: %w", name, err)
	}
	// How many requests start with each run of block hashes.
	runs := map[uint64]int32{}
	for i := range recs {
		h := fnv.New64a()
		for _, id := range recs[i].HashIDs {
			h.Write(strconv.AppendInt(nil, id, 10))
			h.Write([]byte{','})
			runs[h.Sum64()]++
		}
	}
	reqs := make([]Request, len(recs))
	for i := range recs {
		m := &recs[i]
		r := &reqs[i]
		*r = Request{ID: "mc-" + strconv.Itoa(i+1), ArrivalS: *m.Timestamp / 1000,
			PromptTokens: *m.InputLength, AnswerTokens: *m.OutputLength}
		h := fnv.New64a()
		shared, key := 0, uint64(0)
		for k, id := range m.HashIDs {
			h.Write(strconv.AppendInt(nil, id, 10))
			h.Write([]byte{','})
			if s := h.Sum64(); runs[s] > 1 {
				shared, key = k+1, s
			} else {
				break
			}
		}
		if shared > 0 {
			r.PrefixID = "mooncake:" + strconv.FormatUint(key, 16)
			r.PrefixTokens = min(shared*MooncakeBlockTokens, r.PromptTokens-1)
		}
	}
	st := ReadStats{Format: FormatMooncake, Records: len(reqs)}
	st.Reordered = sortByArrival(reqs)
	return reqs, st, nil
}
