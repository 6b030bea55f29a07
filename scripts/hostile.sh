#!/usr/bin/env bash
# hostile.sh: run bin/tpsreport against hostile inputs and kills, each command
# bounded in time (timeout) and memory (peak RSS from /usr/bin/time), and check
# that every dataset or run directory is whole afterwards: the old set or the
# new one, with nothing hidden left once the next command ran.
#
#   scripts/hostile.sh [BIN]     (make hostile builds BIN first)
#
# Cases: instants at epoch 0, year 1 and year 9999; a --from/--to of ten
# thousand years; --window 1us; /dev/zero and an endless stdin as input; two
# jobs on one dataset (the first holds it while it waits on a FIFO); SIGKILL
# at several moments of ingest, analyze and a nightly re-run; a criteria file
# past its bounds and SIGTERM in the middle of compare's resampling; a lock
# file planted as a link; a gzip bomb of one JSON document.
set -euo pipefail

B=$(realpath "${1:-bin/tpsreport}")
LIMIT_KB=$((1024 * 1024)) # 1 GiB peak RSS per command
W=$(mktemp -d)
wd=
mounts=()
trap 'unwatch; for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; rm -rf "$W"' EXIT
cd "$W"
start=$SECONDS

fail() {
	echo "hostile: FAIL: $*" >&2
	if [[ -s err ]]; then sed 's/^/    stderr: /' err >&2; fi
	exit 1
}
note() { echo "hostile: $*"; }

# bounded SECONDS CMD...: run CMD with a time limit (SIGKILL 2 s after the
# SIGTERM if it does not stop) and check its peak RSS. Sets rc; stdout and
# stderr are in ./out and ./err. A hang (the limit reached) fails.
bounded() {
	local limit=$1
	shift
	set +e
	/usr/bin/time -f %M -o rss timeout -k 2 "$limit" "$@" >out 2>err
	rc=$?
	set -e
	check_rss "$*"
	if ((rc == 124 || rc == 137)); then
		fail "$* did not end within $limit s"
	fi
}

# killed SECONDS CMD...: run CMD and SIGKILL it after SECONDS (if still
# running), checking its peak RSS. Sets rc (137 when killed). --foreground:
# without it timeout sends the SIGKILL to its whole process group, itself
# included, and dies before CMD has exited, so that the next command could
# find CMD's lock still held; with it timeout kills CMD alone and waits for
# it.
killed() {
	local after=$1
	shift
	set +e
	/usr/bin/time -f %M -o rss timeout --foreground -s KILL "$after" "$@" >out 2>err
	rc=$?
	set -e
	check_rss "$*"
}

# watchdog PID: a job run in the background (to hold a lock) is killed
# after 60 s like every other command; unwatch once it has ended.
watchdog() {
	(sleep 60 && kill -9 "$1") 2>/dev/null &
	wd=$!
}
unwatch() {
	if [[ -n $wd ]]; then
		pkill -P "$wd" sleep 2>/dev/null || true
		kill "$wd" 2>/dev/null || true
		wait "$wd" 2>/dev/null || true
		wd=
	fi
}

check_rss() {
	local kb
	kb=$(grep -E '^[0-9]+$' rss | tail -n 1 || true)
	if [[ -n $kb ]] && ((kb > LIMIT_KB)); then
		fail "$1: peak RSS $kb KB, over 1 GiB"
	fi
}

# one_line_error CMD: the last command failed with exit 2 and one line.
one_line_error() {
	((rc == 2)) || fail "$1: exit $rc, want 2"
	(($(wc -l <err) == 1)) || fail "$1: $(wc -l <err) lines on stderr, want one"
}

# no_leftovers DIR...: nothing hidden in DIR: no stage, no spill, and no
# lock file once its holder is done (review N11).
no_leftovers() {
	local d left
	for d in "$@"; do
		left=$(find "$d" -mindepth 1 -maxdepth 1 -name '.*' -printf '%f ')
		[[ -z $left ]] || fail "left in $d: $left"
	done
}

# run_id DIR: the run the manifest of DIR names.
run_id() { sed -n 's/^  "run_id": "\(.*\)",$/\1/p' "$1/manifest.json"; }

# whole DIR RUN...: DIR is one whole dataset of one of the runs: its
# analysis (when there is one) and its data match its manifest (report and
# analyze verify them), and the next command (analyze) leaves nothing hidden.
whole() {
	local dir=$1 id
	shift
	id=$(run_id "$dir")
	[[ " $* " == *" $id "* ]] || fail "$dir holds run '$id', want one of: $*"
	if [[ -e $dir/summary.json ]]; then
		bounded 60 "$B" report --out chk "$dir"
		((rc == 0)) || fail "report $dir: exit $rc (a mixed analysis?)"
	fi
	bounded 60 "$B" analyze --window 10s "$dir"
	((rc == 0)) || fail "analyze $dir: exit $rc (mixed data?)"
	no_leftovers "$dir" "$(dirname "$dir")"
}

bounded 60 "$B" simulate --scenario light --seed 3 --out sim/light
bounded 60 "$B" simulate --scenario stall --seed 7 --out sim/stall
mkdir in

# 1. Implausible instants. Until ingest quarantines them, analyze refuses
# the extent in one line (exit 2); never a hang or gigabytes.
first=$(head -n 1 sim/light/spans.jsonl)
for c in 'epoch0 0' 'year1 "0001-01-01T00:00:00Z"' 'year9999 "9999-12-31T23:59:59Z"'; do
	name=${c%% *} at=${c#* }
	{
		sed "s/\"span_id\":\"[^\"]*\"/\"span_id\":\"$name\"/; s/\"request_id\":\"[^\"]*\"/\"request_id\":\"$name\"/; s/\"queued_at\":\"[^\"]*\"/\"queued_at\":$at/" <<<"$first"
		cat sim/light/spans.jsonl
	} >"in/$name.jsonl"
	bounded 60 "$B" ingest --format spans --run "$name" --out "$name" "in/$name.jsonl"
	if ((rc == 2)); then
		one_line_error "ingest $name"
		note "$name: ingest refuses it: $(cat err)"
		continue
	fi
	((rc == 0)) || fail "ingest $name: exit $rc"
	bounded 60 "$B" analyze "$name"
	if ((rc != 0)); then
		one_line_error "analyze $name"
		note "$name: analyze refuses it: $(cat err)"
	else
		note "$name: quarantined at ingest; analyze ok"
	fi
	no_leftovers "$name" .
done

# 2. Runaway flags on a normal dataset: one line, exit 2 (or, once the
# extent is clipped to the data, a normal analysis).
bounded 60 "$B" ingest --format spans --run base --out ds sim/light/spans.jsonl
((rc == 0)) || fail "ingest ds: exit $rc"
for flags in '--from 0001-01-01T00:00:00Z --to 9999-12-31T23:59:59Z' '--window 1us'; do
	# shellcheck disable=SC2086
	bounded 60 "$B" analyze $flags ds
	((rc == 0)) || one_line_error "analyze $flags"
done
bounded 60 "$B" analyze --window 10s ds
((rc == 0)) || fail "analyze ds: exit $rc"
no_leftovers ds .

# 3. Endless inputs: a device is refused at once; an endless stream of valid
# records (stdin) is killed by the harness with its memory bounded; the
# dataset either was to replace stays whole.
bounded 60 "$B" ingest --format spans --run zero --out ds /dev/zero
one_line_error "ingest /dev/zero"
bounded 60 "$B" compare --criteria /dev/zero --out cmpz ds ds
one_line_error "compare --criteria /dev/zero"
set +e
yes "$first" | /usr/bin/time -f %M -o rss timeout --foreground -s KILL 2 "$B" ingest --format spans --run endless --out ds - >out 2>err
rc=${PIPESTATUS[1]}
set -e
check_rss "ingest of an endless stdin"
((rc == 137)) || fail "ingest of an endless stdin ended by itself with exit $rc"
whole ds base

# 4. Two jobs on one dataset: the first holds it (its input, a FIFO, blocks),
# the second fails at once naming it; the first then completes.
mkfifo fifo
"$B" ingest --format spans --run A --out two fifo >a.out 2>a.err &
A=$!
watchdog $A
for _ in $(seq 200); do
	grep -q "^$A " .two.lock 2>/dev/null && break
	sleep 0.05
done
grep -q "^$A " .two.lock || fail "ingest A did not take the lock"
want="tpsreport: two is in use by PID $A (tpsreport ingest --format spans --run A --out two fifo)"
bounded 60 "$B" ingest --format spans --run B --out two sim/light/spans.jsonl
one_line_error "a second ingest"
[[ $(cat err) == "$want" ]] || fail "second ingest: $(cat err), want $want"
bounded 60 "$B" analyze two
one_line_error "analyze during ingest"
[[ $(cat err) == "$want" ]] || fail "analyze during ingest: $(cat err), want $want"
timeout 60 cat sim/light/spans.jsonl >fifo
wait $A || fail "ingest A: exit $?"
unwatch
whole two A

# 5. SIGKILL during ingest and analyze: the dataset is the old set or the
# new one. First at a known moment (half the input read from a FIFO), then
# at several times.
"$B" ingest --format spans --run new --out ds fifo >/dev/null 2>&1 &
A=$!
watchdog $A
exec 3>fifo # the input stays open: no end of input
head -n 1000 sim/stall/spans.jsonl >&3
kill -9 $A
wait $A 2>/dev/null || true
unwatch
exec 3>&-
# What the killed writer left (its stage, its lock file) is removed by the
# next command that reads the dataset, not only by the next that writes it
# (review N11).
[[ -n $(find . -maxdepth 1 -name '.ds.stage-*') ]] || fail "the killed ingest left no stage"
bounded 60 "$B" report --out chk ds
((rc == 0)) || fail "report after a killed ingest: exit $rc"
no_leftovers . ds
whole ds base
for t in 0.05 0.3 1; do
	killed "$t" "$B" ingest --format spans --run "new$t" --out ds sim/stall/spans.jsonl
	whole ds base "new$t"
	killed "$t" "$B" analyze --window 5s ds
	whole ds base "new$t"
done

# 6. SIGKILL during a nightly re-run (its compare included): run=night is
# always there with a verdict; the next run leaves nothing hidden.
bounded 60 "$B" run --root root --run base sim/light/spans.jsonl
((rc == 0)) || fail "run base: exit $rc"
bounded 60 "$B" run --root root --run night --baseline base sim/stall/spans.jsonl
((rc == 0)) || fail "run night: exit $rc"
for t in 0.2 0.6 1 1.5; do
	killed "$t" "$B" run --root root --run night --baseline base sim/stall/spans.jsonl
	[[ -e root/run=night/compare/verdict.json ]] || fail "run killed after $t s: run=night has no verdict"
	bounded 60 "$B" report --out chk root/run=night
	((rc == 0)) || fail "run killed after $t s: run=night is not whole"
done
bounded 60 "$B" run --root root --run night --baseline base sim/stall/spans.jsonl
((rc == 0)) || fail "run night after the kills: exit $rc"
no_leftovers root root/run=night

# 7. A criteria file is input like any other: resamples past its bound is
# refused at once (one line, exit 2), and a compare given SIGTERM in the
# middle of its resampling stops within 2 s with 143 (hostile-input review
# N1).
bounded 60 "$B" ingest --format spans --run s1 --out s1 sim/stall/spans.jsonl
bounded 60 "$B" analyze s1
((rc == 0)) || fail "analyze s1: exit $rc"
printf 'resamples: 2147483648\n' >huge.yaml
bounded 60 "$B" compare --gate --criteria huge.yaml --out cmph s1 ds
one_line_error "compare --criteria huge.yaml"
"$B" compare --resamples 100000 --out cmpt s1 ds >/dev/null 2>&1 &
A=$!
watchdog $A
sleep 1
kill -TERM $A
t0=$SECONDS
set +e
wait $A
rc=$?
set -e
unwatch
((rc == 143)) || fail "compare given SIGTERM mid-resampling: exit $rc, want 143"
((SECONDS - t0 <= 2)) || fail "compare given SIGTERM mid-resampling took $((SECONDS - t0)) s to stop"
[[ ! -e cmpt ]] || fail "compare given SIGTERM left cmpt"

# 8. A lock file planted as a link is refused; the file it points to stays
# as it was (hostile-input review N2).
echo "IMPORTANT CONTENT" >victim.txt
ln -s "$W/victim.txt" .sym.lock
bounded 60 "$B" ingest --format spans --run s --out sym sim/light/spans.jsonl
one_line_error "ingest with a planted lock link"
[[ $(cat victim.txt) == "IMPORTANT CONTENT" ]] || fail "the lock link's target was written: $(cat victim.txt)"
[[ ! -e sym ]] || fail "ingest with a planted lock link wrote sym"

# 9. A whole-document format's document past 256 MiB decompressed fails in
# one line, in seconds, its memory bounded (review N7): a 300 MB document in
# a 1.3 MB gzip.
(printf '{"benchmarks":[{"x":"'; head -c 300000000 /dev/zero | tr '\0' a; printf '"}]}') | gzip -1 >bomb.json.gz
for f in vllm-bench inference-perf llmperf sglang-bench guidellm; do
	bounded 60 "$B" ingest --format "$f" --run bomb --out "bomb-$f" bomb.json.gz
	one_line_error "ingest --format $f of a 300 MB document"
done
rm bomb.json.gz

# 10. A log cut at a byte offset is read but for its cut first line,
# counted (review N3); a directory holding a checkout's .git and .env keeps
# them through ingest and report (review N4).
mkdir rot
tail -c +200 sim/stall/spans.jsonl >rot/spans-2.jsonl
cp sim/light/spans.jsonl rot/spans-1.jsonl
bounded 60 "$B" ingest --run rot --out rotds rot/
((rc == 0)) || fail "ingest of a directory with a cut log: exit $rc"
grep -q '"written": 3177,' rotds/manifest.json || fail "a cut log was not read: $(grep -A4 '"counts"' rotds/manifest.json)"
grep -q '"rejected": 1,' rotds/manifest.json || fail "a cut log's first line was not counted"
mkdir -p home/.git
echo secret >home/.env
echo ref >home/.git/HEAD
bounded 60 "$B" ingest --format spans --run h --out home sim/light/spans.jsonl
((rc == 0)) || fail "ingest into a directory with .git: exit $rc"
bounded 60 "$B" report --out home/rep home
[[ $(cat home/.env) == secret && $(cat home/.git/HEAD) == ref ]] || fail ".git or .env of an output directory deleted"

# 11. A mount point (a separate disk) and a bind mount (a container's
# -v host:/out) cannot be swapped by a rename, so sets are moved in file by
# file (review N5, N6): every command works there, and a job killed while
# it commits leaves the old set, the new one, or a set that every reader
# refuses in one line naming the command that rebuilds it; never a mix read
# as whole. Mounting needs root: elsewhere the case is skipped.
mkdir mp bsrc bdst
if mount -t tmpfs -o size=64m tmpfs mp 2>/dev/null && mounts+=("$W/mp") && mount --bind bsrc bdst; then
	mounts+=("$W/bdst")
	for d in mp bdst; do
		bounded 60 "$B" ingest --format spans --run old --out "$d" sim/stall/spans.jsonl
		((rc == 0)) || fail "ingest into the mount $d: exit $rc"
		bounded 60 "$B" analyze --window 10s "$d"
		((rc == 0)) || fail "analyze the mount $d: exit $rc"
		bounded 60 "$B" report --out "rep-$d" "$d"
		((rc == 0)) || fail "report of the mount $d: exit $rc"
		for t in 0.02 0.05 0.1 0.3; do
			killed "$t" "$B" ingest --format spans --run "new$t" --out "$d" sim/light/spans.jsonl
			bounded 60 "$B" analyze --window 10s "$d"
			if ((rc != 0)); then
				one_line_error "analyze the mount $d after a kill at $t s"
				grep -q 'does not match manifest.json.*Try: tpsreport ingest' err ||
					fail "analyze the mount $d after a kill at $t s: $(cat err)"
				note "$d killed at $t s: the mixed set is refused"
				bounded 60 "$B" ingest --format spans --run old --out "$d" sim/stall/spans.jsonl
				((rc == 0)) || fail "re-ingest the mount $d: exit $rc"
			else
				id=$(run_id "$d")
				[[ $id == old || $id == "new$t" ]] || fail "the mount $d holds run '$id' after a kill at $t s"
			fi
		done
	done
else
	note "mount points and bind mounts: not tested (mounting needs root)"
fi

note "all cases held in $((SECONDS - start)) s"
