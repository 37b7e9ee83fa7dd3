package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// field is one column of the request record. Every reader (native JSONL,
// CSV, openai-usage, a field mapping) reduces a record to raw text per field
// and shares the parsing and validation below, so that all formats accept
// exactly the same values.
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
	fCorrect
	fAfter
	fSessionID
	fTurn
	fThinkTimeS
	// fOutputTokens is the total of generated tokens. It is no column of the
	// request record: openai-usage and field mappings read it, and the answer
	// is what the thinking leaves of it.
	fOutputTokens
	numFields
)

// numNativeFields counts the fields of the request record itself.
const numNativeFields = fOutputTokens

// fieldNames are the column names of the request record, by field
// (docs/formats.md).
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
	fCorrect:      "correct",
	fAfter:        "after",
	fSessionID:    "session_id",
	fTurn:         "turn",
	fThinkTimeS:   "think_time_s",
	fOutputTokens: "output_tokens",
}

// fieldKind says what a field's JSON value must be.
type fieldKind int

const (
	kindString fieldKind = iota
	kindNumber
	kindTimestamp // a string or a number
	kindBool
)

func kindOf(f field) fieldKind {
	switch f {
	case fArrivalS, fPromptTokens, fThinkTokens, fAnswerTokens, fPrefixTokens, fPriority, fOutputTokens, fTurn, fThinkTimeS:
		return kindNumber
	case fTimestamp:
		return kindTimestamp
	case fCorrect:
		return kindBool
	}
	return kindString
}

// fieldByName maps a native column name to its field.
func fieldByName(name string) (field, bool) {
	for f, n := range fieldNames[:numNativeFields] {
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

// rawRecord holds the text of each field of one record as read. The text
// points into the reader's buffers and is valid until the next record: only
// the strings a Request keeps are copied, so reading allocates little. An
// empty text is an absent value (JSON null, an empty cell, a missing key).
type rawRecord struct {
	text [numFields][]byte
	// name is the source field an error should name ("usage.prompt_tokens",
	// a mapped column); empty means the native name.
	name [numFields]string
	// clocks lists what the format can read an arrival from (bits of
	// fArrivalS and fTimestamp), so that a missing arrival names the right
	// field.
	clocks uint8
}

const (
	clockBitArrival   = 1 << 0
	clockBitTimestamp = 1 << 1
)

func (raw *rawRecord) present(f field) bool { return len(raw.text[f]) > 0 }

// label is the name of f in error messages: the source field it came from.
func (raw *rawRecord) label(f field) string {
	if raw.name[f] != "" {
		return raw.name[f]
	}
	return fieldNames[f]
}

// fieldError is a problem with one field; the reader adds file:line.
type fieldError struct {
	field string
	msg   string
	// reason is msg without the value, for counting skipped records by
	// cause ("must be a non-negative integer"); empty means msg.
	reason string
	err    error // the cause, if any
}

// Error is "field: problem", or the problem alone when it concerns the
// record as a whole (invalid JSON).
func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func (e *fieldError) Unwrap() error { return e.err }

// short is "field: reason", the same for every record with this problem.
func (e *fieldError) short() string {
	reason := e.reason
	if reason == "" {
		reason = e.msg
	}
	if e.field == "" {
		return reason
	}
	return e.field + ": " + reason
}

// badValue is a problem with the value of field f of raw: reason, then
// detail (which shows the value and varies from record to record).
func badValue(raw *rawRecord, f field, reason, detail string, args ...any) *fieldError {
	return &fieldError{field: raw.label(f), msg: reason + fmt.Sprintf(detail, args...), reason: reason}
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

// parseRecord validates raw and turns it into p.req. want is the clock the
// file uses, set by its first record (clockUnset for the first record).
// Strings are copied out of raw (labels through in, which shares repeated
// values such as modes and categories).
func parseRecord(raw *rawRecord, want clock, in *interner, p *parsedRecord) *fieldError {
	*p = parsedRecord{}
	var err *fieldError
	r := &p.req

	// The clock comes from the file's first record: arrival_s when it has
	// one, else timestamp. A file must not mix them, because a relative and
	// an absolute time cannot be put on one axis.
	hasArrival, hasTimestamp := raw.present(fArrivalS), raw.present(fTimestamp)
	switch {
	case hasArrival && want != clockTimestamp:
		p.clock = clockArrival
		if r.ArrivalS, err = parseSeconds(raw, fArrivalS); err != nil {
			return err
		}
	case hasTimestamp && want != clockArrival:
		p.clock = clockTimestamp
		if p.unixS, err = parseTimestampField(raw, fTimestamp); err != nil {
			return err
		}
	case want == clockArrival && hasTimestamp:
		return badValue(raw, fArrivalS, "missing", " (the file's first record uses %s; do not mix it with %s)", raw.label(fArrivalS), raw.label(fTimestamp))
	case want == clockTimestamp && hasArrival:
		return badValue(raw, fTimestamp, "missing", " (the file's first record uses %s; do not mix it with %s)", raw.label(fTimestamp), raw.label(fArrivalS))
	case want == clockTimestamp || raw.clocks == clockBitTimestamp:
		return badValue(raw, fTimestamp, "missing", "")
	case want == clockArrival || raw.clocks == clockBitArrival:
		return badValue(raw, fArrivalS, "missing", "")
	default:
		return badValue(raw, fArrivalS, "missing", " (give %s or %s)", raw.label(fArrivalS), raw.label(fTimestamp))
	}

	if !raw.present(fPromptTokens) {
		return badValue(raw, fPromptTokens, "missing", "")
	}
	if r.PromptTokens, err = parseTokens(raw, fPromptTokens); err != nil {
		return err
	}
	if r.PromptTokens < 1 {
		return badValue(raw, fPromptTokens, "must be at least 1", ", got %d", r.PromptTokens)
	}
	if r.ThinkTokens, err = parseTokens(raw, fThinkTokens); err != nil {
		return err
	}
	if r.AnswerTokens, err = parseTokens(raw, fAnswerTokens); err != nil {
		return err
	}
	if raw.present(fOutputTokens) {
		// Generated tokens in total: the answer is what the thinking
		// leaves, unless the answer was given itself.
		out, err := parseTokens(raw, fOutputTokens)
		if err != nil {
			return err
		}
		if r.ThinkTokens > out {
			return badValue(raw, fThinkTokens, "must not exceed "+raw.label(fOutputTokens), " (%d), got %d", out, r.ThinkTokens)
		}
		if !raw.present(fAnswerTokens) {
			r.AnswerTokens = out - r.ThinkTokens
		}
	}
	if r.PrefixTokens, err = parseTokens(raw, fPrefixTokens); err != nil {
		return err
	}
	// The shared prefix is part of the prompt.
	if r.PrefixTokens > r.PromptTokens {
		return badValue(raw, fPrefixTokens, "must not exceed "+raw.label(fPromptTokens), " (%d), got %d", r.PromptTokens, r.PrefixTokens)
	}
	if r.Priority, err = parsePriority(raw); err != nil {
		return err
	}
	if r.Correct, err = parseCorrect(raw); err != nil {
		return err
	}

	if m := raw.text[fMode]; len(m) > 0 {
		if r.Mode = in.get(m); !validMode(r.Mode) {
			return badValue(raw, fMode, fmt.Sprintf("must be one of %s, %s, %s", ModeLow, ModeMedium, ModeHigh), ", got %s", show(r.Mode))
		}
	}
	if fr := raw.text[fFinishReason]; len(fr) > 0 {
		if r.FinishReason = in.get(fr); r.FinishReason != FinishStop && r.FinishReason != FinishLength {
			return badValue(raw, fFinishReason, fmt.Sprintf("must be %s or %s", FinishStop, FinishLength), ", got %s", show(r.FinishReason))
		}
	}
	if id := raw.text[fID]; len(id) > 0 {
		r.ID = string(id)
	}
	if a := raw.text[fAfter]; len(a) > 0 {
		r.After = string(a)
	}
	if sid := raw.text[fSessionID]; len(sid) > 0 {
		r.SessionID = string(sid)
	}
	if r.Turn, err = parseTokens(raw, fTurn); err != nil {
		return err
	}
	if raw.present(fTurn) && r.Turn < 1 {
		return badValue(raw, fTurn, "must be at least 1", ", got %d", r.Turn)
	}
	if raw.present(fThinkTimeS) {
		if r.ThinkTimeS, err = parseSeconds(raw, fThinkTimeS); err != nil {
			return err
		}
	}
	r.Category = in.get(raw.text[fCategory])
	r.PrefixID = in.get(raw.text[fPrefixID])
	return nil
}

func validMode(m string) bool { return m == ModeLow || m == ModeMedium || m == ModeHigh }

// parseTokens reads a non-negative integer token count; absent means 0.
// Integral floats ("12.0", 1e3) are accepted because some loggers write every
// number as a float.
func parseTokens(raw *rawRecord, f field) (int, *fieldError) {
	b := raw.text[f]
	if len(b) == 0 {
		return 0, nil
	}
	v, ok := parseIntegerBytes(b)
	if !ok || v < 0 {
		return 0, badValue(raw, f, "must be a non-negative integer", ", got %s", show(string(b)))
	}
	if v > MaxTokens {
		return 0, badValue(raw, f, fmt.Sprintf("must be at most %d", MaxTokens), ", got %s", show(string(b)))
	}
	return int(v), nil
}

// parsePriority reads vLLM's priority, any integer of int32 range.
func parsePriority(raw *rawRecord) (int, *fieldError) {
	b := raw.text[fPriority]
	if len(b) == 0 {
		return 0, nil
	}
	v, ok := parseIntegerBytes(b)
	if !ok || v < math.MinInt32 || v > math.MaxInt32 {
		return 0, badValue(raw, fPriority, "must be an integer in int32 range", ", got %s", show(string(b)))
	}
	return int(v), nil
}

// parseCorrect reads whether the answer was judged correct: true or false
// (any case, as spreadsheets write them) or 1 or 0; absent means unknown.
func parseCorrect(raw *rawRecord) (*bool, *fieldError) {
	b := raw.text[fCorrect]
	if len(b) == 0 {
		return nil, nil
	}
	var v bool
	switch {
	case string(b) == "1" || strings.EqualFold(string(b), "true"):
		v = true
	case string(b) == "0" || strings.EqualFold(string(b), "false"):
	default:
		return nil, badValue(raw, fCorrect, "must be true, false, 1 or 0", ", got %s", show(string(b)))
	}
	return &v, nil
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

// parseIntegerBytes is parseInteger without a string: plain digits and
// plain decimals ("12.0"), the common cases, are parsed here; anything
// else goes through parseInteger. Both routes agree.
func parseIntegerBytes(b []byte) (int64, bool) {
	neg := len(b) > 1 && b[0] == '-'
	digits := b
	if neg {
		digits = b[1:]
	}
	if len(digits) > 0 && len(digits) <= 18 {
		var v int64
		plain := true
		for _, c := range digits {
			if c < '0' || c > '9' {
				plain = false
				break
			}
			v = v*10 + int64(c-'0')
		}
		if plain {
			if neg {
				v = -v
			}
			return v, true
		}
	}
	if f, ok := parsePlainDecimal(b); ok {
		// Not an integer to strconv.ParseInt (it has a point): integral
		// floats count, as in parseInteger.
		if f != math.Trunc(f) {
			return 0, false
		}
		return int64(f), true
	}
	return parseInteger(string(b))
}

// parseSeconds reads arrival_s: finite, non-negative, at most MaxArrivalS.
func parseSeconds(raw *rawRecord, f field) (float64, *fieldError) {
	b := raw.text[f]
	v, ok := parseFloatBytes(b)
	switch {
	case !ok || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, badValue(raw, f, "must be a finite number of seconds", ", got %s", show(string(b)))
	case v < 0:
		return 0, badValue(raw, f, "must be non-negative", ", got %s", show(string(b)))
	case v > MaxArrivalS:
		return 0, badValue(raw, f, fmt.Sprintf("must be at most %g seconds", float64(MaxArrivalS)), ", got %s", show(string(b)))
	}
	return v, nil
}

// parseFloatBytes is strconv.ParseFloat of b, without a string for plain
// decimals (parsePlainDecimal).
func parseFloatBytes(b []byte) (float64, bool) {
	if v, ok := parsePlainDecimal(b); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	return v, err == nil
}

// parsePlainDecimal reads b when it is a plain decimal of at most 15
// digits ("12", "3.25"; no sign, no exponent), the common case, exactly as
// strconv.ParseFloat computes it: an integer mantissa divided by a power of
// ten, both exact in float64, so the quotient is correctly rounded. It
// reports false for anything else.
func parsePlainDecimal(b []byte) (float64, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var mant int64
	digits, frac := 0, -1
	for i, c := range b {
		switch {
		case '0' <= c && c <= '9':
			mant = mant*10 + int64(c-'0')
			digits++
		case c == '.' && frac < 0 && i > 0 && i < len(b)-1:
			frac = len(b) - 1 - i
		default:
			return 0, false
		}
	}
	if digits > 15 {
		return 0, false
	}
	if frac <= 0 {
		return float64(mant), true
	}
	return float64(mant) / pow10[frac], true
}

// pow10 are the powers of ten exact in float64.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16}

// parseTimestampField reads a timestamp as unix seconds: a number (or
// numeric string) of unix seconds, or RFC 3339 text (a space instead of the
// "T" is accepted, as many loggers write it).
func parseTimestampField(raw *rawRecord, f field) (float64, *fieldError) {
	b := raw.text[f]
	// A date in the usual shape is never a number: parse it first, and
	// spare strconv an error (and its allocation) on every line.
	if v, ok := parseRFC3339Fast(b); ok && math.Abs(v) < maxUnixSeconds {
		return v, nil
	}
	if v, ok := parseFloatBytes(b); ok {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return 0, badValue(raw, f, "must be finite", ", got %s", show(string(b)))
		case math.Abs(v) >= maxUnixSeconds:
			return 0, badValue(raw, f, "must be unix seconds", ", got %s (milliseconds?)", show(string(b)))
		}
		return v, nil
	}
	v, ok := parseRFC3339(b)
	if !ok {
		return 0, badValue(raw, f, "must be RFC 3339 or unix seconds", ", got %s", show(string(b)))
	}
	if math.Abs(v) >= maxUnixSeconds {
		return 0, badValue(raw, f, "is out of range", ", got %s", show(string(b)))
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

// interner shares the strings of repeated values (modes, categories, prefix
// ids) so that a million records do not hold a million copies of "math".
// It stops adding after maxInterned distinct values, so a column of unique
// values costs no more than plain copies.
type interner struct{ m map[string]string }

const maxInterned = 4096

func (in *interner) get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInterned {
		in.m[s] = s
	}
	return s
}
