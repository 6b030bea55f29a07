package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSON writes report.json: everything report.html shows, as data, in the
// units of docs/metrics.md (seconds, fractions 0..1, tokens per second), with
// the values as shown beside them where the page formats them. The output is deterministic:
// no wall-clock time, NULL and NaN both as null.
func JSON(w io.Writer, in Input) error {
	return writeJSON(w, newDocument(in))
}

func writeJSON(w io.Writer, d *document) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report.json: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
