package numfmt

import "testing"

// TestFormats pins the conventions every output shares; report's
// format_test.go covers each function's ranges in more detail.
func TestFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Seconds(47.26), "47.3 s"}, {Seconds(1.878), "1.88 s"}, {Seconds(0.6343), "634 ms"}, {Seconds(0.0004), "400 µs"},
		{Percent(0.0112), "1.12 %"}, {Percent(0.99934), "99.93 %"}, {Percent(0.9999972), "99.9997 %"}, {Percent(1), "100 %"},
		{PP(-0.3211), "−32.1 pp"}, {PP(0.0026), "+0.26 pp"}, {PP(0), "0 pp"},
		{Rel(0.842), "+84.2 %"}, {Rel(-4e-7), "0.00 %"}, {Rel(-0.975), "−97.5 %"},
		{Ratio(1.1523), "1.152×"}, {Ratio(0.00643), "0.00643×"}, {RatioValue(0.0254), "0.0254"},
		{Sig(1234.5), "1,234"}, {Sig(-3.5), "−3.50"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
