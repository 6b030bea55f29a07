package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestPlainPrefix holds the word-at-a-time scan to the byte loop it speeds
// up: it never passes a byte that needs a look.
func TestPlainPrefix(t *testing.T) {
	special := []byte{'"', '\\', 0x00, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0x9f, 0xa0, 0xff, '!', '#', '[', ']', 'a'}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			if rng.IntN(4) == 0 {
				b[i] = special[rng.IntN(len(special))]
			} else {
				b[i] = byte(rng.IntN(256))
			}
		}
		want := 0
		for want < len(b) && strByte[b[want]] == 0 {
			want++
		}
		got := plainPrefix(b)
		if got > want || want-got >= 8 {
			t.Fatalf("plainPrefix(%q) = %d, want %d (or up to 7 less)", b, got, want)
		}
	}
}

func FuzzPlainPrefix(f *testing.F) {
	f.Add([]byte(`2026-11-20T10:00:00.123456Z"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for want < len(b) && strByte[b[want]] == 0 {
			want++
		}
		if got := plainPrefix(b); got > want || want-got >= 8 {
			t.Fatalf("plainPrefix(%q) = %d, want %d (or up to 7 less)", b, got, want)
		}
	})
}

// checkSkipString holds SkipString to ReadString on the string that opens
// in: both stop at the same byte with the same error, or none.
func checkSkipString(t *testing.T, in []byte) {
	t.Helper()
	var r, k JSON
	r.Reset(in)
	k.Reset(in)
	_, rerr := r.ReadString()
	kerr := k.SkipString()
	if fmt.Sprint(rerr) != fmt.Sprint(kerr) || r.Pos != k.Pos {
		t.Fatalf("%q: readString stops at %d with %v, skipString at %d with %v", in, r.Pos, rerr, k.Pos, kerr)
	}
}

// TestSkipString holds SkipString to ReadString, the decoding reader it
// stands in for where the value is not read, on strings built from the bytes
// and escapes each treats apart.
func TestSkipString(t *testing.T) {
	for _, in := range []string{
		`"plain"`, `""`, `"a\"b"`, `"\u00e9\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`,
		`"\ud83d\u12"`, `"\u12g4"`, `"\x"`, `"\`, `"abc`, "\"a\x01b\"", "\"caf\xc3\xa9 \xff\"",
		`"{\"rid\": \"352e\", \"stream\": true}"`,
	} {
		checkSkipString(t, []byte(in))
	}
	parts := []string{`\"`, `\\`, `\/`, `\n`, `\u00e9`, `\ud83d`, `\ude00`, `\u12`, `\q`, "\x00", "\x1f", " ", "\x7f", "\xc3\xa9", "\xff", "abcdefgh", `"`}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		b := []byte{'"'}
		for range rng.IntN(12) {
			b = append(b, parts[rng.IntN(len(parts))]...)
		}
		checkSkipString(t, b)
	}
}

func FuzzSkipString(f *testing.F) {
	f.Add([]byte(`"{\"rid\": \"352e2b945e4ef6e3\", \"sampling_params\": {}}"`))
	f.Add([]byte(`"\ud83d\ude00 caf\u00e9"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		checkSkipString(t, append([]byte{'"'}, b...))
	})
}

// BenchmarkReadString reads strings of each kind a record holds, and passes
// them unread (skip): an SGLang record's escaped request_parameters is
// skipped, never read.
func BenchmarkReadString(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"key", `"first_token_at":`},
		{"timestamp", `"2026-11-20T10:00:00.345678Z",`},
		{"prompt", `"Summarise the following support ticket in two sentences: the customer reports that...",`},
		{"escaped", `"{\"rid\": \"352e2b945e4ef6e3a2374bf4217baf4a\", \"sampling_params\": {\"max_new_tokens\": 2048}, \"stream\": true}",`},
	} {
		in := []byte(c.in)
		for _, skip := range []bool{false, true} {
			name := c.name
			if skip {
				name += "/skip"
			}
			b.Run(name, func(b *testing.B) {
				var s JSON
				b.ReportAllocs()
				b.SetBytes(int64(len(in)))
				for b.Loop() {
					s.Reset(in)
					var err error
					if skip {
						err = s.SkipString()
					} else {
						_, err = s.ReadString()
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// FuzzPlainInteger holds the integer fast path to ReadNumber and
// ScaleDecimal: where it answers, they read the same token and value.
func FuzzPlainInteger(f *testing.F) {
	for _, s := range []string{"0", "7,", "0123", "-5", "12.5", "1e3", "123456789012345678", "1234567890123456789", "42}", "9x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, ok := PlainInteger(b)
		if !ok {
			return
		}
		s := JSON{Data: b}
		num, err := s.ReadNumber()
		if err != nil || len(num) != n {
			t.Fatalf("%q: fast path read %d bytes, readNumber %q, %v", b, n, num, err)
		}
		want, exact, wok := ScaleDecimal(num, 0)
		if !exact || !wok || want != v {
			t.Fatalf("%q: fast path %d, scaleDecimal %d (exact %v, ok %v)", b, v, want, exact, wok)
		}
	})
}

// jsonValueSeeds are documents for the ParseValue differential tests.
var jsonValueSeeds = []string{
	`{"id":"chatcmpl-r1","trace_id":"t","stream":true,"status":"success","startTime":1795168800.214972,` +
		`"prompt_tokens":612,"metadata":{"attempted_retries":0,"usage_object":{"total_tokens":658}},"request_tags":[],"error_str":null}`,
	`[1, -0, 2.5e-3, 1E+400, 12345678901234567890123]`,
	`{"a":1,"a":{"b":[true,false,null]},"":""}`,
	`"\u00e9\ud83d\ude00 \ud800 \n\t\"\\\/"`,
	"\"\xff\xfe ok \xe2\x82\"",
	` { "k" : [ [ ] , { } ] } `,
	`{"x":1}{"y":2}`,
	`{"x":01}`,
	`[1,]`,
	`{"x":tru}`,
	"[" + string(bytes.Repeat([]byte("["), 10001)),
}

// TestParseJSONValue holds ParseValue to encoding/json (UseNumber) on the
// seeds: the same value for valid JSON, an error for invalid JSON.
func TestParseJSONValue(t *testing.T) {
	for _, s := range jsonValueSeeds {
		checkJSONValue(t, []byte(s))
	}
}

// FuzzParseJSONValue is the differential test of ParseValue against
// encoding/json on any input.
func FuzzParseJSONValue(f *testing.F) {
	for _, s := range jsonValueSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkJSONValue)
}

func checkJSONValue(t *testing.T, data []byte) {
	keys := map[string]string{}
	got, err := ParseValue(data, keys, nil)
	if !json.Valid(data) {
		if err == nil {
			t.Fatalf("ParseValue(%q) = %#v, want an error (encoding/json rejects it)", data, got)
		}
		return
	}
	if err != nil {
		t.Fatalf("ParseValue(%q): %v, want a value (encoding/json accepts it)", data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var want any
	if err := dec.Decode(&want); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseValue(%q) = %#v, want %#v", data, got, want)
	}
	// Interned keys give the same value again.
	if again, _ := ParseValue(data, keys, nil); !reflect.DeepEqual(again, want) {
		t.Fatalf("ParseValue(%q) with interned keys = %#v, want %#v", data, again, want)
	}
	// Keeping some top-level keys drops the others, and only those.
	only := map[string]bool{"a": true, "id": true, "k": true, "x": true}
	if m, ok := want.(map[string]any); ok {
		for k := range m {
			if !only[k] {
				delete(m, k)
			}
		}
	}
	if some, _ := ParseValue(data, keys, only); !reflect.DeepEqual(some, want) {
		t.Fatalf("ParseValue(%q) keeping %v = %#v, want %#v", data, only, some, want)
	}
}
