// Package histogram holds the log-linear histograms that let the simulator,
// the load generator and the statistics report latency quantiles over
// hundreds of millions of values in memory that follows the values' range,
// not their number.
//
// A log-linear histogram splits every power of two into equal sub-buckets,
// so that a bucket spans a fixed fraction of the values in it, whatever
// their scale. Durations (one goroutine) and AtomicDurations (many, without
// a lock) count whole nanoseconds in 64 sub-buckets per power of two (about
// 1% resolution) in a fixed array, allocation-free on the simulator's step
// loop; Sketch counts any float64 in 512 sub-buckets per power of two.
package histogram
