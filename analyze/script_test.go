package analyze

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tpsreport/tpsreport/schemas"
)

// TestScripts runs analyze/testdata/*.test: each loads a tiny span fixture, runs
// the analysis and checks the values it lists. The format:
//
//	analyze [window=60s] [cap=N] [from=S to=S] [max_num_seqs=N]
//	spans
//	# span request attempt status queued admitted first last released in out [replica [source]]
//	a    a       0       ok     0      1        2     12   12       100 101 r0
//	end
//	samples
//	# replica ts in_flight queue_depth cap
//	r0 0 4 0 4
//	end
//	expect run gap_time 10
//	expect window 1 t_queue.p50 0.5
//	expect span a ttft 2
//	expect windows 3
//
// Times are seconds after 2026-11-20T10:00:00Z (a minute boundary, so window k
// covers [60k, 60k+60) s); "-" is NULL, and so is a missing value. A failing check
// is reported as file.test:LINE.
func TestScripts(t *testing.T) {
	files, err := filepath.Glob("testdata/*.test")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/*.test: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			runScript(t, f)
		})
	}
}

type scriptCheck struct {
	line  int
	scope string // run, window, span, windows, replica
	key   string // window index, span id or replica
	name  string
	want  string
}

func runScript(t *testing.T, path string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		spans   []schemas.Span
		samples []schemas.Sample
		opt     Options
		man     schemas.Manifest
		checks  []scriptCheck
		section string
	)
	sc := bufio.NewScanner(f)
	n := 0
	fail := func(format string, a ...any) {
		t.Fatalf("%s:%d: %s", path, n, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		switch {
		case section == "spans" && line != "end":
			if len(fields) < 11 || len(fields) > 13 {
				fail("span line needs 11 to 13 fields, has %d", len(fields))
			}
			sp := schemas.Span{RunID: "script", Source: "spans", SpanID: fields[0], RequestID: fields[1], Status: fields[3]}
			if fields[2] != "-" {
				v, err := strconv.Atoi(fields[2])
				if err != nil {
					fail("attempt: %v", err)
				}
				sp.Attempt = i32(int32(v))
			}
			ts := []**int64{&sp.QueuedAt, &sp.AdmittedAt, &sp.FirstTokenAt, &sp.LastTokenAt, &sp.ReleasedAt}
			for i, p := range ts {
				*p = scriptTime(fields[4+i], fail)
			}
			sp.InputTokens = scriptInt(fields[9], fail)
			sp.OutputTokens = scriptInt(fields[10], fail)
			if len(fields) > 11 && fields[11] != "-" {
				sp.Replica = str(fields[11])
			}
			if len(fields) > 12 {
				sp.Source = fields[12]
			}
			spans = append(spans, sp)
		case section == "samples" && line != "end":
			if len(fields) != 5 {
				fail("sample line needs 5 fields")
			}
			s := schemas.Sample{RunID: "script", Source: "test", Replica: str(fields[0])}
			ts := scriptTime(fields[1], fail)
			if ts == nil {
				fail("a sample needs its ts")
			}
			s.TS = *ts
			if v := scriptInt(fields[2], fail); v != nil {
				s.InFlight = i32(int32(*v))
			}
			if v := scriptInt(fields[3], fail); v != nil {
				s.QueueDepth = i32(int32(*v))
			}
			if v := scriptInt(fields[4], fail); v != nil {
				s.Cap = i32(int32(*v))
			}
			samples = append(samples, s)
		case line == "end":
			section = ""
		case fields[0] == "spans" || fields[0] == "samples":
			section = fields[0]
		case fields[0] == "analyze":
			for _, kv := range fields[1:] {
				k, v, _ := strings.Cut(kv, "=")
				switch k {
				case "window":
					d, err := time.ParseDuration(v)
					if err != nil {
						fail("window: %v", err)
					}
					opt.Window = d
				case "cap":
					opt.Cap = scriptInt(v, fail)
				case "max_num_seqs":
					man.MaxNumSeqs = scriptInt(v, fail)
				case "slo_ttft", "slo_tpot", "slo_e2e":
					d, err := time.ParseDuration(v)
					if err != nil {
						fail("%s: %v", k, err)
					}
					if opt.SLO == nil {
						opt.SLO = &schemas.SLO{}
					}
					secs := d.Seconds()
					*map[string]**float64{"slo_ttft": &opt.SLO.TTFT, "slo_tpot": &opt.SLO.TPOT, "slo_e2e": &opt.SLO.E2E}[k] = &secs
				case "from", "to":
					tm := schemas.Time(*scriptTime(v, fail))
					if k == "from" {
						opt.From = &tm
					} else {
						opt.To = &tm
					}
				default:
					fail("unknown analyze option %q", k)
				}
			}
		case fields[0] == "expect":
			c := scriptCheck{line: n}
			switch {
			case len(fields) == 4 && fields[1] == "run":
				c.scope, c.name, c.want = "run", fields[2], fields[3]
			case len(fields) == 3 && fields[1] == "windows":
				c.scope, c.want = "windows", fields[2]
			case len(fields) == 5 && (fields[1] == "window" || fields[1] == "span" || fields[1] == "replica"):
				c.scope, c.key, c.name, c.want = fields[1], fields[2], fields[3], fields[4]
			default:
				fail("bad expect line")
			}
			checks = append(checks, c)
		default:
			fail("unknown directive %q", fields[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	dir := writeDataset(t, spans, samples, &man)
	res := analyzeDir(t, dir, opt)
	spanRows := readRequests(t, dir)
	for _, c := range checks {
		var obj map[string]any
		switch c.scope {
		case "windows":
			if got := strconv.Itoa(len(res.Windows)); got != c.want {
				t.Errorf("%s:%d: windows: got %s, want %s", path, c.line, got, c.want)
			}
			continue
		case "run":
			obj = asMap(t, res.Summary)
		case "window":
			i, err := strconv.Atoi(c.key)
			if err != nil || i < 0 || i >= len(res.Windows) {
				t.Errorf("%s:%d: no window %s (have %d)", path, c.line, c.key, len(res.Windows))
				continue
			}
			obj = asMap(t, res.Windows[i])
		case "span":
			obj = spanRows[c.key]
		case "replica":
			for _, r := range res.Summary.Replicas {
				if r.Replica == c.key {
					obj = asMap(t, r)
				}
			}
		}
		if obj == nil {
			t.Errorf("%s:%d: no %s %q", path, c.line, c.scope, c.key)
			continue
		}
		got, ok := lookup(obj, c.name)
		if !ok {
			t.Errorf("%s:%d: %s has no %q", path, c.line, c.scope, c.name)
			continue
		}
		if msg := compareValue(got, c.want); msg != "" {
			t.Errorf("%s:%d: %s: %s", path, c.line, strings.Join(strings.Fields(c.scope+" "+c.key+" "+c.name), " "), msg)
		}
	}
}

func scriptTime(s string, fail func(string, ...any)) *int64 {
	if s == "-" {
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		fail("time %q: %v", s, err)
	}
	return at(v)
}

func scriptInt(s string, fail func(string, ...any)) *int64 {
	if s == "-" {
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fail("integer %q: %v", s, err)
	}
	return &v
}

func asMap(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// lookup finds a dotted name such as "t_queue.p50" in a decoded JSON object.
func lookup(obj map[string]any, name string) (any, bool) {
	var cur any = obj
	for _, part := range strings.Split(name, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// compareValue compares a decoded JSON value with the script's text: "-" is
// null, numbers agree to 1e-9 relative, anything else compares as text.
func compareValue(got any, want string) string {
	if want == "-" {
		if got != nil {
			return fmt.Sprintf("got %v, want NULL", got)
		}
		return ""
	}
	if w, err := strconv.ParseFloat(want, 64); err == nil {
		g, ok := got.(float64)
		if !ok {
			return fmt.Sprintf("got %v, want %s", got, want)
		}
		if !closeRel(g, w, 1e-9) {
			return fmt.Sprintf("got %.12g, want %s", g, want)
		}
		return ""
	}
	if fmt.Sprint(got) != want {
		return fmt.Sprintf("got %v, want %s", got, want)
	}
	return ""
}

func closeRel(a, b, tol float64) bool {
	if a == b {
		return true
	}
	d := math.Abs(a - b)
	return d <= tol*math.Max(math.Abs(a), math.Abs(b)) || d <= 1e-12
}
