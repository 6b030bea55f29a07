#!/bin/sh
# tpsreport-gate.sh: the gate a review's CI job runs, and the comment it posts.
#
#   ci/tpsreport-gate.sh OUT BASELINE CANDIDATE [compare flags...]
#
# BASELINE and CANDIDATE are analysed run datasets (tpsreport ingest and
# analyze, or ROOT/run=NAME of tpsreport run), or directories of logs, which
# are ingested and analysed first into OUT/runs/baseline and OUT/runs/candidate
# (every file's format sniffed). compare --gate writes the report into
# OUT/report; OUT/comment.md is the body to post on the review: the verdict's
# summary.md and a last line that says what the exit status means and where
# the full report is. The script exits as compare --gate does: 0 PASS, 1 FAIL,
# 3 INCONCLUSIVE; 2 when the gate could not run, with OUT/comment.md saying
# why. TPSREPORT_REPORT_URL, when set, is where the job published OUT/report.
# The GitHub and GitLab jobs beside this script post the comment.
set -u

if [ $# -lt 3 ]; then
	echo "usage: $0 OUT BASELINE CANDIDATE [compare flags...]" >&2
	exit 2
fi
out=$1 base=$2 cand=$3
shift 3
mkdir -p "$out" || exit 2

# run NAME DIR: DIR itself when it is a run dataset, else its logs ingested
# and analysed into $out/runs/NAME. Prints the dataset's path.
run() {
	if [ -f "$2/manifest.json" ]; then
		echo "$2"
		return 0
	fi
	rm -rf "$out/runs/$1"
	tpsreport ingest --run "$1" --out "$out/runs/$1" "$2" >&2 &&
		tpsreport analyze "$out/runs/$1" >&2 &&
		echo "$out/runs/$1"
}

fail() {
	{
		echo "# ⚠️ tpsreport could not judge this change"
		echo
		echo "$1"
		echo
		echo "<!-- tpsreport-gate: exit 2 -->"
	} >"$out/comment.md"
	exit 2
}

command -v tpsreport >/dev/null 2>&1 || fail "tpsreport is not on the job's PATH: install it first (go install -tags duckdb_arrow github.com/tpsreport/tpsreport/cmd/tpsreport@latest)."
b=$(run baseline "$base") || fail "The baseline ($base) could not be read: see the job's log."
c=$(run candidate "$cand") || fail "The candidate ($cand) could not be read: see the job's log."
tpsreport compare --gate --out "$out/report" "$@" "$b" "$c"
code=$?
case $code in
0) meaning="PASS: every criterion holds" ;;
1) meaning="FAIL: a criterion regressed" ;;
3) meaning="INCONCLUSIVE: the data cannot support a verdict" ;;
*) fail "tpsreport compare stopped with status $code: see the job's log." ;;
esac
where="the full report is report.html in the job's artifacts"
if [ -n "${TPSREPORT_REPORT_URL:-}" ]; then
	where="full report: ${TPSREPORT_REPORT_URL}"
fi
{
	cat "$out/report/summary.md"
	echo
	echo "---"
	echo "tpsreport compare --gate exited $code ($meaning); $where. $(tpsreport --version)."
	echo
	echo "<!-- tpsreport-gate: exit $code -->"
} >"$out/comment.md" || exit 2
exit $code
