package scan

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"

	pqzstd "github.com/parquet-go/parquet-go/compress/zstd"
)

// TestTextZstd: TextZstd's frames decode to what went in, by its own
// decoder and by parquet-go's zstd codec (what a reader of the ZSTD codec
// uses), and ids of hex digits, which repeat nowhere, come out at about half
// their size: entropy-coded, where zstd's fastest level alone stores them as
// they are (FastZstd, below).
func TestTextZstd(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 1<<16)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	ids := []byte(hex.EncodeToString(random))
	for _, tc := range []struct {
		name     string
		src      []byte
		maxRatio float64 // compressed / input
	}{
		{"empty", nil, 0},
		{"hex ids", ids, 0.55},
		{"random bytes", random, 1.01},
		{"repeats", bytes.Repeat([]byte("chatcmpl-"), 5000), 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			z, err := TextZstd.Encode(nil, tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if len(tc.src) > 0 {
				if r := float64(len(z)) / float64(len(tc.src)); r > tc.maxRatio {
					t.Errorf("%d bytes -> %d (%.2f), want at most %.2f", len(tc.src), len(z), r, tc.maxRatio)
				}
			}
			for name, dec := range map[string]interface {
				Decode(dst, src []byte) ([]byte, error)
			}{"textZstd": TextZstd, "parquet-go zstd": &pqzstd.Codec{}} {
				back, err := dec.Decode(nil, z)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !bytes.Equal(back, tc.src) {
					t.Errorf("%s: decoded %d bytes, not the %d encoded", name, len(back), len(tc.src))
				}
			}
		})
	}
	// The fastest level without entropy coding stores the hex ids raw: the
	// reason TextZstd exists.
	z, err := FastZstd.Encode(nil, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(z) < len(ids) {
		t.Errorf("fastZstd compressed hex ids %d -> %d: textZstd's case for entropy coding is gone", len(ids), len(z))
	}
}
