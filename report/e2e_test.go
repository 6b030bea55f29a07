//go:build e2e

package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestE2EBrowser opens a single-run and a comparison report in headless
// Chromium from file:// URLs and fails on any console error, exception,
// failed request or request that is not file: or data:. It saves full-page
// screenshots (screen and print media) to $E2E_OUT for people to look at.
//
//	go test -tags e2e -run E2E ./report/
func TestE2EBrowser(t *testing.T) {
	chromium := "/usr/bin/chromium"
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("no browser at %s (apt-get install -y chromium): %v", chromium, err)
	}
	out := os.Getenv("E2E_OUT")
	if out == "" {
		out = t.TempDir()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(work, "profile")),
		chromedp.WindowSize(1366, 900), // a laptop screen
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()

	report := func(in Input) func(dir string) (string, error) {
		return func(dir string) (string, error) {
			_, err := Write(dir, in)
			return filepath.Join(dir, "report.html"), err
		}
	}
	index := func(inputs ...Input) func(dir string) (string, error) {
		return func(dir string) (string, error) { return writeIndexOf(dir, inputs) }
	}
	cases := []struct {
		name     string
		write    func(dir string) (string, error)
		sections []string
		images   int
		width    int
		viewport int64 // CSS px; 0 keeps the window's 1366
	}{
		{"single", report(singleInput()), wantSections, len(wantCharts), chartWidth, 0},
		{"compare", report(compareInput()), wantSections, len(wantCharts), chartWidth, 0},
		{"compare_latency", report(latencyCompareInput()), wantSections, len(wantCharts), chartWidth, 0},
		{"index", index(singleInput(), compareInput(), singleInput()), []string{"runs", "trends"}, 4, chartWidth, 0},
		// A code review's side panel: every table must fit, wrapping text.
		{"compare_800", report(compareInput()), wantSections, len(wantCharts), chartWidth, 800},
		{"compare_latency_800", report(latencyCompareInput()), wantSections, len(wantCharts), chartWidth, 800},
		{"single_800", report(singleInput()), wantSections, len(wantCharts), chartWidth, 800},
		{"index_800", index(singleInput(), compareInput(), singleInput()), []string{"runs", "trends"}, 4, chartWidth, 800},
		// Priced runs: the cost and capacity sections, and the index's cost
		// column and trend.
		{"single_cost_800", report(singleCostInput(t)), sectionsWith("cost", "capacity"), len(wantCharts), chartWidth, 800},
		{"compare_cost_800", report(compareCostInput()), sectionsWith("cost"), len(wantCharts), chartWidth, 800},
		{"index_cost_800", index(singleCostInput(t), compareCostInput(), singleCostInput(t)), []string{"runs", "trends"}, 5, chartWidth, 800},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, err := tc.write(filepath.Join(work, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			page := (&url.URL{Scheme: "file", Path: path}).String()

			var mu sync.Mutex
			var problems []string
			problem := func(a ...string) {
				mu.Lock()
				defer mu.Unlock()
				problems = append(problems, strings.Join(a, " "))
			}
			// The listener sees every event of the tab from its start.
			listen := func(ev any) {
				switch ev := ev.(type) {
				case *runtime.EventConsoleAPICalled:
					if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
						problem("console", string(ev.Type))
					}
				case *runtime.EventExceptionThrown:
					problem("exception:", ev.ExceptionDetails.Text)
				case *cdplog.EventEntryAdded:
					if ev.Entry.Level == cdplog.EntryLevelError {
						problem("log error:", ev.Entry.Text, ev.Entry.URL)
					}
				case *network.EventRequestWillBeSent:
					u := ev.Request.URL
					if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
						problem("non-file request:", u)
					}
				case *network.EventLoadingFailed:
					problem("failed request:", ev.ErrorText)
				}
			}
			ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
			defer cancel()
			ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
			defer cancelT()
			if tc.viewport > 0 {
				if err := chromedp.Do(ctx, chromedp.EmulateViewport(tc.viewport, 900)); err != nil {
					t.Fatalf("viewport: %v", err)
				}
			}
			if err := chromedp.Do(ctx,
				chromedp.Navigate(page),
				chromedp.WaitReady(chromedp.ID(tc.sections[len(tc.sections)-1])),
			); err != nil {
				t.Fatalf("browser: %v", err)
			}
			ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("section[id]")).map(s => s.id)`))
			if err != nil {
				t.Fatal(err)
			}
			overflows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](overflowJS))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range overflows {
				t.Errorf("overflow at %d px: %s", tc.viewport, o)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
				t.Fatal(err)
			}
			printShot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			imagesOK, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(
				`document.images.length === %d && Array.from(document.images).every(i => i.complete && i.naturalWidth === %d)`, tc.images, tc.width)))
			if err != nil {
				t.Fatal(err)
			}
			if !imagesOK {
				t.Error("some chart did not load as a 1200 px wide image")
			}
			if strings.Join(ids, ",") != strings.Join(tc.sections, ",") {
				t.Errorf("sections = %v, want %v", ids, tc.sections)
			}
			mu.Lock()
			for _, p := range problems {
				t.Error(p)
			}
			mu.Unlock()
			for name, b := range map[string][]byte{tc.name + ".png": shot, tc.name + "_print.png": printShot} {
				if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("screenshots in %s", out)
		})
	}
}

// overflowJS lists what does not fit: a table cell whose content is wider
// than the cell (clipped or spilling), a table wider than its container, and
// a page wider than the viewport. The report holds no script; only the test
// evaluates this.
const overflowJS = `(() => {
  const out = [];
  const name = e => {
    const t = e.closest("table");
    const s = e.closest("section[id]");
    return (s ? "#" + s.id + " " : "") + (t && t.className ? "table." + t.className.split(" ")[0] + " " : "") +
      e.tagName.toLowerCase() + " \"" + e.textContent.trim().slice(0, 40) + "\"";
  };
  for (const c of document.querySelectorAll("td, th")) {
    if (c.scrollWidth > c.clientWidth + 1) {
      out.push(name(c) + ": content " + c.scrollWidth + " px in a " + c.clientWidth + " px cell");
    }
  }
  for (const t of document.querySelectorAll("table")) {
    const box = t.parentElement.clientWidth;
    if (t.offsetWidth > box + 1) {
      out.push(name(t) + ": table " + t.offsetWidth + " px in a " + box + " px container");
    }
    if (t.getBoundingClientRect().right > document.documentElement.clientWidth + 1) {
      out.push(name(t) + ": table ends at " + Math.round(t.getBoundingClientRect().right) + " px, past the viewport");
    }
  }
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) {
    out.push("page is " + document.documentElement.scrollWidth + " px wide in a " + document.documentElement.clientWidth + " px viewport");
  }
  return out;
})()`

// writeIndexOf writes an index of the inputs' (first) runs, a day apart,
// each with its report, into dir.
func writeIndexOf(dir string, inputs []Input) (string, error) {
	var runs []IndexEntry
	for i, in := range inputs {
		s := in.Baseline.Summary
		s.RunID = "nightly-2026-11-2" + string(rune('0'+i))
		s.RunStart, s.RunEnd = s.RunStart.AddDate(0, 0, i), s.RunEnd.AddDate(0, 0, i)
		runs = append(runs, IndexEntry{Name: s.RunID, Summary: s, Verdict: in.Verdict})
		if _, err := Write(filepath.Join(dir, "run="+s.RunID), in); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "index.html"), WriteIndex(dir, "test", runs)
}

// sectionsWith is wantSections with the given sections after "metrics", where
// the report places cost and capacity.
func sectionsWith(extra ...string) []string {
	i := slices.Index(wantSections, "metrics") + 1
	return slices.Concat(wantSections[:i], extra, wantSections[i:])
}
