package schemas

// The files of a run dataset (README.md "A run dataset"): what ingest writes,
// then what analyze adds. Every package names them from here.
const (
	SpansFile    = "spans.parquet"
	SamplesFile  = "samples.parquet"
	ManifestFile = "manifest.json"
	RejectsFile  = "rejects.jsonl"

	SummaryFile  = "summary.json"
	WindowsFile  = "windows.parquet"
	RequestsFile = "requests.parquet"
	// LatenciesFile holds one row per delivered request: its latencies as
	// the user saw them (docs/metrics.md "Requests and SLOs").
	LatenciesFile = "latencies.parquet"
	CurvesFile    = "curves.json"
)

// DerivedFiles are the files analyze adds to a run dataset. They describe
// the data they were computed from, so an ingest that replaces the data
// removes every one of them.
var DerivedFiles = []string{SummaryFile, WindowsFile, RequestsFile, LatenciesFile, CurvesFile, BudgetFile, RolesFile}

// Curves is curves.json: the report's inputs beyond the windows.
type Curves struct {
	TTFT        []float64          `json:"ttft"`    // quantiles 0, 0.01, …, 1 (s)
	TQueue      []float64          `json:"t_queue"` // quantiles 0, 0.01, …, 1 (s)
	Concurrency []ConcurrencyPoint `json:"concurrency"`
}

// ConcurrencyPoint is the median stream_tps of the successful spans whose
// stream midpoint saw InFlight requests in flight in the pool.
type ConcurrencyPoint struct {
	InFlight  float64 `json:"in_flight"`
	StreamTPS float64 `json:"stream_tps"`
	N         int64   `json:"n"`
}

// RunResult is an analysed run as the later stages read it: what analyze
// derived (summary.json, windows.parquet, curves.json) and the dataset's
// manifest.
type RunResult struct {
	Summary  Summary
	Windows  []Metrics
	Curves   Curves
	Manifest Manifest
}
