// Package capacity turns an analysed run's throughput into money and fleet
// size (docs/metrics.md "Cost and capacity"): what a token and a completion
// cost at a price per replica-hour, and how many replicas a target request
// rate needs, by throughput and by Little's law. It sits after analyze and
// beside compare: it reads summaries and windows, is pure Go, and analyze,
// compare, report and cmd/tpsreport call it.
package capacity
