// Package truth holds the end-to-end truth tests: every simulator scenario,
// written in every format the simulator speaks, ingested and analysed
// through the packages' own entry points (ingest.Run, analyze.Run), must
// give back the simulator's truth.json to the microsecond, for the run,
// every window and every replica. They sit apart from cmd/tpsreport's
// command tests so that go test runs the two side by side.
package truth
