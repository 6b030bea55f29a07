package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestWriteFormatsDeterministic: one seed gives byte-identical files in every
// format; another seed gives different ones.
func TestWriteFormatsDeterministic(t *testing.T) {
	for _, name := range []string{"retry-storm", "multi-replica"} {
		t.Run(name, func(t *testing.T) {
			sc, err := Named(name)
			if err != nil {
				t.Fatal(err)
			}
			sc.Duration /= 3
			dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
			for i, seed := range []uint64{7, 7, 8} {
				if _, err := WriteFormats(dirs[i], sc, seed); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range append(Formats(), TruthFile) {
				if f != TruthFile {
					f = FormatFile(f)
				}
				a, b, c := readFile(t, dirs[0], f), readFile(t, dirs[1], f), readFile(t, dirs[2], f)
				if len(a) == 0 {
					t.Errorf("%s is empty", f)
				}
				if !bytes.Equal(a, b) {
					t.Errorf("%s: seed 7 twice gives different bytes", f)
				}
				if bytes.Equal(a, c) {
					t.Errorf("%s: seeds 7 and 8 give the same bytes", f)
				}
			}
		})
	}
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWriteFormatsContent checks the records of each format against the
// canonical run: one OTel llm_request span per admitted attempt, one LiteLLM
// payload per attempt and no text field, one vLLM stats line per sample and
// one max_num_seqs line per replica.
func TestWriteFormatsContent(t *testing.T) {
	sc, err := Named("multi-replica")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration /= 3
	dir := t.TempDir()
	tr, err := WriteFormats(dir, sc, 3)
	if err != nil {
		t.Fatal(err)
	}
	var admitted, statuses = int64(0), map[string]int64{}
	if _, err := Run(sc, 3, func(sp schemas.Span) error {
		if sp.AdmittedAt != nil {
			admitted++
		}
		statuses[sp.Status]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// OTel: valid JSON lines, one resource (a replica) per line.
	var spans int64
	reps := map[string]bool{}
	eachLine(t, dir, FormatFile(FormatVLLMOTel), func(line []byte) {
		var doc struct {
			ResourceSpans []struct {
				Resource struct {
					Attributes []struct {
						Key   string
						Value struct{ StringValue string }
					}
				}
				ScopeSpans []struct{ Spans []struct{ Name string } }
			}
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatalf("otel line: %v", err)
		}
		if len(doc.ResourceSpans) != 1 {
			t.Fatalf("otel line with %d resources", len(doc.ResourceSpans))
		}
		for _, a := range doc.ResourceSpans[0].Resource.Attributes {
			if a.Key == "service.instance.id" {
				reps[a.Value.StringValue] = true
			}
		}
		for _, ss := range doc.ResourceSpans[0].ScopeSpans {
			for _, s := range ss.Spans {
				if s.Name != "llm_request" {
					t.Fatalf("span %q", s.Name)
				}
				spans++
			}
		}
	})
	if spans != admitted || len(reps) != sc.Replicas {
		t.Errorf("otel: %d spans of %d replicas, want %d admitted attempts of %d", spans, len(reps), admitted, sc.Replicas)
	}

	// LiteLLM: one payload per attempt, status words, no text.
	var payloads int64
	words := map[string]int64{}
	eachLine(t, dir, FormatFile(FormatLiteLLM), func(line []byte) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("litellm line: %v", err)
		}
		for _, k := range []string{"messages", "response", "prompt", "content"} {
			if _, ok := m[k]; ok {
				t.Fatalf("litellm payload has %q", k)
			}
		}
		payloads++
		words[m["status"].(string)]++
	})
	if payloads != tr.Spans || words["success"] != statuses[schemas.StatusOK] || words["failure"] != tr.Spans-statuses[schemas.StatusOK] {
		t.Errorf("litellm: %d payloads %v, want %d with %d ok", payloads, words, tr.Spans, statuses[schemas.StatusOK])
	}

	// vLLM log: args per replica, a stats line per sample.
	var args, stats int64
	eachLine(t, dir, FormatFile(FormatVLLMLog), func(line []byte) {
		s := string(line)
		if !strings.HasPrefix(s, "vllm-") || !strings.Contains(s, "  | 20") {
			t.Fatalf("log line without compose prefix and docker stamp: %s", s)
		}
		if strings.Contains(s, "non-default args: {") && strings.Contains(s, "'max_num_seqs': 16}") {
			args++
		}
		if strings.Contains(s, "[loggers.py:123] Engine 000: Avg prompt throughput: ") {
			stats++
		}
	})
	if args != int64(sc.Replicas) || stats != tr.Sim.Samples {
		t.Errorf("vllm log: %d args lines, %d stats lines; want %d and %d", args, stats, sc.Replicas, tr.Sim.Samples)
	}
}

func eachLine(t *testing.T, dir, name string, fn func([]byte)) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestWriteFormatsErrors(t *testing.T) {
	sc, _ := Named("light")
	dir := t.TempDir()
	if _, err := WriteFormats(dir, sc, 1, "vllm-otel", "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := WriteFormats(dir, sc, 1, "litellm", "litellm"); err == nil {
		t.Error("a format twice: no error")
	}
	sc.Rate = -1
	if _, err := WriteFormats(dir, sc, 1); err == nil {
		t.Error("invalid scenario: no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed runs left %d files", len(ents))
	}
}

// TestVLLMOTelEngineQueue: with engine queues, an llm_request span starts at
// the attempt's engine arrival and its time_in_queue runs to admission; an
// attempt that left an engine queue unadmitted has none, though its canonical
// span names its replica and engine arrival.
func TestVLLMOTelEngineQueue(t *testing.T) {
	sc := edgeScenarios()[2]
	sc.Duration = 40 * time.Second
	const seed = 1
	dir := t.TempDir()
	if _, err := WriteFormats(dir, sc, seed, FormatVLLMOTel); err != nil {
		t.Fatal(err)
	}
	spans, _ := collect(t, sc, seed)
	byID := map[string]schemas.Span{}
	var unadmitted int
	for _, sp := range spans {
		byID[string(appendHexID(nil, seed, "span", sp.SpanID, 8))] = sp
		if sp.EngineArrivedAt != nil && sp.AdmittedAt == nil {
			unadmitted++
			if sp.Replica == nil || *sp.EngineArrivedAt < *sp.QueuedAt {
				t.Errorf("span %s left an engine queue: replica %v, engine_arrived_at %d before queued_at %d", sp.SpanID, sp.Replica, *sp.EngineArrivedAt, *sp.QueuedAt)
			}
		}
	}
	if unadmitted == 0 {
		t.Error("no attempt left an engine queue unadmitted: the scenario does not cover it")
	}
	var n, queued int
	eachLine(t, dir, FormatFile(FormatVLLMOTel), func(line []byte) {
		var doc struct {
			ResourceSpans []struct {
				ScopeSpans []struct {
					Spans []struct {
						SpanID     string `json:"spanId"`
						Start      string `json:"startTimeUnixNano"`
						Attributes []struct {
							Key   string
							Value struct{ DoubleValue float64 }
						}
					}
				}
			}
		}
		if err := json.Unmarshal(line, &doc); err != nil {
			t.Fatal(err)
		}
		for _, ss := range doc.ResourceSpans[0].ScopeSpans {
			for _, s := range ss.Spans {
				sp, ok := byID[s.SpanID]
				if !ok || sp.AdmittedAt == nil {
					t.Fatalf("otel span %s: no admitted canonical span", s.SpanID)
				}
				n++
				if want := strconv.FormatInt(*sp.EngineArrivedAt*1000, 10); s.Start != want {
					t.Errorf("span %s starts at %s, want engine_arrived_at %s", sp.SpanID, s.Start, want)
				}
				for _, a := range s.Attributes {
					if a.Key == "gen_ai.latency.time_in_queue" {
						want := float64(*sp.AdmittedAt-*sp.EngineArrivedAt) / 1e6
						if a.Value.DoubleValue != want {
							t.Errorf("span %s: time_in_queue %v, want %v", sp.SpanID, a.Value.DoubleValue, want)
						}
						if want > 0 {
							queued++
						}
					}
				}
			}
		}
	})
	if n == 0 || queued == 0 {
		t.Errorf("%d otel spans, %d with time in an engine queue; want some of each", n, queued)
	}
}
