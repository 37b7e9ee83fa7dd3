package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// field is one column of the request record. The JSONL and CSV readers both
// reduce a record to raw text per field and share the parsing and validation
// below, so the two formats accept exactly the same values.
type field int

const (
	fID field = iota
	fArrivalS
	fTimestamp
	fPromptTokens
	fThinkTokens
	fAnswerTokens
	fMode
	fCategory
	fPrefixID
	fPrefixTokens
	fFinishReason
	fPriority
	numFields
)

// fieldNames are the column names of DESIGN.md's request record, by field.
var fieldNames = [numFields]string{
	fID:           "id",
	fArrivalS:     "arrival_s",
	fTimestamp:    "timestamp",
	fPromptTokens: "prompt_tokens",
	fThinkTokens:  "think_tokens",
	fAnswerTokens: "answer_tokens",
	fMode:         "mode",
	fCategory:     "category",
	fPrefixID:     "prefix_id",
	fPrefixTokens: "prefix_tokens",
	fFinishReason: "finish_reason",
	fPriority:     "priority",
}

// fieldByName maps a column name to its field.
func fieldByName(name string) (field, bool) {
	for f, n := range fieldNames {
		if n == name {
			return field(f), true
		}
	}
	return 0, false
}

// Effort modes of a request record.
const (
	ModeLow    = "low"
	ModeMedium = "medium"
	ModeHigh   = "high"
)

// Finish reasons of a request record. FinishLength inside the thinking means
// the <think> block was never closed.
const (
	FinishStop   = "stop"
	FinishLength = "length"
)

// Limits that keep downstream arithmetic safe: token sums stay far from
// integer overflow and arrival times convert to int64 nanoseconds.
const (
	// MaxTokens is the largest token count a record or a distribution may hold.
	MaxTokens = 1_000_000_000
	// MaxArrivalS is the latest arrival, in seconds from the start (~31 years).
	MaxArrivalS = 1e9
	// maxUnixSeconds separates unix seconds from unix milliseconds: 1e11 s is
	// the year 5138, while milliseconds of any recent date exceed it.
	maxUnixSeconds = 1e11
)

// rawRecord holds the text of each field of one record as read; present is
// false for an absent, null or empty value.
type rawRecord struct {
	text    [numFields]string
	present [numFields]bool
}

func (raw *rawRecord) set(f field, text string) {
	raw.text[f] = text
	raw.present[f] = text != ""
}

// fieldError is a problem with one field; the reader adds file:line.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func errorf(f field, format string, args ...any) *fieldError {
	return &fieldError{field: fieldNames[f], msg: fmt.Sprintf(format, args...)}
}

// clock says where a record's arrival comes from.
type clock int

const (
	clockUnset     clock = iota // no record read yet
	clockArrival                // arrival_s
	clockTimestamp              // timestamp, made relative after reading
)

// parsedRecord is a validated request whose arrival is either ArrivalS or,
// for clockTimestamp, the absolute timestamp in unix seconds.
type parsedRecord struct {
	req   Request
	clock clock
	unixS float64
}

// parseRecord validates raw and turns it into a request. want is the clock
// the file uses, set by its first record (clockUnset for the first record).
func parseRecord(raw *rawRecord, want clock) (parsedRecord, *fieldError) {
	var p parsedRecord
	var err *fieldError
	r := &p.req
	r.ID = raw.text[fID]

	// The clock comes from the file's first record: arrival_s when it has
	// one, else timestamp. A file must not mix them, because a relative and
	// an absolute time cannot be put on one axis.
	hasArrival, hasTimestamp := raw.present[fArrivalS], raw.present[fTimestamp]
	switch {
	case hasArrival && want != clockTimestamp:
		p.clock = clockArrival
		if r.ArrivalS, err = parseSeconds(raw, fArrivalS); err != nil {
			return p, err
		}
	case hasTimestamp && want != clockArrival:
		p.clock = clockTimestamp
		if p.unixS, err = parseTimestamp(raw.text[fTimestamp]); err != nil {
			return p, err
		}
	case want == clockArrival && hasTimestamp:
		return p, errorf(fArrivalS, "missing (the file's first record uses arrival_s; do not mix it with timestamp)")
	case want == clockTimestamp && hasArrival:
		return p, errorf(fTimestamp, "missing (the file's first record uses timestamp; do not mix it with arrival_s)")
	case want == clockTimestamp:
		return p, errorf(fTimestamp, "missing")
	case want == clockArrival:
		return p, errorf(fArrivalS, "missing")
	default:
		return p, errorf(fArrivalS, "missing (give arrival_s or timestamp)")
	}

	if !raw.present[fPromptTokens] {
		return p, errorf(fPromptTokens, "missing")
	}
	if r.PromptTokens, err = parseTokens(raw, fPromptTokens); err != nil {
		return p, err
	}
	if r.PromptTokens < 1 {
		return p, errorf(fPromptTokens, "must be at least 1, got %d", r.PromptTokens)
	}
	if r.ThinkTokens, err = parseTokens(raw, fThinkTokens); err != nil {
		return p, err
	}
	if r.AnswerTokens, err = parseTokens(raw, fAnswerTokens); err != nil {
		return p, err
	}
	if r.PrefixTokens, err = parseTokens(raw, fPrefixTokens); err != nil {
		return p, err
	}
	// The shared prefix is part of the prompt.
	if r.PrefixTokens > r.PromptTokens {
		return p, errorf(fPrefixTokens, "must not exceed prompt_tokens (%d), got %d", r.PromptTokens, r.PrefixTokens)
	}
	if r.Priority, err = parsePriority(raw); err != nil {
		return p, err
	}

	r.Mode = raw.text[fMode]
	if r.Mode != "" && !validMode(r.Mode) {
		return p, errorf(fMode, "must be one of %s, %s, %s, got %s", ModeLow, ModeMedium, ModeHigh, show(r.Mode))
	}
	r.FinishReason = raw.text[fFinishReason]
	if r.FinishReason != "" && r.FinishReason != FinishStop && r.FinishReason != FinishLength {
		return p, errorf(fFinishReason, "must be %s or %s, got %s", FinishStop, FinishLength, show(r.FinishReason))
	}
	r.Category = raw.text[fCategory]
	r.PrefixID = raw.text[fPrefixID]
	return p, nil
}

func validMode(m string) bool { return m == ModeLow || m == ModeMedium || m == ModeHigh }

// parseTokens reads a non-negative integer token count; absent means 0.
// Integral floats ("12.0", 1e3) are accepted because some loggers write every
// number as a float.
func parseTokens(raw *rawRecord, f field) (int, *fieldError) {
	if !raw.present[f] {
		return 0, nil
	}
	s := raw.text[f]
	v, ok := parseInteger(s)
	if !ok || v < 0 {
		return 0, errorf(f, "must be a non-negative integer, got %s", show(s))
	}
	if v > MaxTokens {
		return 0, errorf(f, "must be at most %d, got %s", MaxTokens, show(s))
	}
	return int(v), nil
}

// parsePriority reads vLLM's priority, any integer of int32 range.
func parsePriority(raw *rawRecord) (int, *fieldError) {
	if !raw.present[fPriority] {
		return 0, nil
	}
	s := raw.text[fPriority]
	v, ok := parseInteger(s)
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, errorf(fPriority, "must be an integer in int32 range, got %s", show(s))
	}
	return int(v), nil
}

// parseInteger parses s as an integer, also in float notation when the value
// is integral. Values beyond ±2^53 are refused rather than rounded.
func parseInteger(s string) (int64, bool) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// parseSeconds reads arrival_s: finite, non-negative, at most MaxArrivalS.
func parseSeconds(raw *rawRecord, f field) (float64, *fieldError) {
	s := raw.text[f]
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, errorf(f, "must be a finite number of seconds, got %s", show(s))
	case v < 0:
		return 0, errorf(f, "must be non-negative, got %s", show(s))
	case v > MaxArrivalS:
		return 0, errorf(f, "must be at most %g seconds, got %s", float64(MaxArrivalS), show(s))
	}
	return v, nil
}

// parseTimestamp reads a timestamp as unix seconds: a number (or numeric
// string) of unix seconds, or RFC 3339 text (a space instead of the "T" is
// accepted, as many loggers write it).
func parseTimestamp(s string) (float64, *fieldError) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return 0, errorf(fTimestamp, "must be finite, got %s", show(s))
		case math.Abs(v) >= maxUnixSeconds:
			return 0, errorf(fTimestamp, "must be unix seconds, got %s (milliseconds?)", show(s))
		}
		return v, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil && len(s) > 10 && s[10] == ' ' {
		t, err = time.Parse(time.RFC3339Nano, s[:10]+"T"+s[11:])
	}
	if err != nil {
		return 0, errorf(fTimestamp, "must be RFC 3339 or unix seconds, got %s", show(s))
	}
	// Seconds and nanoseconds separately: float64 keeps ~0.2 µs at today's
	// unix times, far below anything a log resolves.
	v := float64(t.Unix()) + float64(t.Nanosecond())/1e9
	if math.Abs(v) >= maxUnixSeconds {
		return 0, errorf(fTimestamp, "is out of range, got %s", show(s))
	}
	return v, nil
}

// show formats a user's value for an error message: numbers as they are,
// anything else quoted, and long values cut short.
func show(s string) string {
	s = truncate(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return strconv.Quote(s)
}

// truncate cuts a value short for an error message, and quotes it when it
// holds bytes a terminal should not print.
func truncate(s string) string {
	const maxLen = 40
	if len(s) > maxLen {
		s = s[:maxLen] + "..."
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}
