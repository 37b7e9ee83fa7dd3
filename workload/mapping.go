package workload

import (
	"errors"
	"fmt"
	"strings"
)

// Mapping reads request records from any JSONL or CSV log: it names, for
// each request field, the source field that holds it (see ParseMapping).
// A mapping is explicit: fields it does not name are absent, whatever the
// source calls its columns.
type Mapping struct {
	src [numFields]string // source field per request field; "" unmapped
}

// mappingKeys are the keys of a mapping spec, in canonical order, with the
// request field each sets.
var mappingKeys = []struct {
	key string
	f   field
}{
	{"id", fID},
	{"arrival", fArrivalS},
	{"timestamp", fTimestamp},
	{"prompt", fPromptTokens},
	{"think", fThinkTokens},
	{"answer", fAnswerTokens},
	{"output", fOutputTokens},
	{"mode", fMode},
	{"category", fCategory},
	{"prefix_id", fPrefixID},
	{"prefix_tokens", fPrefixTokens},
	{"finish_reason", fFinishReason},
	{"priority", fPriority},
	{"correct", fCorrect},
	{"after", fAfter},
	{"session_id", fSessionID},
	{"turn", fTurn},
	{"think_time", fThinkTimeS},
}

// MappingKeys lists the keys a mapping spec takes.
func MappingKeys() []string {
	keys := make([]string, len(mappingKeys))
	for i, k := range mappingKeys {
		keys[i] = k.key
	}
	return keys
}

// mappingField finds the field of a key; the native column names
// (arrival_s, prompt_tokens, ...) are accepted too.
func mappingField(key string) (field, bool) {
	for _, k := range mappingKeys {
		if k.key == key {
			return k.f, true
		}
	}
	for f, n := range fieldNames {
		if n == key {
			return field(f), true
		}
	}
	return 0, false
}

// ParseMapping parses a field mapping such as
//
//	arrival=ts,think=reasoning_tokens,answer=out_tokens,prompt=in_tokens
//
// Each entry is key=source. Keys (case-insensitive) are the request
// fields: id, arrival (seconds from the start of the log), timestamp
// (RFC 3339 or unix seconds), prompt, think, answer, output (all generated
// tokens: the answer is output − think when answer is not mapped), mode,
// category, prefix_id, prefix_tokens, finish_reason, priority, correct,
// after, session_id, turn, think_time; the native column names (prompt_tokens, ...) also work. A source
// is a CSV column name (matched ignoring case and surrounding spaces) or,
// in JSONL, a key or a dotted path into nested objects with optional
// array indexes: usage.prompt_tokens, choices[0].finish_reason (keys match
// ignoring case). prompt and one of arrival and timestamp must be mapped.
// Several keys may share a source. Every problem is reported.
func ParseMapping(spec string) (*Mapping, error) {
	m := &Mapping{}
	var errs []error
	valid := strings.Join(MappingKeys(), ", ")
	for entry := range strings.SplitSeq(spec, ",") {
		entry = strings.TrimSpace(entry)
		key, src, ok := strings.Cut(entry, "=")
		key, src = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(src)
		switch {
		case entry == "":
			errs = append(errs, fmt.Errorf("field mapping: empty entry in %q (want key=source, valid keys: %s)", spec, valid))
			continue
		case !ok:
			errs = append(errs, fmt.Errorf("field mapping: %q: want key=source (valid keys: %s)", entry, valid))
			continue
		}
		f, known := mappingField(key)
		switch {
		case !known:
			errs = append(errs, fmt.Errorf("field mapping: unknown key %q (valid: %s)", key, valid))
			continue
		case src == "":
			errs = append(errs, fmt.Errorf("field mapping: %s: empty source field (want %s=name)", key, key))
			continue
		case m.src[f] != "":
			errs = append(errs, fmt.Errorf("field mapping: %s: mapped twice (to %q and %q)", key, m.src[f], src))
			continue
		}
		if _, err := parseJSONPath(src); err != nil {
			errs = append(errs, fmt.Errorf("field mapping: %s: %w", key, err))
			continue
		}
		m.src[f] = src
	}
	if len(errs) == 0 {
		if m.src[fPromptTokens] == "" {
			errs = append(errs, errors.New("field mapping: prompt: must be mapped (every request needs its prompt tokens)"))
		}
		if m.src[fArrivalS] == "" && m.src[fTimestamp] == "" {
			errs = append(errs, errors.New("field mapping: arrival or timestamp: one must be mapped (every request needs its arrival)"))
		}
	}
	if len(errs) == 0 {
		// Paths must fit together in JSON (a path cannot be a value and
		// an object at once).
		if _, err := m.jsonDecoder(); err != nil {
			errs = append(errs, fmt.Errorf("field mapping: %w", err))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return m, nil
}

// String is the canonical spec: ParseMapping(m.String()) is m.
func (m *Mapping) String() string {
	var parts []string
	for _, k := range mappingKeys {
		if src := m.src[k.f]; src != "" {
			parts = append(parts, k.key+"="+src)
		}
	}
	return strings.Join(parts, ",")
}

// mapped lists the mapped fields in field order.
func (m *Mapping) mapped() []field {
	var fs []field
	for f, src := range m.src {
		if src != "" {
			fs = append(fs, field(f))
		}
	}
	return fs
}

// jsonDecoder reads JSONL through the mapping.
func (m *Mapping) jsonDecoder() (*jsonDecoder, error) {
	fs := m.mapped()
	paths := make([]string, len(fs))
	for i, f := range fs {
		paths[i] = m.src[f]
	}
	s, slots, err := newJSONSchema(paths)
	if err != nil {
		return nil, err
	}
	d := newJSONDecoder(FormatJSONL, s, fillSources)
	for i, f := range fs {
		d.sources = append(d.sources, fieldSource{f: f, slots: []int{slots[i]}})
	}
	return d, nil
}
