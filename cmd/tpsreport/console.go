package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
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
