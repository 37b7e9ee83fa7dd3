package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonRecord receives one JSONL line. Raw messages rather than typed fields
// let every error name its field and let numbers arrive as strings or
// integral floats. Unknown keys are ignored, so result files read as requests.
type jsonRecord struct {
	ID           json.RawMessage `json:"id"`
	ArrivalS     json.RawMessage `json:"arrival_s"`
	Timestamp    json.RawMessage `json:"timestamp"`
	PromptTokens json.RawMessage `json:"prompt_tokens"`
	ThinkTokens  json.RawMessage `json:"think_tokens"`
	AnswerTokens json.RawMessage `json:"answer_tokens"`
	Mode         json.RawMessage `json:"mode"`
	Category     json.RawMessage `json:"category"`
	PrefixID     json.RawMessage `json:"prefix_id"`
	PrefixTokens json.RawMessage `json:"prefix_tokens"`
	FinishReason json.RawMessage `json:"finish_reason"`
	Priority     json.RawMessage `json:"priority"`
}

// byField returns the raw values in field order.
func (j *jsonRecord) byField() [numFields]json.RawMessage {
	return [numFields]json.RawMessage{
		fID:           j.ID,
		fArrivalS:     j.ArrivalS,
		fTimestamp:    j.Timestamp,
		fPromptTokens: j.PromptTokens,
		fThinkTokens:  j.ThinkTokens,
		fAnswerTokens: j.AnswerTokens,
		fMode:         j.Mode,
		fCategory:     j.Category,
		fPrefixID:     j.PrefixID,
		fPrefixTokens: j.PrefixTokens,
		fFinishReason: j.FinishReason,
		fPriority:     j.Priority,
	}
}

// readJSONL reads one request object per line into sink. Blank lines and
// lines starting with '#' are skipped. It returns only read errors; record
// errors go to the sink.
func readJSONL(br *bufio.Reader, sink *recordSink) error {
	return eachLine(br, sink.name, func(lineNo int, line []byte) bool {
		raw, err := parseJSONLine(line)
		if err != nil {
			return sink.fail(lineNo, err)
		}
		return sink.add(lineNo, raw)
	})
}

// eachLine calls fn with each non-blank, non-comment line, trimmed, and its
// 1-based number, until fn returns false. Unlike bufio.Scanner it has no line
// length limit.
func eachLine(br *bufio.Reader, name string, fn func(lineNo int, line []byte) bool) error {
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("%s:%d: read: %w", name, lineNo, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			if !fn(lineNo, t) {
				return nil
			}
		}
		if err != nil { // io.EOF
			return nil
		}
	}
}

// parseJSONLine decodes one line into raw field text.
func parseJSONLine(line []byte) (*rawRecord, error) {
	if line[0] != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", truncate(string(line)))
	}
	var j jsonRecord
	if err := json.Unmarshal(line, &j); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	raw := &rawRecord{}
	for f, v := range j.byField() {
		text, err := jsonText(field(f), v)
		if err != nil {
			return nil, err
		}
		raw.set(field(f), text)
	}
	return raw, nil
}

// jsonText turns one raw JSON value into field text: strings unquoted,
// numbers as written, null as absent. Booleans, objects and arrays are
// errors.
func jsonText(f field, v json.RawMessage) (string, error) {
	if len(v) == 0 {
		return "", nil
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", errorf(f, "invalid string: %v", err)
		}
		return s, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return string(v), nil
	case c == 'n': // null
		return "", nil
	}
	want := "a string"
	switch f {
	case fArrivalS, fPromptTokens, fThinkTokens, fAnswerTokens, fPrefixTokens, fPriority:
		want = "a number"
	case fTimestamp:
		want = "a string or a number"
	}
	return "", errorf(f, "must be %s, got %s", want, truncate(string(v)))
}
