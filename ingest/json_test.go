package ingest

import (
	"math/rand/v2"
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

func BenchmarkReadString(b *testing.B) {
	for _, c := range []struct{ name, in string }{
		{"key", `"first_token_at":`},
		{"timestamp", `"2026-11-20T10:00:00.345678Z",`},
		{"prompt", `"Summarise the following support ticket in two sentences: the customer reports that...",`},
	} {
		b.Run(c.name, func(b *testing.B) {
			var s jsonScanner
			in := []byte(c.in)
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				s.reset(in)
				if _, err := s.readString(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzPlainInteger holds the integer fast path to readNumber and
// scaleDecimal: where it answers, they read the same token and value.
func FuzzPlainInteger(f *testing.F) {
	for _, s := range []string{"0", "7,", "0123", "-5", "12.5", "1e3", "123456789012345678", "1234567890123456789", "42}", "9x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, n, ok := plainInteger(b)
		if !ok {
			return
		}
		s := jsonScanner{data: b}
		num, err := s.readNumber()
		if err != nil || len(num) != n {
			t.Fatalf("%q: fast path read %d bytes, readNumber %q, %v", b, n, num, err)
		}
		want, exact, wok := scaleDecimal(num, 0)
		if !exact || !wok || want != v {
			t.Fatalf("%q: fast path %d, scaleDecimal %d (exact %v, ok %v)", b, v, want, exact, wok)
		}
	})
}
