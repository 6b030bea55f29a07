# Adds each benchmark's metrics.output_tokens_per_second to the good fixtures of
# this directory, computed from the fixture's own requests with GuideLLM's code,
# reimplemented in plain Python (numpy was not available; np.sum's pairwise
# summation may differ from these sums in the last bits; pdf, None by default,
# left out as in the other metrics of these fixtures). Every other byte is
# kept: each file is json.dumps / yaml.dump of its dictionary, as GuideLLM
# writes it, and the new key is added to that dictionary. Idempotent. Run from
# this directory; TestGuideLLMReproducesMetrics checks the means from our spans.
#
# Before 0.4 (v0.3.1, 121dcdc454e57c98ae26f86db2ed984f3c6d14a7):
#   src/guidellm/benchmark/benchmark.py GenerativeBenchmark.from_stats
#   (requests with output_tokens > 0; (start_time, end_time), first_token_time
#   or start_time, output_tokens) and src/guidellm/objects/statistics.py
#   DistributionSummary.from_iterable_request_times /
#   from_distribution_function, epsilon 1e-6.
# 0.4 and later (ee7a77457ba668b4b5ccb40f110518829893b36a):
#   src/guidellm/benchmark/schemas/metrics.py GenerativeMetrics.compile
#   (rate_distribution_from_timings_function of output_tokens_timings, no
#   start_time/end_time), src/guidellm/schemas/request_stats.py
#   output_tokens_timings / iter_tokens_timings and
#   src/guidellm/schemas/statistics.py rate_distribution_from_timings,
#   _merge_sorted_times_with_weights (threshold 1e-4), from_values, from_pdf.
import bisect, json, math, sys
from collections import defaultdict
import yaml

PCTS = [("p001", 0.001), ("p01", 0.01), ("p05", 0.05), ("p10", 0.1), ("p25", 0.25), ("p50", 0.5),
        ("p75", 0.75), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)]


def cumsum(xs):
    out, s = [], 0.0
    for x in xs:
        s += x
        out.append(s)
    return out


# ---- v0.3 ----

def v03_from_distribution_function(distribution):
    if not distribution:
        return {"mean": 0.0, "median": 0, "mode": 0, "variance": 0.0, "std_dev": 0.0, "min": 0, "max": 0,
                "count": 0, "total_sum": 0.0, "percentiles": {k: 0 for k, p in PCTS if k != "p50"},
                "cumulative_distribution_function": None}
    values = [v for v, _ in distribution]
    total_w = sum(w for _, w in distribution)
    probs = [w / total_w for _, w in distribution]
    order = sorted(range(len(values)), key=lambda i: values[i])
    values = [values[i] for i in order]
    probs = [probs[i] for i in order]
    cdf = cumsum(probs)
    first = lambda p: values[next((i for i, c in enumerate(cdf) if c >= p), 0)]
    mean = sum(v * p for v, p in zip(values, probs))
    variance = sum((v - mean) ** 2 * p for v, p in zip(values, probs))
    return {"mean": mean, "median": first(0.5), "mode": values[probs.index(max(probs))], "variance": variance,
            "std_dev": math.sqrt(variance), "min": values[0], "max": values[-1], "count": len(values),
            "total_sum": sum(values), "percentiles": {k: first(p) for k, p in PCTS if k != "p50"},
            "cumulative_distribution_function": None}


def v03_from_iterable_request_times(requests, first_iter_times, iter_counts, epsilon=1e-6):
    first_iter_counts = [1] * len(requests)
    events = defaultdict(int)
    global_start = min(s for s, _ in requests) if requests else 0
    global_end = max(e for _, e in requests) if requests else 0
    events[global_start] = 0
    events[global_end] = 0
    for (_, end), first_iter, first_iter_count, total_count in zip(requests, first_iter_times, first_iter_counts, iter_counts):
        events[first_iter] += first_iter_count
        if total_count > 1:
            iter_latency = (end - first_iter) / (total_count - 1)
            for ind in range(1, total_count):
                events[first_iter + ind * iter_latency] += 1
    flat = []
    for time, count in sorted(events.items()):
        if flat and abs(flat[-1][0] - time) <= epsilon:
            flat[-1] = (flat[-1][0], flat[-1][1] + count)
        else:
            flat.append((time, count))
    distribution = defaultdict(float)
    for ind in range(len(flat) - 1):
        start, count = flat[ind]
        duration = flat[ind + 1][0] - start
        distribution[count / duration] += duration
    return v03_from_distribution_function(sorted(distribution.items()))


def v03_output_tokens_per_second(b):
    by = {"successful": [], "incomplete": [], "error": []}
    for status, key in (("successful", "successful"), ("incomplete", "incomplete"), ("error", "errored")):
        for r in b["requests"][key]:
            if r["output_tokens"] > 0:
                by[status].append(r)
    total = by["successful"] + by["incomplete"] + by["error"]
    summ = lambda rs: v03_from_iterable_request_times(
        [(r["start_time"], r["end_time"]) for r in rs],
        [r["first_token_time"] or r["start_time"] for r in rs],
        [r["output_tokens"] for r in rs])
    return {"successful": summ(by["successful"]), "incomplete": summ(by["incomplete"]),
            "errored": summ(by["error"]), "total": summ(total)}


# ---- 0.4 and later ----

def linspace(a, b, num):
    step = (b - a) / (num - 1)
    out = [a + i * step for i in range(num)]
    out[-1] = b
    return out


def output_tokens_timings(r):
    t = r["info"]["timings"]
    first, last, iters, out = t["first_token_iteration"], t["last_token_iteration"], t["token_iterations"], r["output_tokens"]
    if first is None or last is None or iters <= 1:
        end = t["request_end"] if t["request_end"] is not None else t["resolve_end"]
        return [(last if last is not None else end, out or 0.0)]
    timings = [(first, 1.0 * bool(out))]
    if out is not None and out > 1:
        per = (out - 1.0) / (iters - 1.0)
        timings += [(x, per) for x in linspace(first, last, iters)[1:]]
    return timings


def merge_sorted_times_with_weights(wt, threshold):
    uniq = defaultdict(float)
    for t, w in wt:
        uniq[t] += w
    wt = sorted(uniq.items())
    while len(wt) > 1:
        times = [t for t, _ in wt]
        weights = [w for _, w in wt]
        within = [b - a <= threshold for a, b in zip(times, times[1:])]
        if not any(within):
            break
        starts = [i for i, x in enumerate(within) if x and (i == 0 or not within[i - 1])]
        ends = [bisect.bisect_right(times, times[s] + threshold) - 1 for s in starts]
        if len(starts) > 1:
            keep = [True] + [starts[i] > ends[i - 1] for i in range(1, len(starts))]
            starts = [s for s, k in zip(starts, keep) if k]
            ends = [e for e, k in zip(ends, keep) if k]
        cs = [0.0] + cumsum(weights)
        for s, e in zip(starts, ends):
            weights[s] = cs[e + 1] - cs[s]
        delta = [0] * (len(wt) + 1)
        for s, e in zip(starts, ends):
            delta[s] += 1
            delta[e + 1] -= 1
        remove = [c > 0 for c in cumsum(delta[:-1])]
        for s in starts:
            remove[s] = False
        wt = [(t, w) for t, w, rm in zip(times, weights, remove) if not rm]
    return wt


def v04_from_values(pairs, count):
    if not pairs:
        return {"mean": 0.0, "median": 0.0, "mode": 0.0, "variance": 0.0, "std_dev": 0.0, "min": 0.0, "max": 0.0,
                "count": count, "total_sum": 0.0, "percentiles": {k: 0.0 for k, _ in PCTS}}
    combined = defaultdict(float)
    for v, w in pairs:
        combined[v] += w
    items = [(v, w) for v, w in sorted(combined.items()) if w > 0]
    total = sum(w for _, w in items)
    values = [v for v, _ in items]
    probs = [w / total for _, w in items]
    cdf = cumsum(probs)
    pct = {k: values[bisect.bisect_left(cdf, p)] for k, p in PCTS}
    mean = sum(v * p for v, p in zip(values, probs))
    variance = sum((v - mean) ** 2 * p for v, p in zip(values, probs))
    return {"mean": mean, "median": pct["p50"], "mode": values[probs.index(max(probs))], "variance": variance,
            "std_dev": math.sqrt(variance), "min": values[0], "max": values[-1], "count": count,
            "total_sum": mean * count, "percentiles": pct}


def v04_rate_distribution_from_timings(events, threshold=1e-4, epsilon=1e-6):
    wt = merge_sorted_times_with_weights(events, threshold)
    if len(wt) <= 1:
        return v04_from_values([], len(wt))
    times = [t for t, _ in wt]
    occ = [w for _, w in wt]
    mid = [(a + b) / 2 for a, b in zip(times[1:], times[:-1])]
    dur = [mid[0] - times[0]] + [b - a for a, b in zip(mid, mid[1:])] + [max(times[-1] - mid[-1], epsilon)]
    return v04_from_values([(o / d, d) for o, d in zip(occ, dur)], round(sum(occ)))


def v04_output_tokens_per_second(b):
    ev = {k: [e for r in b["requests"][k] for e in output_tokens_timings(r)] for k in ("successful", "incomplete", "errored")}
    out = {k: v04_rate_distribution_from_timings(ev[k]) for k in ("successful", "incomplete", "errored")}
    out["total"] = v04_rate_distribution_from_timings(ev["successful"] + ev["incomplete"] + ev["errored"])
    return {k: out[k] for k in ("successful", "incomplete", "errored", "total")}


def add(report):
    for b in report["benchmarks"]:
        v04 = "config" in b
        b["metrics"]["output_tokens_per_second"] = v04_output_tokens_per_second(b) if v04 else v03_output_tokens_per_second(b)
        print(b.get("id_") or b["config"]["id_"], json.dumps(b["metrics"]["output_tokens_per_second"]["successful"]), file=sys.stderr)


for name in ("v03_sweep.good.json", "v04_report.good.json"):
    text = open(name).read()
    d = json.loads(text)
    assert json.dumps(d) == text, name
    add(d)
    open(name, "w").write(json.dumps(d))
text = open("v04_report.good.yaml").read()
d = yaml.safe_load(text)
assert yaml.dump(d) == text
add(d)
open("v04_report.good.yaml", "w").write(yaml.dump(d))
