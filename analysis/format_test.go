package analysis

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"int small", formatInt(999), "999"},
		{"int thousands", formatInt(1000), "1,000"},
		{"int millions", formatInt(1234567), "1,234,567"},
		{"int negative", formatInt(-1234567), "-1,234,567"},
		{"int zero", formatInt(0), "0"},
		{"fixed", formatFixed(1234.56, 1), "1,234.6"},
		{"fixed no decimals", formatFixed(123456.7, 0), "123,457"},
		{"fixed negative zero", formatFixed(-0.01, 1), "0.0"},
		{"fixed NaN", formatFixed(math.NaN(), 1), noValue},
		{"fixed Inf", formatFixed(math.Inf(1), 1), noValue},
		{"compact zero", formatCompact(0), "0"},
		{"compact tiny", formatCompact(0.1234), "0.123"},
		{"compact small", formatCompact(4.567), "4.57"},
		{"compact medium", formatCompact(12.34), "12.3"},
		{"compact large", formatCompact(1234.56), "1,234.6"},
		{"ms", formatMS(0.01234), "12.3"},
		{"ms large", formatMS(1.23456), "1,234.6"},
		{"ms zero", formatMS(0), "0"},
		{"tokens small", formatTokens(12.34), "12.3"},
		{"tokens large", formatTokens(8001.4), "8,001"},
		{"tokens zero", formatTokens(0), "0"},
		{"percent", formatPercent(0.4567), "45.7%"},
		{"percent full", formatPercent(1), "100.0%"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
