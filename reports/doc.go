// Package reports records simulations and compares them: loopsim's
// regression reports.
//
// A [Record] is a self-describing Parquet file of one simulation: a
// header (schema version, the command line, every setting with every
// policy value and workload parameter, the root seed, the prices, the
// module version and VCS revision, the Go version) in the file's
// key/value metadata, one row per episode keyed by the episode's seed,
// and the behaviour of the scenario library at the recording commit
// (each scenario's verdict, terminal, transitions, requests and trace).
// DuckDB, pandas or polars read the rows as they are.
//
// [Compare] sets a candidate record against a base record, setting by
// setting and metric by metric: the delta with a 95% confidence
// interval, a p-value (Wilcoxon signed-rank paired by episode seed when
// both played the same episodes, Mann-Whitney U otherwise; McNemar's
// exact test or the two-proportion z-test for rates), Holm's correction
// across the metrics of a report, an effect size, and a verdict. It also
// lists what changed in behaviour: scenarios whose verdict, terminal,
// transitions, requests or trace changed, and invariant violations new
// in the candidate. A [Comparison] writes itself as Markdown, JSON and
// plots, and [Rules] decide whether it is a regression.
package reports
