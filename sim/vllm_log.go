package sim

import (
	"io"
	"strconv"
	"strings"

	"github.com/tpsreport/tpsreport/schemas"
)

// VLLMLog writes what `docker compose logs -t` prints for the vLLM (V1,
// v0.11-style) services of the run, one service per replica, their lines
// interleaved in time order:
//
//	vllm-0  | 2026-11-20T10:00:10.000000000Z (APIServer pid=1) INFO 11-20 10:00:10 [loggers.py:123] Engine 000: Avg prompt throughput: 1234.5 tokens/s, Avg generation throughput: 456.7 tokens/s, Running: 31 reqs, Waiting: 2 reqs, GPU KV cache usage: 12.3%, Prefix cache hit rate: 0.0%
//
// Per replica, before the run: the version banner and the startup
// `non-default args: {... 'max_num_seqs': N ...}` line (stamped
// vllmLogStartup before the first arrival), the engine-init and uvicorn
// startup lines; during the run one stats line per engine sample (every
// StatsInterval: Running = in_flight, Waiting = queue_depth, GPU KV cache
// usage = kv_cache_usage in % with one decimal as vLLM prints it, "n/a" when
// unknown) and one uvicorn access line per attempt the replica served (at its release). The
// throughputs and the prefix cache hit rate are what the replica's attempts
// released since its previous stats line give (prompt and output tokens over
// the interval; cached over prompt tokens since start): vLLM's own figures
// are over the tokens processed in the interval, which the simulator does not
// track per step; ingest reads neither. Request lines ("Received request ...",
// "Finished request ...") are not written: they print prompts, and vLLM only
// logs them with --enable-log-requests.
//
// vLLM's own stamp is the container's local time (UTC) to the second,
// without year: a sample's time is truncated to the second there. The docker
// stamp (RFC 3339, ns) gives ingest the year; set NoTimestamps for plain
// `docker compose logs`, whose year ingest must then be told (--year).
type VLLMLog struct {
	// NoTimestamps leaves out docker's RFC 3339 stamp.
	NoTimestamps bool

	lw      lineWriter
	sc      Scenario
	seed    uint64
	started bool
	reps    map[string]*logReplica
	order   []*logReplica
	width   int // of the longest service name
}

var _ Writer = (*VLLMLog)(nil)

// vllmLogStartup is how long before Start the servers log their arguments, µs.
const vllmLogStartup = 95_000_000

type logReplica struct {
	name       string
	prefix     string // "vllm-0  | "
	last       int64  // instant of the previous stats line (or Start)
	in, out    int64  // tokens of attempts released since then
	inAll      int64  // prompt tokens of every attempt released
	cachedAll  int64  // cached prompt tokens of every attempt released
	conn       int64  // access lines written, for the client port
	apiPID     int
	enginePID  int
	clientHost string
	maxNumSeqs int
}

// NewVLLMLog returns a writer of sc's run (with seed, for pids and ports) to w.
func NewVLLMLog(w io.Writer, sc Scenario, seed uint64) *VLLMLog {
	sc = sc.withDefaults()
	l := &VLLMLog{lw: lineWriter{w: w}, sc: sc, seed: seed, reps: map[string]*logReplica{}}
	for i := range sc.Replicas {
		name := "vllm-" + strconv.Itoa(i)
		l.width = max(l.width, len(name))
		rp := &logReplica{
			name: name, last: sc.Start,
			apiPID:     1,
			maxNumSeqs: sc.replicaCap(i),
			enginePID:  100 + int(idBits(seed, "engine-pid", name)%900),
			clientHost: "172.18.0." + strconv.Itoa(2+int(idBits(seed, "gateway-ip", name)%200)),
		}
		l.reps[name] = rp
		l.order = append(l.order, rp)
	}
	for _, rp := range l.order {
		rp.prefix = rp.name + strings.Repeat(" ", l.width-len(rp.name)+2) + "| "
	}
	return l
}

// start writes every replica's startup lines once.
func (l *VLLMLog) start() {
	if l.started {
		return
	}
	l.started = true
	t0 := l.sc.Start - vllmLogStartup
	for _, rp := range l.order {
		l.line(rp, t0, "APIServer", "api_server.py:1896", "vLLM API server version 0.11.0")
	}
	for _, rp := range l.order {
		args := "non-default args: {'model_tag': " + pyRepr(l.sc.Model) + ", 'host': '0.0.0.0', 'model': " + pyRepr(l.sc.Model) +
			", 'max_num_seqs': " + strconv.Itoa(rp.maxNumSeqs) + "}"
		l.line(rp, t0+3_118, "APIServer", "utils.py:233", args)
	}
	for _, rp := range l.order {
		l.line(rp, l.sc.Start-31_400_000, "EngineCore_DP0", "core.py:210", "init engine (profile, create kv cache, warmup model) took 62.37 seconds")
	}
	for _, rp := range l.order {
		l.plain(rp, l.sc.Start-30_200_000, "Started server process ["+strconv.Itoa(rp.apiPID)+"]")
	}
	for _, rp := range l.order {
		l.plain(rp, l.sc.Start-30_199_000, "Application startup complete.")
	}
}

// WriteSpan writes the access line of an attempt a replica served and counts
// its tokens for the next stats line.
func (l *VLLMLog) WriteSpan(s schemas.Span) error {
	if l.lw.err != nil {
		return l.lw.err
	}
	l.start()
	if s.Replica == nil || s.AdmittedAt == nil {
		return nil // never reached an engine
	}
	rp := l.reps[*s.Replica]
	if rp == nil {
		return nil
	}
	var in, out int64
	if s.InputTokens != nil {
		in = *s.InputTokens
	}
	if s.OutputTokens != nil {
		out = *s.OutputTokens
	}
	rp.in += in
	rp.out += out
	rp.inAll += in
	if s.CachedTokens != nil {
		rp.cachedAll += *s.CachedTokens
	}
	rp.conn++
	port := 32768 + (rp.conn*7919)%28000
	// Stamped at release, the instant the span reaches the writer, so that
	// docker's stamps stay in order.
	l.plain(rp, *s.ReleasedAt, rp.clientHost+":"+strconv.FormatInt(port, 10)+` - "POST /v1/chat/completions HTTP/1.1" 200 OK`)
	return l.lw.maybeFlush()
}

// WriteSample writes one periodic stats line.
func (l *VLLMLog) WriteSample(sm schemas.Sample) error {
	if l.lw.err != nil {
		return l.lw.err
	}
	l.start()
	if sm.Replica == nil {
		return nil
	}
	rp := l.reps[*sm.Replica]
	if rp == nil {
		return nil
	}
	var run, wait int64
	if sm.InFlight != nil {
		run = int64(*sm.InFlight)
	}
	if sm.QueueDepth != nil {
		wait = int64(*sm.QueueDepth)
	}
	dt := float64(sm.TS-rp.last) / 1e6
	var pt, gt float64
	if dt > 0 {
		pt, gt = float64(rp.in)/dt, float64(rp.out)/dt
	}
	hit := 0.0
	if rp.inAll > 0 {
		hit = float64(rp.cachedAll) / float64(rp.inAll) * 100
	}
	rp.in, rp.out, rp.last = 0, 0, sm.TS
	m := make([]byte, 0, 256)
	m = append(m, "Engine 000: Avg prompt throughput: "...)
	m = strconv.AppendFloat(m, pt, 'f', 1, 64)
	m = append(m, " tokens/s, Avg generation throughput: "...)
	m = strconv.AppendFloat(m, gt, 'f', 1, 64)
	m = append(m, " tokens/s, Running: "...)
	m = strconv.AppendInt(m, run, 10)
	m = append(m, " reqs, Waiting: "...)
	m = strconv.AppendInt(m, wait, 10)
	if sm.KVCacheUsage != nil {
		m = append(m, " reqs, GPU KV cache usage: "...)
		m = strconv.AppendFloat(m, *sm.KVCacheUsage*100, 'f', 1, 64)
		m = append(m, '%')
	} else {
		m = append(m, " reqs, KV cache usage: n/a"...)
	}
	m = append(m, ", Prefix cache hit rate: "...)
	m = strconv.AppendFloat(m, hit, 'f', 1, 64)
	m = append(m, '%')
	l.line(rp, sm.TS, "APIServer", "loggers.py:123", string(m))
	return l.lw.maybeFlush()
}

// Flush writes out the buffer (and the startup lines of a run without any).
func (l *VLLMLog) Flush() error {
	l.start()
	return l.lw.flush()
}

// outer appends the compose prefix and docker's stamp of instant us.
func (l *VLLMLog) outer(b []byte, rp *logReplica, us int64) []byte {
	b = append(b, rp.prefix...)
	if !l.NoTimestamps {
		ts := AppendTimestamp(nil, us) // ...T10:00:10.123456Z
		b = append(b, ts[:len(ts)-1]...)
		b = append(b, "000Z "...) // docker prints ns
	}
	return b
}

// line appends a vLLM logger line of process proc at instant us.
func (l *VLLMLog) line(rp *logReplica, us int64, proc, where, msg string) {
	b := l.outer(l.lw.buf, rp, us)
	b = append(b, '(')
	b = append(b, proc...)
	b = append(b, " pid="...)
	pid := rp.apiPID
	if proc != "APIServer" {
		pid = rp.enginePID
	}
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, ") INFO "...)
	b = appendVLLMStamp(b, us)
	b = append(b, " ["...)
	b = append(b, where...)
	b = append(b, "] "...)
	b = append(b, msg...)
	l.lw.buf = append(b, '\n')
}

// plain appends a uvicorn line (no vLLM stamp) of the API server.
func (l *VLLMLog) plain(rp *logReplica, us int64, msg string) {
	b := l.outer(l.lw.buf, rp, us)
	b = append(b, "(APIServer pid="...)
	b = strconv.AppendInt(b, int64(rp.apiPID), 10)
	b = append(b, ") INFO:     "...)
	b = append(b, msg...)
	l.lw.buf = append(b, '\n')
}

// appendVLLMStamp appends vLLM's "MM-DD HH:MM:SS" of instant us in UTC, the
// fraction of a second dropped as Python's strftime does.
func appendVLLMStamp(b []byte, us int64) []byte {
	ts := AppendTimestamp(nil, us) // 2026-11-20T10:00:10.123456Z
	b = append(b, ts[5:10]...)
	b = append(b, ' ')
	return append(b, ts[11:19]...)
}

// pyRepr writes s as Python's repr of a str does for plain text.
func pyRepr(s string) string {
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
