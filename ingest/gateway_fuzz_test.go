package ingest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tpsreport/tpsreport/schemas"
)

// fuzzGateway seeds f with a format's fixtures and checks that its reader
// never panics, ends, delivers rejects as *ParseError wrapping a sentinel
// kind, skips with a reason, and spans with a valid status and an id.
func fuzzGateway(f *testing.F, format string, m *Mapping) {
	files, _ := filepath.Glob(filepath.Join("testdata", format, "*.*.*"))
	for _, file := range files {
		if filepath.Ext(file) == ".yaml" || filepath.Ext(file) == ".want" {
			continue
		}
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
			if i := bytes.IndexByte(b, '\n'); i > 0 {
				f.Add(b[:i])
			}
		}
	}
	f.Add([]byte("[1,{}]"))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := formats[format].New(Input{Name: "fuzz", R: bytes.NewReader(data), MaxLineBytes: 4096, Mapping: m})
		for n := 0; rd.Next(); n++ {
			if n > len(data)+10 {
				t.Fatalf("more records than bytes")
			}
			rec := rd.Record()
			switch rec.Kind {
			case KindReject:
				var pe *ParseError
				if !errors.As(error(rec.Err), &pe) || pe.File != "fuzz" || pe.Err == nil {
					t.Fatalf("reject error %#v", rec.Err)
				}
				kind := pe.Kind()
				if kind == "" {
					t.Fatalf("no kind: %v", pe)
				}
				if len(redactRaw(rec.Raw)) > rawLimit {
					t.Fatalf("raw too long")
				}
			case KindSpan:
				if rec.Span.SpanID == "" || !schemas.ValidStatus(rec.Span.Status) || rec.Span.Source != format {
					t.Fatalf("span %+v", rec.Span)
				}
			case KindSkip:
				if rec.Skip == SkipOther || rec.Skip >= numSkipReasons {
					t.Fatalf("skip without a reason: %+v", rec)
				}
			default:
				t.Fatalf("kind %v", rec.Kind)
			}
		}
	})
}

func FuzzLiteLLM(f *testing.F)   { fuzzGateway(f, SourceLiteLLM, nil) }
func FuzzOTelGenAI(f *testing.F) { fuzzGateway(f, SourceOTelGenAI, nil) }
func FuzzEnvoyAI(f *testing.F)   { fuzzGateway(f, SourceEnvoyAI, nil) }
func FuzzKong(f *testing.F)      { fuzzGateway(f, SourceKong, nil) }

func FuzzMapping(f *testing.F) {
	m, err := LoadMapping("testdata/mapping/nginx.yaml")
	if err != nil {
		f.Fatal(err)
	}
	fuzzGateway(f, SourceMapping, m)
}
