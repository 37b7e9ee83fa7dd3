package analysis

import (
	"math"
	"strconv"
	"strings"
)

// The report prints numbers compactly: enough digits to compare two runs,
// never so many that a column of them is hard to scan. These helpers are the
// only place that decides how a number looks in a table.

// noValue stands in for a number that was not measured (a zero Stat, an
// unset config field), so that "0" always means a measured zero.
const noValue = "-"

// formatInt formats n with thousands separators: 1234567 → "1,234,567".
func formatInt(n int64) string {
	return groupThousands(strconv.FormatInt(n, 10))
}

// formatFixed formats v with the given number of decimals and thousands
// separators in the integer part: (1234.56, 1) → "1,234.6". NaN and
// infinities print as noValue: they never come from a measurement.
func formatFixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return noValue
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', decimals, 64) {
		s = s[1:] // rounding a tiny negative gives "-0.0"
	}
	return groupThousands(s)
}

// formatCompact keeps about three significant digits for small values and
// one decimal for the others: 0.123, 4.56, 12.3, 1,234.5. Exact zero prints
// as "0". Rates, durations and mean occupancy use it.
func formatCompact(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 10:
		return formatFixed(v, 1)
	case a >= 1:
		return formatFixed(v, 2)
	default:
		return formatFixed(v, 3)
	}
}

// formatMS prints a duration given in seconds as milliseconds with one
// decimal (12.3, 1,234.5): the same decimals down a column keep the digits
// aligned, and a tenth of a millisecond is below what anyone serving an LLM
// acts on. Exact zero prints as "0".
func formatMS(seconds float64) string {
	if seconds == 0 {
		return "0"
	}
	return formatFixed(1000*seconds, 1)
}

// formatTokens prints a token count statistic: whole tokens from 100 on,
// where a fraction of a token is noise, one decimal below.
func formatTokens(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 100 {
		return formatFixed(v, 0)
	}
	return formatFixed(v, 1)
}

// formatPercent prints a fraction as a percentage with one decimal:
// 0.4567 → "45.7%".
func formatPercent(fraction float64) string {
	return formatFixed(100*fraction, 1) + "%"
}

// groupThousands inserts commas into the integer part of a formatted
// number, keeping its sign and decimals.
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return sign + s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3 + 1)
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	if hasFrac {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
