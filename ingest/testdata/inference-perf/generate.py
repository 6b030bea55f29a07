# Writes the generated inference-perf fixtures of this directory and prints the
# aggregates summarize_requests (inference_perf/reportgen/base.py) gives of
# per_request_lifecycle_metrics.good.json (numpy linear percentiles, reimplemented;
# successes.throughput.output_tokens_per_sec = Σ output_tokens of the successes /
# (max end_time − min start_time of every request, failures too)):
# the values TestInferencePerfReproducesSummary wants. Run from this directory.
import json, random, sys
random.seed(23)
T0 = 81234.5678125   # a perf_counter() value

def pct(xs, p):
    xs = sorted(xs); n = len(xs)
    k = (n - 1) * p / 100.0
    f = int(k); c = min(f + 1, n - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)

def summ(xs, ps=(50, 90, 99)):
    if not xs: return None
    r = {"mean": sum(xs)/len(xs), "min": min(xs), "max": max(xs)}
    for p in ps:
        r["median" if p == 50 else "p%g" % p] = pct(xs, p)
    return r

def req(i, streamed=True):
    return json.dumps({"model": "meta-llama/Llama-3.1-8B-Instruct", "messages": [{"role": "user", "content": "prompt %d" % i}], "max_tokens": 64, "stream": streamed, "ignore_eos": False})

def streamed_times(start, n):
    t = start + random.uniform(0.04, 0.3)
    ts = [t]
    for _ in range(n - 1):
        t += random.uniform(0.008, 0.03)
        ts.append(t)
    return ts

def make(n_ok, with_error, with_unary, base):
    recs = []
    s = base
    for i in range(n_ok):
        s += random.uniform(0.05, 0.4)
        n = random.randint(4, 12)
        ts = streamed_times(s, n)
        end = ts[-1] + random.uniform(0.0005, 0.003)
        recs.append(dict(start=s, end=end, scheduled=s - random.uniform(0, 0.002), isl=random.randint(90, 260), osl=n, ts=ts, i=i, kind="stream"))
    if with_unary:
        s += 0.2
        recs.append(dict(start=s, end=s + 0.61234567, scheduled=s - 0.0004, isl=120, osl=32, ts=[], i=len(recs), kind="unary"))
    if with_error:
        s += 0.1
        recs.append(dict(start=s, end=s + 0.0421337, scheduled=s - 0.0003, isl=150, osl=0, ts=[], i=len(recs), kind="error"))
    recs.sort(key=lambda r: r["end"])  # the collector records requests as they finish
    return recs

ERR = {"error_type": "ClientResponseError", "error_msg": "500, message='Internal Server Error', url='http://vllm:8000/v1/chat/completions'"}

def head_info(r):
    rm = {"text": {"input_tokens": r["isl"]}, "image": None, "video": None, "audio": None}
    if r["kind"] == "stream":
        resp = {"output_tokens": r["osl"], "server_usage": {"prompt_tokens": r["isl"], "completion_tokens": r["osl"], "total_tokens": r["isl"] + r["osl"]},
                "response_chunks": [], "chunk_times": [], "output_token_times": r["ts"]}
    elif r["kind"] == "unary":
        resp = {"output_tokens": r["osl"], "server_usage": {"prompt_tokens": r["isl"], "completion_tokens": r["osl"], "total_tokens": r["isl"] + r["osl"]}}
    else:
        resp = None
    return {"request_metrics": rm, "response_metrics": resp, "extra_info": {}, "lora_adapter": None, "labels": {}, "input_tokens": r["isl"]}

def v2_info(r):
    if r["kind"] == "stream":
        ri = {"response_chunks": [], "chunk_times": [], "output_tokens": r["osl"], "output_token_times": r["ts"], "server_usage": None}
    elif r["kind"] == "unary":
        ri = {"output_tokens": r["osl"]}
    else:
        ri = None
    return {"input_tokens": r["isl"], "extra_info": {}, "lora_adapter": None, "response_info": ri}

def v1_info(r):
    return {"input_tokens": r["isl"], "output_tokens": r["osl"], "output_token_times": r["ts"], "extra_info": {}, "lora_adapter": None}

def entry(r, info):
    return {"start_time": r["start"], "end_time": r["end"], "request": req(r["i"], r["kind"] != "unary"),
            "response": "" if r["kind"] == "error" else "Hello there, generated text %d" % r["i"],
            "info": info(r), "error": ERR if r["kind"] == "error" else None}

def summary(recs):
    ok = [r for r in recs if r["kind"] != "error"]
    lat = [r["end"] - r["start"] for r in ok]
    ttft, tpot, itl = [], [], []
    for r in ok:
        ts = r["ts"]
        if len(ts) > 1:
            ttft.append(ts[0] - r["start"])
            if r["osl"] > 1: tpot.append((ts[-1] - ts[0]) / (r["osl"] - 1))
            itl += [b - a for a, b in zip(ts, ts[1:])]
    # throughput: summarize_requests' total_time is over every request, failures too
    total_time = max(r["end"] for r in recs) - min(r["start"] for r in recs)
    return {"request_latency": summ(lat), "time_to_first_token": summ(ttft), "time_per_output_token": summ(tpot), "inter_token_latency": summ(itl),
            "throughput": {"output_tokens_per_sec": sum(r["osl"] for r in ok) / total_time, "total_time": total_time}}

head = make(7, True, True, T0)
json.dump([entry(r, head_info) for r in head], open("per_request_lifecycle_metrics.good.json", "w"), indent=2)
v2 = make(3, True, True, T0 + 1000)
open("response_info_compact.good.json", "w").write(json.dumps([entry(r, v2_info) for r in v2]))
v1 = make(3, True, False, T0 + 2000)
json.dump([entry(r, v1_info) for r in v1], open("flat_info.good.json", "w"), indent=2)
json.dump(summary(head), sys.stdout, indent=2)
