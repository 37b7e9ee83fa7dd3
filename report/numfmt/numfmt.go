// Package numfmt decides how a number looks in thinkcap's tables and
// messages: thousands separators, milliseconds, percentages, token counts,
// and "-" for a figure that was not measured. It is the only place that
// does, so that every report and every alert prints a figure the same way.
package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// Numbers print compactly: enough digits to compare two runs, never so many
// that a column of them is hard to scan.

// NoValue stands in for a number that was not measured (a zero Stat, an
// unset config field), so that "0" always means a measured zero.
const NoValue = "-"

// Int formats n with thousands separators: 1234567 → "1,234,567".
func Int(n int64) string {
	return GroupThousands(strconv.FormatInt(n, 10))
}

// Fixed formats v with the given number of decimals and thousands
// separators in the integer part: (1234.56, 1) → "1,234.6". NaN and
// infinities print as NoValue: they never come from a measurement.
func Fixed(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return NoValue
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', decimals, 64) {
		s = s[1:] // rounding a tiny negative gives "-0.0"
	}
	return GroupThousands(s)
}

// Compact keeps about three significant digits for small values and
// one decimal for the others: 0.123, 4.56, 12.3, 1,234.5. Exact zero prints
// as "0". Rates, durations and mean occupancy use it.
func Compact(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0:
		return "0"
	case a >= 10:
		return Fixed(v, 1)
	case a >= 1:
		return Fixed(v, 2)
	default:
		return Fixed(v, 3)
	}
}

// MS prints a duration given in seconds as milliseconds with one
// decimal (12.3, 1,234.5): the same decimals down a column keep the digits
// aligned, and a tenth of a millisecond is below what anyone serving an LLM
// acts on. Exact zero prints as "0".
func MS(seconds float64) string {
	if seconds == 0 {
		return "0"
	}
	return Fixed(1000*seconds, 1)
}

// Tokens prints a token count statistic: whole tokens from 100 on,
// where a fraction of a token is noise, one decimal below.
func Tokens(v float64) string {
	if v == 0 {
		return "0"
	}
	if math.Abs(v) >= 100 {
		return Fixed(v, 0)
	}
	return Fixed(v, 1)
}

// Percent prints a fraction as a percentage with one decimal:
// 0.4567 → "45.7%".
func Percent(fraction float64) string {
	return Fixed(100*fraction, 1) + "%"
}

// GroupThousands inserts commas into the integer part of a formatted
// number, keeping its sign and decimals.
func GroupThousands(s string) string {
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
