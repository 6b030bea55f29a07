package capacity

import (
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Num(8), "8"}, {Num(2.5), "2.5"}, {Num(0.08), "0.08"}, {Num(93.4523), "93.45"}, {Num(1234.4), "1,234"},
		{Num(-2), "−2"}, {Num(0), "0"},
		{Money(f(4), "USD"), "4.000 USD"}, {Money(f(18), ""), "18.00"}, {Money(f(0.95293), "EUR"), "0.9529 EUR"},
		{Money(f(0.00019343), ""), "0.0001934"}, {Money(f(1234.5), ""), "1,234.50"}, {Money(nil, "USD"), "—"},
		{Pct(0.8), "80 %"}, {Pct(0.925), "92.5 %"},
		{Count(1, "replica"), "1 replica"}, {Count(1200, "window"), "1,200 windows"},
		{SLOWords(schemas.SLO{TTFT: f(2), TPOT: f(0.022), E2E: f(0.5)}), "ttft ≤ 2 s, tpot ≤ 22 ms, e2e ≤ 500 ms"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	p := Plan{Run: "runs/a", Replicas: ptrInt(5), Basis: ByThroughput, CostPerHour: f(20), Currency: "USD"}
	if got, want := Answer(p), "5 replicas (by throughput), 20.00 USD per hour"; got != want {
		t.Errorf("Answer = %q, want %q", got, want)
	}
	q := Plan{Run: "runs/b", Replicas: ptrInt(5), Basis: ByLittle, CostPerHour: f(20), Currency: "USD"}
	if got, want := Fewest([]Plan{p, q, {Run: "runs/c", Replicas: ptrInt(6)}}), "fewest replicas: runs/a and runs/b, 5 replicas at 20.00 USD per hour"; got != want {
		t.Errorf("Fewest = %q, want %q", got, want)
	}
}

func ptrInt(n int64) *int64 { return &n }
