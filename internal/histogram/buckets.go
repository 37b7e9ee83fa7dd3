package histogram

import (
	"math"
	"math/bits"
)

// subBits is log2 of the sub-buckets per power of two of a duration
// histogram: 64, about 1% resolution.
const subBits = 6

// Buckets is the number of buckets of a duration histogram: every
// non-negative int64 of nanoseconds has one.
const Buckets = 64 * 64

// Bucket is the bucket of ns nanoseconds: below 64 each nanosecond its own
// (negative durations count as 0), above 64 sub-buckets per power of two.
func Bucket(ns int64) int {
	if ns < 1<<subBits {
		return int(max(ns, 0))
	}
	exp := bits.Len64(uint64(ns)) - 1 - subBits
	return (exp+1)<<subBits + int(ns>>uint(exp)) - 1<<subBits
}

// Mid is the midpoint of bucket i in nanoseconds.
func Mid(i int) float64 {
	if i < 1<<subBits {
		return float64(i)
	}
	exp := i>>subBits - 1
	lo := float64(int64(i&(1<<subBits-1)+1<<subBits) << uint(exp))
	return lo + float64(int64(1)<<uint(exp))/2
}

// rankMid is the midpoint (in nanoseconds) of the bucket holding rank
// ⌈q × n⌉ of n values, count(i) being bucket i's count.
func rankMid(n int64, q float64, count func(i int) int64) float64 {
	rank := max(int64(math.Ceil(q*float64(n))), 1)
	var seen int64
	for i := range Buckets {
		seen += count(i)
		if seen >= rank {
			return Mid(i)
		}
	}
	return Mid(Buckets - 1)
}
