# Writes the generated llmperf fixtures of this directory: per-request records
# as token_benchmark_ray.py (ray-project/llmperf f1d6bed) dumps them, and the
# summary it writes beside them, whose aggregates are metrics_summary's
# (pandas Series.quantile linear interpolation, mean, sample stddev,
# reimplemented: pandas is not needed). Run from this directory.
import json, random
random.seed(2023)

def q(xs, p):
    xs = sorted(xs); n = len(xs)
    k = (n - 1) * p
    f = int(k); c = min(f + 1, n - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)

def stats(xs):
    m = sum(xs) / len(xs)
    sd = (sum((x - m) ** 2 for x in xs) / (len(xs) - 1)) ** 0.5
    d = {"quantiles": {"p%d" % int(p * 100): q(xs, p) for p in (0.25, 0.5, 0.75, 0.9, 0.95, 0.99)}}
    d.update({"mean": m, "min": min(xs), "max": max(xs), "stddev": sd})
    return d

def record(err=None):
    n_in = random.randint(420, 680)
    if err:
        # the OpenAI client's metrics of a failed request: no token, 0 s
        return {"error_code": err[0], "error_msg": err[1], "inter_token_latency_s": 0, "ttft_s": 0,
                "end_to_end_latency_s": 0, "request_output_throughput_token_per_s": 0,
                "number_total_tokens": n_in, "number_output_tokens": 0, "number_input_tokens": n_in}
    chunks = random.randint(60, 220)           # content chunks received
    ttft = random.uniform(0.08, 0.9)
    gaps = [random.uniform(0.012, 0.04) for _ in range(chunks - 1)]
    last = ttft + sum(gaps)                     # sum(time_to_next_token)
    e2e = last + random.uniform(0.0004, 0.004)  # after [DONE]
    n_out = chunks + random.randint(-3, 3)      # the Llama tokenizer's count of the text
    return {"error_code": None, "error_msg": "", "inter_token_latency_s": last / (chunks + 2),
            "ttft_s": ttft, "end_to_end_latency_s": e2e,
            "request_output_throughput_token_per_s": n_out / e2e,
            "number_total_tokens": n_in + n_out, "number_output_tokens": n_out, "number_input_tokens": n_in}

def summary(recs, name, dur, ts):
    ok = [r for r in recs if r["error_code"] is None]
    res = {}
    for k in ("inter_token_latency_s", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s",
              "number_input_tokens", "number_output_tokens"):
        res[k] = stats([r[k] for r in ok])
    res["num_requests_started"] = len(recs)
    errs = [r["error_code"] for r in recs if r["error_code"] is not None]
    res["error_rate"] = len(errs) / len(recs)
    res["number_errors"] = len(errs)
    freq = {}
    for e in errs:
        freq[e] = freq.get(e, 0) + 1
    res["error_code_frequency"] = str(freq)
    res["mean_output_throughput_token_per_s"] = sum(r["number_output_tokens"] for r in ok) / dur
    res["num_completed_requests"] = len(ok)
    res["num_completed_requests_per_min"] = len(ok) / dur * 60
    d = {"version": "2023-08-31", "name": name, "model": "meta-llama/Llama-2-7b-chat-hf",
         "mean_input_tokens": 550, "stddev_input_tokens": 150, "mean_output_tokens": 150,
         "stddev_output_tokens": 80, "num_concurrent_requests": 4, "additional_sampling_params": {},
         "results": res, "timestamp": ts}
    def flat(d, parent=""):
        out = {}
        for k, v in d.items():
            key = parent + "_" + k if parent else k
            if isinstance(v, dict):
                out.update(flat(v, key))
            else:
                out[key] = v
        return out
    return flat(d)

name = "meta-llama-Llama-2-7b-chat-hf_550_150"
recs = [record() for _ in range(12)]
with open(name + "_individual_responses.good.json", "w") as f:
    json.dump(recs, f, indent=4)
with open(name + "_summary.bad.json", "w") as f:
    json.dump(summary(recs, name + "_summary", 9.8712345, 1733708400), f, indent=4, default=str)

# before afd137a (April 2024) failed requests reached the file
recs = [record() for _ in range(3)]
recs.insert(1, record((429, "Rate limit reached for requests")))
recs.append(record((-1, "")))
with open("errors.good.json", "w") as f:
    json.dump(recs, f, indent=4)
