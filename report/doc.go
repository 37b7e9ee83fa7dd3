// Package report prints thinkcap's numbers for people: the terminal tables
// (summary, comparison, thresholds, SLOs, intervals, and the stats, drift, curve
// and fit reports of the log commands) and the PNG plots. It computes
// nothing: the numbers come from packages analysis and logstats, and how a
// number looks is decided in report/numfmt alone.
//
// Read first:
//   - table.go: [WriteTable], the summary report, in milliseconds and
//     percent; table_builder.go: how every report's tables are built
//     (writeReport, newAlignedTable, writeRows, classRows), and
//     [NewLabeledTable] and [NewAlignedTable] for other packages' tables.
//   - compare_table.go: [WriteComparison] and [ComparisonRows], a
//     prediction against a measurement; threshold_table.go:
//     [WriteThresholds]; slo_table.go: [WriteSLOs], simulate --slo.
//   - stats_table.go, drift_table.go, curve_table.go and fit_table.go: the
//     log commands' tables.
//   - plot.go: [WriteCurvePlot], accuracy against thinking budget;
//     plot_compare.go: [WriteCDFPlot], [WriteSeriesPlot] and [WriteXYPlot],
//     predicted against measured.
package report
