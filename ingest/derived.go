package ingest

import (
	"fmt"
	"strconv"

	"github.com/tpsreport/tpsreport/schemas"
)

// noticer is implemented by a Reader that has something to say about its
// input once it is read: records it resynchronised past, ids it derived.
// Run logs each notice as a warning. (Readers take no logger: a notice is
// said once per input, not per record.)
type noticer interface {
	notices() []string
}

// derivedIDs gives a span that has no id of its own (an OTLP span without
// spanId: pasted, or from a debug exporter) one from its place, and counts
// them for a notice.
type derivedIDs struct {
	n     int64
	first string
}

// derive sets sp's span_id, and its request_id when it has none, to
// FILE:LINE:N (or FILE@OFFSET:N when the input has no lines), N being the
// span's 1-based place in its document.
func (d *derivedIDs) derive(sp *schemas.Span, file string, line, off int64, n int) {
	var id string
	if line > 0 {
		id = file + ":" + strconv.FormatInt(line, 10) + ":" + strconv.Itoa(n)
	} else {
		id = file + "@" + strconv.FormatInt(off, 10) + ":" + strconv.Itoa(n)
	}
	sp.SpanID = id
	if sp.RequestID == "" {
		sp.RequestID = id
	}
	d.n++
	if d.first == "" {
		d.first = id
	}
}

// notice says how many ids were derived, or "" when none was.
func (d *derivedIDs) notice(file string) string {
	if d.n == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %d span(s) without spanId got an id derived from the file and their position, the first %q", file, d.n, d.first)
}

// notices implements noticer.
func (r *vllmOTelReader) notices() []string {
	if s := r.ids.notice(r.name); s != "" {
		return []string{s}
	}
	return nil
}
