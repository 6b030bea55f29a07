package analyze

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestColumnFileReadBack: DuckDB's Parquet reader, an implementation of its
// own, reads back from column files what was written, row for row, with the
// types of the nodes, and the chunk statistics it reads are the values'.
// Row groups of every shape: all NULL, none NULL, one value repeated (a
// repeated run), mixed, the extremes of the types, dictionaries of 1 to 300
// strings (bit widths 1 to 9).
func TestColumnFileReadBack(t *testing.T) {
	db := testDB(t)
	r := rand.New(rand.NewPCG(1, 2))
	groups := []int{1, 7, 8, 9, 1000, 4096, 3}
	rows := 0
	for _, n := range groups {
		rows += n
	}
	// shape gives row k of group g: its value and whether it is known.
	shape := func(g, k int) (int64, bool) {
		switch g {
		case 0:
			return 0, false
		case 1:
			return math.MinInt64 + int64(k), true
		case 2:
			return 42, true
		case 3:
			return math.MaxInt64 - int64(k), k%3 != 0
		case 4:
			return 1_795_168_800_000_000 + int64(k)*1000 + r.Int64N(50), r.IntN(10) != 0
		case 5:
			return r.Int64N(300), r.IntN(4) != 0
		}
		return -int64(k), true
	}
	type row struct {
		v  int64
		ok bool
	}
	var want []row
	for g, n := range groups {
		for k := range n {
			v, ok := shape(g, k)
			want = append(want, row{v, ok})
		}
	}
	for _, tc := range []struct {
		name, typ string
		write     func(path string) error
		value     func(x row) string // DuckDB's text of a known value
	}{
		{"timestamps", "TIMESTAMP WITH TIME ZONE", func(path string) error {
			k := 0
			return writeInts(path, "timestamps", timestampNode, groups, func(int) (int64, bool) {
				x := want[k]
				k++
				return x.v % (1 << 55), x.ok // within DuckDB's timestamp range
			})
		}, func(x row) string { return fmt.Sprint(x.v % (1 << 55)) }},
		{"int64", "BIGINT", func(path string) error {
			k := 0
			return writeInts(path, "int64", int64Node, groups, func(int) (int64, bool) {
				x := want[k]
				k++
				return x.v, x.ok
			})
		}, func(x row) string { return fmt.Sprint(x.v) }},
		{"int32", "INTEGER", func(path string) error {
			k := 0
			return writeInts(path, "int32", int32Node, groups, func(int) (int64, bool) {
				x := want[k]
				k++
				return int64(int32(x.v)), x.ok
			})
		}, func(x row) string { return fmt.Sprint(int32(x.v)) }},
		{"strings", "VARCHAR", func(path string) error {
			tab := newStrTable()
			k := 0
			return writeStrings(path, "strings", groups, tab, func(int) uint32 {
				x := want[k]
				k++
				if !x.ok {
					return 0
				}
				return tab.id([]byte(strName(x.v)))
			})
		}, func(x row) string { return strName(x.v) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.name+".parquet")
			if err := tc.write(path); err != nil {
				t.Fatal(err)
			}
			var typ string
			if err := db.QueryRowContext(t.Context(), "SELECT column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))", path).Scan(&typ); err != nil {
				t.Fatal(err)
			}
			if typ != tc.typ {
				t.Errorf("type %s, want %s", typ, tc.typ)
			}
			q := fmt.Sprintf(`SELECT file_row_number, CASE WHEN %[1]s IS NULL THEN NULL
				WHEN typeof(%[1]s) LIKE 'TIMESTAMP%%' THEN epoch_us(%[1]s::TIMESTAMPTZ)::VARCHAR ELSE %[1]s::VARCHAR END
				FROM read_parquet(?, file_row_number = true) ORDER BY file_row_number`, tc.name)
			rs, err := db.QueryContext(t.Context(), q, path)
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			n, bad := 0, 0
			for rs.Next() {
				var i int
				var got *string
				if err := rs.Scan(&i, &got); err != nil {
					t.Fatal(err)
				}
				w := want[i]
				if (got != nil) != w.ok || got != nil && *got != tc.value(w) {
					if bad++; bad < 5 {
						t.Errorf("row %d: got %v, want %s (known %v)", i, derefStr(got), tc.value(w), w.ok)
					}
				}
				n++
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			if n != rows {
				t.Errorf("%d rows read, want %d", n, rows)
			}
			if tc.name != "int64" {
				return
			}
			stats, err := db.QueryContext(t.Context(), `SELECT stats_null_count, stats_min_value, stats_max_value
				FROM parquet_metadata(?) ORDER BY row_group_id`, path)
			if err != nil {
				t.Fatal(err)
			}
			defer stats.Close()
			at := 0
			for g := 0; stats.Next(); g++ {
				var nulls int64
				var lo, hi *string
				if err := stats.Scan(&nulls, &lo, &hi); err != nil {
					t.Fatal(err)
				}
				var wantNulls int64
				var wantLo, wantHi *string
				for _, x := range want[at : at+groups[g]] {
					if !x.ok {
						wantNulls++
						continue
					}
					if v := fmt.Sprint(x.v); wantLo == nil {
						wantLo, wantHi = &v, &v
					} else {
						if x.v < mustInt(*wantLo) {
							wantLo = &v
						}
						if x.v > mustInt(*wantHi) {
							wantHi = &v
						}
					}
				}
				at += groups[g]
				if nulls != wantNulls || derefStr(lo) != derefStr(wantLo) || derefStr(hi) != derefStr(wantHi) {
					t.Errorf("row group %d: nulls %d, min %v, max %v; want %d, %v, %v", g, nulls, derefStr(lo), derefStr(hi), wantNulls, derefStr(wantLo), derefStr(wantHi))
				}
			}
		})
	}
}

func mustInt(s string) int64 {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return v
}

// strName is one of 900 strings for v.
func strName(v int64) string {
	v = (v%900 + 900) % 900
	return "s" + strings.Repeat("x", int(v%3)) + fmt.Sprint(v/3)
}

func derefStr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestBoolColumnFile: DuckDB reads a boolean column file back as written, in
// row groups that end inside and on a byte of the bit-packed values, with
// each row group's minimum and maximum.
func TestBoolColumnFile(t *testing.T) {
	db := testDB(t)
	r := rand.New(rand.NewPCG(3, 4))
	groups := []int{1, 7, 8, 9, 1000, 3}
	var want [][]bool
	for g, n := range groups {
		var vs []bool
		for k := range n {
			switch g {
			case 1:
				vs = append(vs, true)
			case 2:
				vs = append(vs, false)
			case 3:
				vs = append(vs, k == 8)
			default:
				vs = append(vs, r.IntN(3) == 0)
			}
		}
		want = append(want, vs)
	}
	path := filepath.Join(t.TempDir(), "delivered.parquet")
	c, err := newColumnFile(path, "delivered", parquet.Optional(parquet.Leaf(parquet.BooleanType)))
	if err != nil {
		t.Fatal(err)
	}
	for _, vs := range want {
		for _, v := range vs {
			c.addBool(v)
		}
		if err := c.endGroup(nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	var flat []bool
	for _, vs := range want {
		flat = append(flat, vs...)
	}
	rows, err := db.QueryContext(t.Context(), `SELECT file_row_number, delivered, typeof(delivered) FROM read_parquet(?, file_row_number = true) ORDER BY 1`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var i int
		var v *bool
		var typ string
		if err := rows.Scan(&i, &v, &typ); err != nil {
			t.Fatal(err)
		}
		if typ != "BOOLEAN" || v == nil || *v != flat[i] {
			t.Errorf("row %d: %v (%s), want %v", i, v, typ, flat[i])
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(flat) {
		t.Errorf("%d rows read, want %d", n, len(flat))
	}
	stats, err := db.QueryContext(t.Context(), `SELECT row_group_num_rows, stats_null_count, stats_min_value, stats_max_value
		FROM parquet_metadata(?) ORDER BY row_group_id`, path)
	if err != nil {
		t.Fatal(err)
	}
	defer stats.Close()
	g := 0
	for ; stats.Next(); g++ {
		var num, nulls int64
		var lo, hi string
		if err := stats.Scan(&num, &nulls, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		wantLo, wantHi := "true", "false"
		for _, v := range want[g] {
			if !v {
				wantLo = "false"
			} else {
				wantHi = "true"
			}
		}
		if num != int64(len(want[g])) || nulls != 0 || lo != wantLo || hi != wantHi {
			t.Errorf("row group %d: %d rows, %d nulls, min %s, max %s; want %d, 0, %s, %s", g, num, nulls, lo, hi, len(want[g]), wantLo, wantHi)
		}
	}
	if g != len(groups) {
		t.Errorf("%d row groups, want %d", g, len(groups))
	}
}
