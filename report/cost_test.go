package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/capacity"
)

// costInputs are the single and compare fixtures priced at 4 USD per
// replica-hour, the single one with a capacity plan for 1,200 RPM.
func singleCostInput(t *testing.T) Input {
	in := singleInput()
	r := &in.Baseline
	c := capacity.Price(r.Summary, r.Windows, capacity.Pricing{ReplicaCostPerHour: 4, Currency: "USD"}, 0)
	r.Summary.Cost = &c
	s := capacity.Settings{TargetRPM: 1200, Attainment: 0.9, Utilization: 0.8}
	p, err := capacity.Size(capacity.Measured{Name: r.Dir, Summary: r.Summary, Windows: r.Windows}, s)
	if err != nil {
		t.Fatal(err)
	}
	in.Plans = &Plans{Settings: s, Plans: []capacity.Plan{p}}
	return in
}

func compareCostInput() Input {
	in := compareInput()
	ch, _ := capacity.Compare(in.Baseline.Summary, in.Candidate.Summary, in.Baseline.Windows, in.Candidate.Windows,
		&capacity.Pricing{ReplicaCostPerHour: 4, Currency: "USD"})
	in.Verdict.Cost = ch
	return in
}

func TestCostGolden(t *testing.T) {
	for name, in := range map[string]Input{"single_cost": singleCostInput(t), "compare_cost": compareCostInput()} {
		t.Run(name, func(t *testing.T) {
			var md, js bytes.Buffer
			if err := Markdown(&md, in); err != nil {
				t.Fatal(err)
			}
			if err := JSON(&js, in); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".summary.md", md.Bytes())
			golden(t, name+".report.json", js.Bytes())
		})
	}
}

// TestCostSections: the HTML has a cost section with each figure and, in a
// comparison, the headline and each change; the capacity plan shows both
// routes; neither appears without a price or a target.
func TestCostSections(t *testing.T) {
	var page bytes.Buffer
	if err := HTML(&page, compareCostInput()); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, want := range []string{`<section id="cost">`, `<a href="#cost">Cost</a>`, `data-metric="cost_per_million_tokens_saturated"`,
		"Both runs priced alike at compare's price", "4.000 USD per replica-hour × 1 replica (assumed: the logs name none)"} {
		if !strings.Contains(s, want) {
			t.Errorf("compare report lacks %q", want)
		}
	}
	if !strings.Contains(s, `<p class="headline">Saves `) {
		t.Errorf("compare report lacks the cost headline")
	}
	page.Reset()
	if err := HTML(&page, singleCostInput(t)); err != nil {
		t.Fatal(err)
	}
	s = page.String()
	for _, want := range []string{`<section id="capacity">`, "By Little's law", "Plan for 1,200 RPM (20 req/s) at 80 % utilization."} {
		if !strings.Contains(s, want) {
			t.Errorf("single report lacks %q", want)
		}
	}
	page.Reset()
	if err := HTML(&page, singleInput()); err != nil {
		t.Fatal(err)
	}
	if s := page.String(); strings.Contains(s, `id="cost"`) || strings.Contains(s, `id="capacity"`) {
		t.Error("a report without a price or a target has a cost or capacity section")
	}
}

func TestIndexCost(t *testing.T) {
	single := singleCostInput(t)
	runs := []IndexEntry{{Name: "a", Summary: singleInput().Baseline.Summary}, {Name: "b", Summary: single.Baseline.Summary}}
	var page bytes.Buffer
	if err := IndexHTML(&page, t.TempDir(), "test", runs); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	want := ">" + capacity.Money(single.Baseline.Summary.Cost.CostPerMillionTokens, "") + "<"
	for _, w := range []string{"cost per M tokens (USD)", want, `id="chart-trend_cost_per_million_tokens"`} {
		if !strings.Contains(s, w) {
			t.Errorf("index lacks %q", w)
		}
	}
}
