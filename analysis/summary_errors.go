package analysis

import (
	"sort"
	"strconv"
	"strings"

	"github.com/thinkcap/thinkcap/workload"
)

// ErrorBreakdown says what failed in a load test, not only how many:
// counts by status and HTTP code, and the most common messages (the
// server's own, from vLLM's error body, or the client's: "dial tcp …:
// connection refused").
type ErrorBreakdown struct {
	ByStatus   map[string]int `json:"by_status"`
	ByHTTPCode map[string]int `json:"by_http_code"`
	Messages   []ErrorCount   `json:"messages"`
}

// ErrorCount is one message and how many failed records carry it.
type ErrorCount struct {
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// ScrapeCounts counts a load test's /metrics scrapes and their failures:
// a run whose server side is thin says why.
type ScrapeCounts struct {
	Scrapes   int    `json:"scrapes"`
	Failures  int    `json:"failures"`
	LastError string `json:"last_error,omitempty"`
}

// Bounds of the breakdown: a handful of messages, each short enough to
// read on one or two lines.
const (
	maxErrorMessages     = 5
	MaxErrorMessageRunes = 200
)

// Errors breaks the failed results down; nil when none failed.
func Errors(results []workload.Result) *ErrorBreakdown {
	var b *ErrorBreakdown
	msgs := map[string]int{}
	for i := range results {
		r := &results[i]
		if r.OK() {
			continue
		}
		if b == nil {
			b = &ErrorBreakdown{ByStatus: map[string]int{}, ByHTTPCode: map[string]int{}, Messages: []ErrorCount{}}
		}
		b.ByStatus[r.Status]++
		if r.HTTPStatus != 0 {
			b.ByHTTPCode[strconv.Itoa(r.HTTPStatus)]++
		}
		msg := r.Error
		if msg == "" {
			msg = r.Status
		}
		msgs[TruncateRunes(strings.Join(strings.Fields(msg), " "), MaxErrorMessageRunes)]++
	}
	if b == nil {
		return nil
	}
	for m, n := range msgs {
		b.Messages = append(b.Messages, ErrorCount{Message: m, Count: n})
	}
	sort.Slice(b.Messages, func(i, j int) bool {
		x, y := b.Messages[i], b.Messages[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		return x.Message < y.Message
	})
	if len(b.Messages) > maxErrorMessages {
		b.Messages = b.Messages[:maxErrorMessages]
	}
	return b
}

// TruncateRunes cuts s to n runes, marking the cut.
func TruncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
