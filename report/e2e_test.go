//go:build e2e

package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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
	index := func(dir string) (string, error) {
		var runs []IndexEntry
		for i, in := range []Input{singleInput(), compareInput(), singleInput()} {
			s := in.Baseline.Summary
			s.RunID = "nightly-2026-11-2" + string(rune('0'+i))
			s.RunStart, s.RunEnd = s.RunStart.AddDate(0, 0, i), s.RunEnd.AddDate(0, 0, i)
			runs = append(runs, IndexEntry{Name: s.RunID, Summary: s, Verdict: in.Verdict})
			if _, err := Write(filepath.Join(dir, "run="+s.RunID), in); err != nil {
				return "", err
			}
		}
		return filepath.Join(dir, "index.html"), WriteIndex(dir, runs)
	}
	cases := []struct {
		name     string
		write    func(dir string) (string, error)
		sections []string
		images   int
		width    int
	}{
		{"single", report(singleInput()), wantSections, 6, chartWidth},
		{"compare", report(compareInput()), wantSections, 6, chartWidth},
		{"index", index, []string{"runs", "trends"}, 4, chartWidth},
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
