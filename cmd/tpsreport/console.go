package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// consoleHandler prints warnings the way the CLI prints errors, one line
// each: "tpsreport: warning: MSG key=value ...", without the time and level
// fields of slog's text format, which read as a developer's trace. --verbose
// and --debug switch to the text format, where those fields help.
type consoleHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	attrs []slog.Attr
}

func newConsoleHandler(w io.Writer) *consoleHandler {
	return &consoleHandler{mu: &sync.Mutex{}, w: w}
}

func (h *consoleHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }

func (h *consoleHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("tpsreport: ")
	if r.Level >= slog.LevelError {
		b.WriteString("error: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

func (h *consoleHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &consoleHandler{mu: h.mu, w: h.w, attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

// WithGroup is not used by tpsreport's logging; attributes stay flat.
func (h *consoleHandler) WithGroup(string) slog.Handler { return h }

// termWriter escapes the control characters in what it writes, but for
// newline and tab: names from the logs (models, replicas, run ids, file
// paths) reach the console in messages and tables, and an ESC or a carriage
// return in one could rewrite the terminal or hide a line. C0 controls,
// DEL and C1 controls are written as \xNN or \u00NN.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	clean := true
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		if needsEscape(r, n) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return t.w.Write(p)
	}
	var b bytes.Buffer
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case !needsEscape(r, n):
			b.Write(p[i : i+n])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	if _, err := t.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// needsEscape: a control character other than newline and tab, or an
// invisible one that reorders or hides text (Unicode format characters:
// bidi overrides and isolates, zero-width marks; line and paragraph
// separators). r is the rune of n bytes that utf8.DecodeRune read; invalid
// bytes pass as they are.
func needsEscape(r rune, n int) bool {
	if r == utf8.RuneError && n <= 1 {
		return false
	}
	if r == '\n' || r == '\t' {
		return false
	}
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f ||
		unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// cell puts a value from the logs on one line of a console table: a
// newline or carriage return in it is written as \n or \r, so that it can
// neither break the table nor start a line of its own.
func cell(s string) string {
	return cellBreaks.Replace(s)
}

var cellBreaks = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// raw is the writer behind a termWriter: the progress line rewrites itself
// with a carriage return and ESC [K, on a terminal only.
func raw(w io.Writer) io.Writer {
	if t, ok := w.(termWriter); ok {
		return t.w
	}
	return w
}
