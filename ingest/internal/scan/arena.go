package scan

import "unsafe"

// The decoders' allocation helpers. A decoded span holds pointers for its
// optional columns and strings for its ids and names; taken from shared
// chunks and caches, they cost no allocation of their own per record, which
// is most of what makes the fast decoders (spans, vllm-otel, litellm,
// sglang-metrics, vllm-log) fast.

// Arena hands out pointers for optional fields from shared chunks, so that
// decoding does not allocate once per field. A chunk lives as long as any
// value in it is referenced.
type Arena struct {
	i64   []int64
	i32   []int32
	str   []string
	bytes []byte // the bytes of the strings text returns
}

const (
	arenaChunk      = 512
	arenaBytesChunk = 64 << 10
)

// Text returns b as a string. Short strings share arena chunks of bytes
// that are only ever appended to, so the strings never change.
func (a *Arena) Text(b []byte) string {
	if len(b) == 0 || len(b) > arenaBytesChunk/16 {
		return string(b)
	}
	if cap(a.bytes)-len(a.bytes) < len(b) {
		a.bytes = make([]byte, 0, arenaBytesChunk)
	}
	start := len(a.bytes)
	a.bytes = append(a.bytes, b...)
	return unsafe.String(&a.bytes[start], len(b))
}

func (a *Arena) Int64(v int64) *int64 {
	if len(a.i64) == cap(a.i64) {
		a.i64 = make([]int64, 0, arenaChunk)
	}
	a.i64 = append(a.i64, v)
	return &a.i64[len(a.i64)-1]
}

func (a *Arena) Int32(v int32) *int32 {
	if len(a.i32) == cap(a.i32) {
		a.i32 = make([]int32, 0, arenaChunk)
	}
	a.i32 = append(a.i32, v)
	return &a.i32[len(a.i32)-1]
}

func (a *Arena) Str(v string) *string {
	if len(a.str) == cap(a.str) {
		a.str = make([]string, 0, arenaChunk)
	}
	a.str = append(a.str, v)
	return &a.str[len(a.str)-1]
}

// RecentStrings is a small direct-mapped cache in front of the Interner for
// one column: a model, replica or error name seen lately is found by one
// comparison instead of a map lookup.
type RecentStrings [64]string

func (r *RecentStrings) Get(b []byte, in *Interner) string {
	i := (len(b)*31 + int(b[len(b)-1]) + int(b[len(b)/2])*7) & (len(r) - 1)
	if s := r[i]; s == string(b) { // no allocation
		return s
	}
	s := in.Get(b)
	r[i] = s
	return s
}

// Interner returns one shared string for each distinct value of a
// low-cardinality column (model, replica, error), so that repeated values do
// not allocate. It stops growing at MaxInterned entries.
type Interner struct{ m map[string]string }

const MaxInterned = 4096

func (in *Interner) Get(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < MaxInterned {
		in.m[s] = s
	}
	return s
}
