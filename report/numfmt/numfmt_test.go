package numfmt

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
		{"int small", Int(999), "999"},
		{"int thousands", Int(1000), "1,000"},
		{"int millions", Int(1234567), "1,234,567"},
		{"int negative", Int(-1234567), "-1,234,567"},
		{"int zero", Int(0), "0"},
		{"fixed", Fixed(1234.56, 1), "1,234.6"},
		{"fixed no decimals", Fixed(123456.7, 0), "123,457"},
		{"fixed negative zero", Fixed(-0.01, 1), "0.0"},
		{"fixed NaN", Fixed(math.NaN(), 1), NoValue},
		{"fixed Inf", Fixed(math.Inf(1), 1), NoValue},
		{"compact zero", Compact(0), "0"},
		{"compact tiny", Compact(0.1234), "0.123"},
		{"compact small", Compact(4.567), "4.57"},
		{"compact medium", Compact(12.34), "12.3"},
		{"compact large", Compact(1234.56), "1,234.6"},
		{"ms", MS(0.01234), "12.3"},
		{"ms large", MS(1.23456), "1,234.6"},
		{"ms zero", MS(0), "0"},
		{"tokens small", Tokens(12.34), "12.3"},
		{"tokens large", Tokens(8001.4), "8,001"},
		{"tokens zero", Tokens(0), "0"},
		{"percent", Percent(0.4567), "45.7%"},
		{"percent full", Percent(1), "100.0%"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}
