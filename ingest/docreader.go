package ingest

import "github.com/tpsreport/tpsreport/ingest/internal/scan"

// docReader reads an input as a sequence of JSON documents (scan.Docs: one
// held in memory at a time, up to a cap) and turns each into records with
// decode. vllm bench results and inference-perf reports are read so: a
// document's records are all of its requests.
// maxDocument bounds one document a whole-document format holds in memory
// (vllm bench's result, inference-perf's and llmperf's reports, a line of
// sglang.bench_serving's output), as guidellmMaxInput bounds GuideLLM's: a
// document past it is an error of one line, in seconds, not gigabytes of a
// decompressed bomb held and parsed.
const maxDocument = 256 << 20

type docReader struct {
	name string
	docs *scan.Docs
	// decode appends the records of document k (from 0), which starts at
	// line, to out.
	decode func(data []byte, line int64, k int, out []Record) []Record
	k      int      // number of the next document, from 0
	recs   []Record // the records of the current document
	i      int
	rec    Record
	err    error
}

func newDocReader(in Input, max int64, decode func(data []byte, line int64, k int, out []Record) []Record) docReader {
	return docReader{name: in.Name, docs: scan.NewDocs(in.Name, nil, in.R, max), decode: decode}
}

// Record implements Reader.
func (r *docReader) Record() *Record { return &r.rec }

// Err implements Reader.
func (r *docReader) Err() error { return r.err }

// Next implements Reader.
func (r *docReader) Next() bool {
	for r.i >= len(r.recs) {
		clear(r.recs)
		r.recs, r.i = r.recs[:0], 0
		d, ok := r.docs.Next()
		if !ok {
			r.err = r.docs.Err()
			return false
		}
		if d.Bad != nil {
			r.recs = append(r.recs, Record{Kind: KindReject, Line: d.Line, Raw: d.Raw, Err: parseErrorAt(r.name, d.Line, d.Bad)})
			continue
		}
		r.recs = r.decode(d.Data, d.Line, r.k, r.recs)
		r.k++
	}
	r.rec = r.recs[r.i]
	r.recs[r.i] = Record{}
	r.i++
	return true
}
