package ingest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
)

// vllmTestReader returns the reader of format name over r. The year of
// vLLM stamps without an outer stamp is pinned, so that goldens do not
// depend on when the test runs.
func vllmTestReader(name, file string, r io.Reader) Reader {
	return formats[name].New(Input{Name: file, R: r, MaxLineBytes: DefaultMaxLineBytes, Year: 2025})
}

// vllmFixtureDirs maps each vLLM format to its fixture directory.
var vllmFixtureDirs = map[string]string{
	"vllm-log":   "testdata/vllm/log",
	"vllm-otel":  "testdata/vllm/otel",
	"prometheus": "testdata/vllm/prometheus",
	"vllm-bench": "testdata/vllm/bench",
}

// vllmReadAll reads every record of file in format name.
func vllmReadAll(t testing.TB, name, file string) []Record {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := vllmTestReader(name, file, f)
	var recs []Record
	for rd.Next() {
		rec := *rd.Record()
		rec.Raw = bytes.Clone(rec.Raw)
		recs = append(recs, rec)
	}
	if err := rd.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return recs
}

// vllmGoldenText renders records as the golden files hold them: one JSON
// object per record that is not a skip, then the counts by kind.
func vllmGoldenText(t testing.TB, recs []Record) []byte {
	var out bytes.Buffer
	counts := map[string]int{}
	for _, rec := range recs {
		counts[rec.Kind.String()]++
		var v any
		switch rec.Kind {
		case KindSkip:
			continue
		case KindSpan:
			v = rec.Span
		case KindSample:
			v = rec.Sample
		case KindCap:
			v = rec.Cap
		case KindStage:
			v = rec.Stage
		case KindReject:
			v = rec.Err.Error()
		}
		b, err := json.Marshal(struct {
			Line   int64  `json:"line,omitempty"`
			Offset int64  `json:"offset,omitempty"`
			Kind   string `json:"kind"`
			Value  any    `json:"value"`
		}{rec.Line, rec.Offset, rec.Kind.String(), v})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	b, _ := json.Marshal(counts) // map keys are sorted
	fmt.Fprintf(&out, "counts %s\n", b)
	return out.Bytes()
}

// vllmFixtures lists the fixtures of format name whose names contain kind
// (".good." or ".bad.").
func vllmFixtures(t testing.TB, name, kind string) []string {
	files, _ := filepath.Glob(filepath.Join(vllmFixtureDirs[name], "*"))
	var out []string
	for _, f := range files {
		if strings.Contains(filepath.Base(f), kind) && !strings.HasSuffix(f, ".want") {
			out = append(out, f)
		}
	}
	return out
}

// TestVLLMGolden reads every *.good.* fixture of the vLLM formats and
// compares what it gives with testdata/vllm/golden/FORMAT/NAME.golden. A good
// fixture must produce no reject.
func TestVLLMGolden(t *testing.T) {
	for _, name := range vllmSortedKeys(vllmFixtureDirs) {
		files := vllmFixtures(t, name, ".good.")
		if len(files) == 0 {
			t.Errorf("%s: no fixtures", name)
		}
		for _, file := range files {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				recs := vllmReadAll(t, name, file)
				for _, rec := range recs {
					if rec.Kind == KindReject {
						t.Errorf("unexpected reject: %v", rec.Err)
					}
				}
				dir := filepath.Join("testdata/vllm/golden", name)
				if updateGolden {
					_ = os.MkdirAll(dir, 0o755)
				}
				golden(t, filepath.Join(dir, filepath.Base(file)+".golden"), vllmGoldenText(t, recs))
			})
		}
	}
}

// TestVLLMBad reads every *.bad.* fixture: the records listed in NAME.want
// ("line:col: kind: reason", one per reject, in order) must be exactly the
// rejects, each a *ParseError naming the file.
func TestVLLMBad(t *testing.T) {
	for _, name := range vllmSortedKeys(vllmFixtureDirs) {
		for _, file := range vllmFixtures(t, name, ".bad.") {
			t.Run(name+"/"+filepath.Base(file), func(t *testing.T) {
				want := strings.TrimSuffix(file, filepath.Ext(file)) + ".want"
				golden(t, want, rejectLines(t, file, vllmReadAll(t, name, file)))
			})
		}
	}
}

// rejectLines renders a fixture's rejects as its .want file holds them,
// "line:col: kind: reason" ("@offset" in a document), one per reject in
// order; each must be a *ParseError naming file.
func rejectLines(t *testing.T, file string, recs []Record) []byte {
	t.Helper()
	var got bytes.Buffer
	for _, rec := range recs {
		if rec.Kind != KindReject {
			continue
		}
		var pe *ParseError
		if !errors.As(error(rec.Err), &pe) || pe.File != file {
			t.Fatalf("reject error %#v", rec.Err)
		}
		pos := fmt.Sprint(pe.Line)
		if pe.Line == 0 {
			pos = "@" + fmt.Sprint(rec.Offset)
		}
		if pe.Column > 0 {
			pos += ":" + fmt.Sprint(pe.Column)
		}
		fmt.Fprintf(&got, "%s: %s: %s\n", pos, pe.Kind(), pe.Err)
	}
	return got.Bytes()
}

func vllmSortedKeys[M ~map[K]V, K cmp.Ordered, V any](m M) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// vllmDetect is detectFormat with the winner's score and every score.
func vllmDetect(head []byte) (string, int, map[string]int) {
	all := formats
	scores := map[string]int{}
	best, bestScore := "", 0
	for _, name := range vllmSortedKeys(all) {
		s := all[name].Sniff(head)
		scores[name] = s
		if s > bestScore {
			best, bestScore = name, s
		}
	}
	return best, bestScore, scores
}

// TestVLLMSniff checks that every fixture, good or bad, is claimed by its
// own format with the highest score.
func TestVLLMSniff(t *testing.T) {
	for name := range vllmFixtureDirs {
		files := append(vllmFixtures(t, name, ".good."), vllmFixtures(t, name, ".bad.")...)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head := b[:min(len(b), scan.SniffBytes)]
			got, score, scores := vllmDetect(head)
			if got != name {
				t.Errorf("%s: detected %q (%d), want %q; scores %v", file, got, score, name, scores)
			}
		}
	}
}

// vllmPercentile is numpy's default (linear) percentile of sorted xs.
func vllmPercentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	h := float64(len(xs)-1) * p / 100
	lo := int(math.Floor(h))
	hi := min(lo+1, len(xs)-1)
	return xs[lo] + (h-float64(lo))*(xs[hi]-xs[lo])
}

// TestVLLMBenchReproducesSummary recomputes, for every bench document with
// per-request data, vLLM's own mean/median/p99 of TTFT, TPOT (excluding the
// first token) and E2EL from our spans with our definitions (ttft =
// first_token_at − queued_at, tpot = t_stream / (output_tokens − 1), e2e =
// t_total), and output_throughput as total output tokens / duration.
//
// Tolerance: the µs-rounding bound, which is the larger here. Every span
// instant is rounded to the µs once, and first_token_at and released_at are
// queued_at plus a rounded duration, so ttft and e2e are within 0.5 µs of
// the file's values, and tpot within 1 µs / (output_tokens − 1); means and
// linear percentiles move by no more than their inputs. 1e-9 relative
// covers float64 summation order.
func TestVLLMBenchReproducesSummary(t *testing.T) {
	checked := 0
	for _, file := range vllmFixtures(t, "vllm-bench", ".good.") {
		recs := vllmReadAll(t, "vllm-bench", file)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for doc := 1; ; doc++ {
			var sum map[string]any
			if err := dec.Decode(&sum); err == io.EOF {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			if _, ok := sum["start_times"]; !ok {
				continue
			}
			prefix := sum["date"].(string)
			if l, _ := sum["label"].(string); l != "" {
				prefix = l + "/" + prefix
			}
			var ttft, tpot, e2e []float64
			var out int64
			minOut := int64(math.MaxInt64)
			for _, rec := range recs {
				sp := rec.Span
				if rec.Kind != KindSpan || !strings.HasPrefix(sp.SpanID, prefix+"#") {
					continue
				}
				if sp.OutputTokens != nil {
					out += *sp.OutputTokens
				}
				if sp.Status != "ok" {
					continue
				}
				us := func(a, b *int64) float64 { return float64(*a-*b) / 1e6 }
				ttft = append(ttft, us(sp.FirstTokenAt, sp.QueuedAt))
				e2e = append(e2e, us(sp.ReleasedAt, sp.QueuedAt))
				if n := *sp.OutputTokens; n > 1 {
					tpot = append(tpot, us(sp.LastTokenAt, sp.FirstTokenAt)/float64(n-1))
					minOut = min(minOut, n)
				}
			}
			if len(ttft) == 0 {
				t.Fatalf("%s doc %d: no spans", file, doc)
			}
			for _, m := range []struct {
				name string
				vals []float64
				tol  float64 // seconds
			}{{"ttft", ttft, 0.5e-6}, {"e2el", e2e, 0.5e-6}, {"tpot", tpot, 1e-6 / float64(minOut-1)}} {
				slices.Sort(m.vals)
				mean := 0.0
				for _, v := range m.vals {
					mean += v
				}
				mean /= float64(len(m.vals))
				for _, st := range []struct {
					key string
					got float64
				}{{"mean_" + m.name + "_ms", mean}, {"median_" + m.name + "_ms", vllmPercentile(m.vals, 50)}, {"p99_" + m.name + "_ms", vllmPercentile(m.vals, 99)}} {
					want := sum[st.key].(float64)
					if d := math.Abs(st.got*1000 - want); d > m.tol*1000+1e-9*math.Abs(want) {
						t.Errorf("%s doc %d: %s: got %.9f ms, file says %.9f ms (|Δ| %.3g ms > %.3g)", file, doc, st.key, st.got*1000, want, d, m.tol*1000)
					}
				}
			}
			tput := float64(out) / sum["duration"].(float64)
			if want := sum["output_throughput"].(float64); math.Abs(tput-want) > 1e-9*want {
				t.Errorf("%s doc %d: output tokens / duration = %v, output_throughput %v", file, doc, tput, want)
			}
			checked++
		}
	}
	if checked < 2 {
		t.Errorf("checked %d bench documents with per-request data, want at least 2", checked)
	}
}
