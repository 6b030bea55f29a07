package sim_test

import (
	"bytes"
	"fmt"
	"io"

	"github.com/tpsreport/tpsreport/sim"
)

// A baseline with admission stalls and the same traffic without them: the
// numbers a comparison of the two runs must find.
func Example() {
	for _, name := range []string{"stall", "fixed"} {
		sc, err := sim.Named(name)
		if err != nil {
			panic(err)
		}
		var spans, samples, truth bytes.Buffer
		tr, err := sim.WriteJSONL(&spans, &samples, sc, 1)
		if err != nil {
			panic(err)
		}
		if err := sim.WriteTruth(&truth, tr); err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d spans, system_tps %.0f, gap_fraction %.2f\n", name, tr.Spans, *tr.SystemTPS, *tr.GapFraction)
	}
	// Output:
	// stall: 2852 spans, system_tps 1243, gap_fraction 0.32
	// fixed: 2852 spans, system_tps 1378, gap_fraction 0.00
}

// Run streams spans to any sink; a Writer is one file format.
func ExampleRun() {
	sc, _ := sim.Named("light")
	w := sim.NewJSONL(io.Discard, nil)
	tr, err := sim.Run(sc, 1, w.WriteSpan)
	if err == nil {
		err = w.Flush()
	}
	fmt.Println(tr.Requests, tr.SucceededRequests, err)
	// Output: 377 377 <nil>
}
