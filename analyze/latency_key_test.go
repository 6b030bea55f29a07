package analyze

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestPackLatencies: the packed key's fields are sized by hand: a field of
// b bits holds its largest value below 2^b − 1, its NULL at 2^b − 1, and
// the two fields fit 63 bits or there is no packing.
func TestPackLatencies(t *testing.T) {
	n := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: true} }
	none := sql.NullInt64{}
	for _, c := range []struct {
		name                   string
		minT, maxT, minE, maxE sql.NullInt64
		want                   *latencyKey
	}{
		// ttft ≤ 6: 3 bits (NULL 7); e2e ≤ 7: 4 bits, since 7 + 1 needs them (NULL 15).
		{"small", n(0), n(6), n(1), n(7), &latencyKey{e2eBits: 4, ttftNull: 7, e2eNull: 15}},
		// No value of either: one bit each, NULL 1.
		{"none", none, none, none, none, &latencyKey{e2eBits: 1, ttftNull: 1, e2eNull: 1}},
		// 2^31 − 2 takes 31 bits with its NULL, 2^32 − 2 32: 63 in all.
		{"63 bits", n(0), n(1<<31 - 2), n(0), n(1<<32 - 2), &latencyKey{e2eBits: 32, ttftNull: 1<<31 - 1, e2eNull: 1<<32 - 1}},
		// One more, and its NULL needs a 33rd bit: 64.
		{"64 bits", n(0), n(1<<31 - 2), n(0), n(1<<32 - 1), nil},
		{"largest", n(0), n(1<<63 - 1), n(0), n(0), nil},
		{"negative", n(-1), n(5), n(0), n(5), nil},
	} {
		got := packLatencies(c.minT, c.maxT, c.minE, c.maxE)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// TestLatencyOrder: latencies_out (the packed key) and latencies_out_wide
// (four keys) write the rows in one order, the hand-sorted one: completion,
// then ttft_req, e2e_req and tpot_req, each NULLS LAST, on requests that
// tie at one completion with every kind of NULL, and with the largest
// value of each field, one below its NULL, which the packed form unpacks
// from its key after the sort.
func TestLatencyOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testDB(t)
	a := &analysis{ctx: ctx, db: db}
	if _, err := db.ExecContext(ctx, `CREATE TABLE delivered_requests (completed_us BIGINT, ttft_req_us BIGINT, e2e_req_us BIGINT, tpot_req DOUBLE)`); err != nil {
		t.Fatal(err)
	}
	// In the order they must come out; inserted from the last.
	want := [][4]any{
		{int64(5), int64(1), int64(9), 0.5},
		{int64(5), int64(1), int64(9), nil},
		{int64(5), int64(1), int64(12), 0.25},
		{int64(5), int64(1), nil, 0.25},
		{int64(5), int64(3), int64(4), 0.125},
		{int64(5), nil, int64(2), 0.125},
		{int64(5), nil, nil, nil},
		{int64(8), int64(0), int64(0), 1.0},
		{int64(8), int64(40), int64(41), 1.0},
		{int64(8), int64(62), int64(62), nil},
	}
	for i := len(want) - 1; i >= 0; i-- {
		r := want[i]
		if _, err := db.ExecContext(ctx, "INSERT INTO delivered_requests VALUES (?, ?, ?, ?)", r[0], r[1], r[2], r[3]); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.exec("latency_rows"); err != nil {
		t.Fatal(err)
	}
	st := &runState{}
	if err := a.latencyKey(st); err != nil {
		t.Fatal(err)
	}
	// ttft ≤ 62 and e2e ≤ 62: 6 bits each, since 62 + 1 needs them (NULL 63).
	if got := fmt.Sprint(st.latencyKey); got != fmt.Sprint(&latencyKey{e2eBits: 6, ttftNull: 63, e2eNull: 63}) {
		t.Fatalf("key %s", got)
	}
	type row struct {
		CompletedAt int64    `parquet:"completed_at,timestamp(microsecond)"`
		TTFT        *float64 `parquet:"ttft_req,optional"`
		TPOT        *float64 `parquet:"tpot_req,optional"`
		E2E         *float64 `parquet:"e2e_req,optional"`
	}
	for _, name := range []string{"latencies_out", "latencies_out_wide"} {
		path := filepath.Join(t.TempDir(), "latencies.parquet")
		var args []any
		if name == "latencies_out" {
			k := st.latencyKey
			args = []any{sql.Named("e2e_bits", k.e2eBits), sql.Named("ttft_null", k.ttftNull), sql.Named("e2e_null", k.e2eNull)}
		}
		if err := a.copyRows(name, path, "", args...); err != nil {
			t.Fatal(err)
		}
		rows, err := parquet.ReadFile[row](path)
		if err != nil {
			t.Fatal(err)
		}
		var got [][4]any
		for _, r := range rows {
			us := func(p *float64) any {
				if p == nil {
					return nil
				}
				return int64(*p*1e6 + 0.5)
			}
			var tpot any
			if r.TPOT != nil {
				tpot = *r.TPOT
			}
			got = append(got, [4]any{r.CompletedAt, us(r.TTFT), us(r.E2E), tpot})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v", name, got, want)
		}
	}
}
