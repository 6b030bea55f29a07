# Writes the generated sglang.bench_serving fixtures of this directory: JSONL
# result lines as python/sglang/bench_serving.py (sgl-project/sglang
# 0033168f) appends them, with --output-details, and the summary values its
# calculate_metrics gives (numpy mean, median, percentile (linear) and std,
# reimplemented: numpy is not needed). Run from this directory.
import json, random, traceback
random.seed(8)

def pct(xs, p):
    xs = sorted(xs); n = len(xs)
    k = (n - 1) * p / 100.0
    f = int(k); c = min(f + 1, n - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)

def mean(xs): return sum(xs) / len(xs)
def std(xs):
    m = mean(xs); return (sum((x - m) ** 2 for x in xs) / len(xs)) ** 0.5

def line(backend, n, fail, details=True):
    outs = []
    for i in range(n):
        in_len = random.randint(200, 1024)
        out_len = random.randint(16, 96)
        if i in fail:
            outs.append(dict(prompt_len=in_len, success=False, ttft=0.0, itl=[], latency=0.0, output_len=0,
                             error="Traceback (most recent call last):\n  File \"bench_serving.py\", line 160, in async_request_trt_llm\naiohttp.client_exceptions.ServerDisconnectedError: Server disconnected\n",
                             text=""))
            continue
        ttft = random.uniform(0.02, 0.6)
        itl = [random.uniform(0.006, 0.03) for _ in range(out_len - 1)]
        # trt: latency = the last chunk's reading - st = ttft + sum(itl)
        latency = ttft + sum(itl)
        outs.append(dict(prompt_len=in_len, success=True, ttft=ttft, itl=itl, latency=latency, output_len=out_len,
                         error="", text="[generated text %d]" % i))
    dur = max(o["latency"] for o in outs) * 2.5
    ok = [o for o in outs if o["success"]]
    ttfts = [o["ttft"] for o in ok]
    tpots = [(o["latency"] - o["ttft"]) / (o["output_len"] - 1) for o in ok if o["output_len"] > 1]
    itls = [x for o in ok for x in o["itl"]]
    e2e = [o["latency"] for o in ok]
    out_lens = [o["output_len"] for o in outs]
    total_in = sum(o["prompt_len"] for o in ok)
    result = {
        "backend": backend, "dataset_name": "random", "request_rate": 4.0, "max_concurrency": None,
        "sharegpt_output_len": None, "random_input_len": 1024, "random_output_len": 96, "random_range_ratio": 0.2,
        "duration": dur, "completed": len(ok), "total_input_tokens": total_in, "total_output_tokens": sum(out_lens),
        "total_output_tokens_retokenized": sum(out_lens) - 2,
        "request_throughput": len(ok) / dur, "input_throughput": total_in / dur, "output_throughput": sum(out_lens) / dur,
        "mean_e2e_latency_ms": mean(e2e) * 1000, "median_e2e_latency_ms": pct(e2e, 50) * 1000,
        "std_e2e_latency_ms": std(e2e) * 1000, "p99_e2e_latency_ms": pct(e2e, 99) * 1000,
        "mean_ttft_ms": mean(ttfts) * 1000, "median_ttft_ms": pct(ttfts, 50) * 1000,
        "std_ttft_ms": std(ttfts) * 1000, "p99_ttft_ms": pct(ttfts, 99) * 1000,
        "mean_tpot_ms": mean(tpots) * 1000, "median_tpot_ms": pct(tpots, 50) * 1000,
        "std_tpot_ms": std(tpots) * 1000, "p99_tpot_ms": pct(tpots, 99) * 1000,
        "mean_itl_ms": mean(itls) * 1000, "median_itl_ms": pct(itls, 50) * 1000,
        "std_itl_ms": std(itls) * 1000, "p95_itl_ms": pct(itls, 95) * 1000, "p99_itl_ms": pct(itls, 99) * 1000,
        "concurrency": sum(e2e) / dur, "accept_length": None,
    }
    if details:
        result.update({
            "input_lens": [o["prompt_len"] for o in outs], "output_lens": out_lens,
            "ttfts": [o["ttft"] for o in outs], "itls": [o["itl"] for o in outs],
            "generated_texts": [o["text"] for o in outs], "errors": [o["error"] for o in outs],
        })
    return json.dumps(result)

with open("trt_details.good.jsonl", "w") as f:
    f.write(line("trt", 10, {6}) + "\n")
with open("two_runs.good.jsonl", "w") as f:
    f.write(line("trt", 3, set()) + "\n")
    f.write(line("trt", 4, {0}) + "\n")
with open("no_details.bad.jsonl", "w") as f:
    f.write(line("sglang", 5, set(), details=False) + "\n")
