package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/tpsreport/tpsreport/internal/suggest"
)

// Exit codes (STYLE.md, docs/acceptance.md): one table, applied in run.
const (
	exitOK           = 0
	exitFail         = 1 // a FAIL verdict with --gate
	exitUsage        = 2 // usage and input errors, in every command
	exitInconclusive = 3 // an INCONCLUSIVE verdict with --gate; a plan of no run
)

// exitError carries an exit code other than exitUsage up to run.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// version is set with -ldflags "-X main.version=..." (make build sets it to
// git describe); otherwise toolVersion reads the build's own information.
var version = ""

func toolVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(version, bi)
}

// versionOf names a build: the version it was linked with, else its module
// version (go install m@v1.2.3), else the VCS revision Go stamped into it
// (go build in a checkout), with "-dirty" for uncommitted changes, else "dev".
func versionOf(linked string, bi *debug.BuildInfo) string {
	if linked != "" {
		return linked
	}
	if bi == nil {
		return "dev"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// env is what every subcommand may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
	args           []string // the command line, for "reproduce"
	isTerminal     func(w io.Writer) bool
	stopProfile    func() // set by --cpuprofile
}

// run builds the app, runs it and maps its outcome to an exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	stdout, stderr = termWriter{stdout}, termWriter{stderr}
	e := &env{
		stdin: stdin, stdout: stdout, stderr: stderr, args: args,
		log:        slog.New(newConsoleHandler(stderr)),
		isTerminal: isTerminal,
	}
	app := newApp(e)
	err := app.RunContext(ctx, reorderArgs(app, args))
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		// A signal stopped the command: every output is built in a
		// stage and swapped in whole (internal/dataset), so what was there
		// is still there.
		fmt.Fprintln(stderr, "tpsreport: interrupted; every output is as it was before this command")
		return exitUsage
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintln(stderr, "tpsreport:", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintln(stderr, "tpsreport:", oneLine(err.Error()))
	return exitUsage
}

// oneLine folds a multi-line error message (YAML's, say) into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "tpsreport",
		Usage:   "prove from real serving logs that an LLM serving change helped",
		Version: toolVersion(),
		Description: `tpsreport reads the logs vLLM servers and LLM gateways already write, turns
them into Parquet span tables, derives with DuckDB the metrics that tell whether a
serving system is really busy (queue time, TTFT, stream and system tokens/s,
retry-adjusted throughput, success and retry rates, gap_fraction), and writes
acceptance reports comparing a baseline run with a candidate run.

   tpsreport ingest --format spans --run base --out runs/base logs/*.jsonl
   tpsreport analyze runs/base
   tpsreport report --out reports/base runs/base`,
		Reader:    e.stdin,
		Writer:    e.stdout,
		ErrWriter: e.stderr,
		// A positional argument that names no command reaches the app's
		// action: tell the user so, with the commands there are.
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return unknownCommand(c.App, c.Args().First())
			}
			return cli.ShowAppHelp(c)
		},
		// urfave/cli would call os.Exit itself; run maps errors to exit codes instead.
		ExitErrHandler: func(*cli.Context, error) {},
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "verbose", Usage: "log progress at info level on stderr"},
			&cli.BoolFlag{Name: "debug", Usage: "log at debug level (every query with its time)", Hidden: true},
			&cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile (pprof) to `FILE`", Hidden: true},
		},
		Before: func(c *cli.Context) error {
			switch {
			case c.Bool("debug"):
				e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
			case c.Bool("verbose"):
				e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
			}
			if p := c.String("cpuprofile"); p != "" {
				f, err := os.Create(p)
				if err != nil {
					return err
				}
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				e.stopProfile = func() { pprof.StopCPUProfile(); f.Close() }
			}
			return nil
		},
		After: func(*cli.Context) error {
			if e.stopProfile != nil {
				e.stopProfile()
			}
			return nil
		},
		Commands: []*cli.Command{
			ingestCommand(e),
			analyzeCommand(e),
			reportCommand(e),
			compareCommand(e),
			planCommand(e),
			runCommand(e),
			historyCommand(e),
			simulateCommand(e),
			demoCommand(e),
			versionCommand(e),
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error { return flagValueError(c, err) },
	}
	for _, c := range app.Commands {
		c.OnUsageError = app.OnUsageError
		checkRequired(c)
	}
	return app
}

func versionCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of this build (as --version does)",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(c, "takes no arguments")
			}
			fmt.Fprintf(e.stdout, "%s version %s\n", c.App.Name, c.App.Version)
			return nil
		},
	}
}

// badFlagValue matches the error Go's flag package gives for a value that
// does not parse.
// unknownFlag matches the flag package's error for a flag the command does
// not define.
var unknownFlag = regexp.MustCompile(`^flag provided but not defined: -+(\S+)$`)

var badFlagValue = regexp.MustCompile(`^invalid value "(.*)" for flag -([a-z0-9-]+): `)

// flagValueError rewrites a flag value that does not parse into what the
// flag wants, instead of the Go parser's words ("parse error", a time layout).
func flagValueError(c *cli.Context, err error) error {
	if c.Command != nil {
		if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
			var names []string
			for _, f := range c.Command.Flags {
				names = append(names, f.Names()...)
			}
			hint := ""
			if best := suggest.Closest(m[1], names, 2); best != "" {
				hint = fmt.Sprintf(" (did you mean --%s?)", best)
			}
			return usageError(c, "unknown flag --%s%s", m[1], hint)
		}
	}
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil || c.Command == nil {
		return err
	}
	value, name := m[1], m[2]
	for _, f := range c.Command.Flags {
		if !slices.Contains(f.Names(), name) {
			continue
		}
		var want string
		switch f.(type) {
		case *cli.DurationFlag:
			want = "a duration with its unit, such as 60s, 5m or 1h30m"
		case *cli.TimestampFlag:
			want = "an RFC 3339 instant, such as 2026-11-20T10:00:00Z"
		case *cli.IntFlag, *cli.Int64Flag, *cli.Uint64Flag:
			want = "a whole number"
		case *cli.Float64Flag:
			want = "a number, such as 0.05"
		default:
			return err
		}
		return usageError(c, "--%s %q: want %s", f.Names()[0], value, want)
	}
	return err
}

// unknownCommand is the error for a first argument that names no command:
// it lists the commands, and the closest one when the name looks like a typo.
func unknownCommand(app *cli.App, name string) error {
	var names []string
	for _, c := range app.Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	hint := ""
	if best := suggest.Closest(name, names, 2); best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown command %q%s; commands: %s (see: tpsreport help)", name, hint, strings.Join(names, ", "))
}

// checkRequired moves the check of a command's required flags into its
// action: urfave/cli would print the command's whole help to stdout before
// the one-line error, which is noise in a CI log. Help still lists the flags.
func checkRequired(c *cli.Command) {
	var names []string
	for _, f := range c.Flags {
		if sf, ok := f.(*cli.StringFlag); ok && sf.Required {
			sf.Required = false
			names = append(names, sf.Name)
		}
	}
	if len(names) == 0 || c.Action == nil {
		return
	}
	action := c.Action
	c.Action = func(ctx *cli.Context) error {
		for _, n := range names {
			if !ctx.IsSet(n) {
				return usageError(ctx, "--%s is required", n)
			}
		}
		return action(ctx)
	}
}

// reorderArgs moves a subcommand's flags in front of its positional arguments,
// so that `tpsreport analyze DIR --window 30s` works as users type it; urfave/cli
// v2 stops parsing flags at the first positional argument. Arguments after "--"
// stay positional.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	// Find the subcommand: the first argument that names one.
	ci := -1
	var cmd *cli.Command
	for i := 1; i < len(args); i++ {
		if c := app.Command(args[i]); c != nil {
			ci, cmd = i, c
			break
		}
		if !strings.HasPrefix(args[i], "-") {
			return args
		}
	}
	if cmd == nil {
		return args
	}
	takesValue, optional := map[string]bool{}, map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		_, isGate := f.(*gateFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool && !isGate
			optional[n] = isGate
		}
	}
	var flags, pos []string
	rest := args[ci+1:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			pos = append(pos, rest[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] && i+1 < len(rest) {
				flags = append(flags, rest[i+1])
				i++
			}
			// A flag whose value is optional (run's --gate) takes the next
			// argument when it is one of its words and no such file.
			if optional[name] && i+1 < len(rest) && gateWord(rest[i+1]) {
				flags[len(flags)-1] += "=" + rest[i+1]
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	out := append([]string{}, args[:ci+1]...)
	out = append(out, flags...)
	if len(pos) > 0 {
		out = append(out, "--")
		out = append(out, pos...)
	}
	return out
}

func isTerminal(w io.Writer) bool {
	f, ok := raw(w).(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// usageError reports a usage error for the command in c.
func usageError(c *cli.Context, format string, a ...any) error {
	return fmt.Errorf("%s: %s (see: tpsreport %s --help)", c.Command.Name, fmt.Sprintf(format, a...), c.Command.Name)
}

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}
