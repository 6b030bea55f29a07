#!/usr/bin/env bash
# analyze-identical.sh: analyze the same datasets with two tpsreport binaries
# and require identical outputs (summary.json, curves.json, windows.parquet,
# requests.parquet, latencies.parquet): the JSON byte for byte, the Parquet
# files row for row (tools/pqdiff, when their bytes differ: a splice and
# DuckDB's COPY write the same rows in different bytes). For refactors of
# analyze that must not change a number: the demo's runs, every simulator
# scenario as canonical spans, a gateway + engine run, and a large
# multi-replica run.
#
#   scripts/analyze-identical.sh OLD_BIN NEW_BIN [WORK_DIR]
#
# LARGE (default 1000000) sets the span count of the large run; 0 skips it.
set -euo pipefail
old=$(realpath "$1"); new=$(realpath "$2"); work=$(realpath -m "${3:-$(mktemp -d)}")
large=${LARGE:-1000000}
mkdir -p "$work"
(cd "$(dirname "$0")/.." && go build -o "$work/pqdiff" ./tools/pqdiff)
cd "$work"

datasets=()
ingest() { # NAME INPUT...
	local name=$1; shift
	if [ ! -f "in/$name/manifest.json" ]; then
		"$new" ingest --run "$name" --out "in/$name" "$@" >/dev/null
	fi
	datasets+=("$name")
}

"$new" demo --out demo >/dev/null
for r in baseline candidate; do
	ingest "demo-$r" "litellm:demo/logs/$r/litellm.jsonl.gz" "vllm-otel:demo/logs/$r/vllm-otel.jsonl.gz" "vllm-log:demo/logs/$r/vllm.log.gz"
done
for s in $("$new" simulate --help | sed -n 's/.*Scenarios: \(.*\)\. One.*/\1/p' | tr -d ','); do
	[ -d "sim/$s" ] || "$new" simulate --scenario "$s" --seed 3 --out "sim/$s" >/dev/null
	ingest "spans-$s" --format spans "sim/$s/spans.jsonl" "samples:sim/$s/samples.jsonl"
done
ingest joined-retry-storm "litellm:sim/retry-storm/litellm.jsonl" "vllm-otel:sim/retry-storm/vllm-otel.jsonl"
ingest engine-stall "vllm-otel:sim/stall/vllm-otel.jsonl" "vllm-log:sim/stall/vllm.log"
if [ "$large" -gt 0 ]; then
	[ -d sim/large ] || "$new" simulate --scenario multi-replica --seed 1 --duration 6h --rate 60 --max-arrivals "$large" --out sim/large >/dev/null
	ingest large --format spans sim/large/spans.jsonl
fi

status=0
for d in "${datasets[@]}"; do
	for b in old new; do
		rm -rf "$b/$d"; mkdir -p "$b"; cp -r "in/$d" "$b/$d"
		bin=$old; [ $b = new ] && bin=$new
		"$bin" analyze "$b/$d" >/dev/null
	done
	for f in summary.json curves.json windows.parquet requests.parquet latencies.parquet; do
		if cmp -s "old/$d/$f" "new/$d/$f"; then
			continue
		fi
		case $f in
		*.parquet)
			if why=$(./pqdiff "old/$d/$f" "new/$d/$f"); then
				echo "same rows $d/$f"
			else
				echo "DIFFERENT $d/$f: $why"; status=1
			fi ;;
		*) echo "DIFFERENT $d/$f"; status=1 ;;
		esac
	done
	echo "compared $d"
done
[ $status = 0 ] && echo "identical: ${#datasets[@]} datasets"
exit $status
