package report

// definition is one row of the report's definitions section: a metric as
// docs/metrics.md defines it, and how other tools' metrics of a similar name
// differ.
type definition struct {
	Metric    string `json:"metric"`
	Formula   string `json:"formula"`
	Elsewhere string `json:"elsewhere,omitempty"`
}

// definitions are shown in every report so that a reviewer never has to guess
// which "TPS" or "TPOT" a number is.
var definitions = []definition{
	{"t_queue", "admitted_at − queued_at",
		"vLLM's vllm:request_queue_time_seconds measures only the engine's waiting queue; ours starts at queued_at, which for gateway logs includes the gateway's own queue."},
	{"ttft", "first_token_at − queued_at: what a user waits for the first token",
		"Benchmark clients (vLLM bench, GenAI-Perf, GuideLLM) time TTFT from sending the request, so theirs also includes the network; ours starts when the request was logged as queued."},
	{"t_first_token", "first_token_at − admitted_at: prefill and scheduling after admission", ""},
	{"t_stream", "last_token_at − first_token_at", "vLLM reports it as decode time (vllm:request_decode_time_seconds)."},
	{"t_in_flight", "released_at − admitted_at: the time a request holds a slot", ""},
	{"t_total", "released_at − queued_at", "Close to the benchmark tools' end-to-end request latency, which is measured at the client."},
	{"tpot", "t_stream / (output_tokens − 1); NULL when output_tokens ≤ 1",
		"Same as vLLM bench's TPOT, which excludes the first token; GuideLLM's time per output token includes the first token, so it is higher for the same request. Inter-token latency differs again: vLLM bench's ITL is the gap between consecutive streamed chunks, pooled over requests, while GenAI-Perf's ITL is a per-request TPOT."},
	{"stream_tps", "output_tokens / t_stream; NULL when t_stream ≤ 0",
		"Per-request decode speed. It equals (1 / tpot) × output_tokens / (output_tokens − 1), so it is slightly above the \"1 / TPOT\" speed some tools report."},
	{"end_to_end_tps", "output_tokens / t_in_flight; NULL when t_in_flight ≤ 0", "Includes prefill and stalls while the request holds a slot."},
	{"gateway_overhead", "(gateway released − gateway queued) − (engine released − engine queued), for a span joined from a gateway's and an engine's log",
		"Time the gateway adds around the engine: its own queue, routing, and the response's way back. LiteLLM logs a litellm_overhead_time_ms of its own code only."},
	{"system_tps", "prorated output tokens of successful spans / window_seconds",
		"\"Output token throughput\" in most benchmark tools is output tokens over the benchmark's duration; that equals our system_tps only under constant load, since ours counts every second of the window, idle ones included, and only successful spans."},
	{"generated_tps", "prorated output tokens of all spans, failed ones' partial output included / window_seconds", ""},
	{"retry_adjusted_system_tps", "prorated output tokens of delivered spans / window_seconds; a request's delivered span is its first successful attempt, every other attempt's tokens are waste", ""},
	{"waste_fraction", "1 − delivered tokens / generated tokens", ""},
	{"input_tps", "prorated input tokens of successful spans / window_seconds", ""},
	{"arrival_rate", "requests (attempt 0 spans) with queued_at in the window / window_seconds",
		"Benchmark tools' request rate is the rate they were configured to send; ours is measured from the logs."},
	{"success_rate", "completed requests with at least one successful attempt / completed requests", ""},
	{"attempt_success_rate", "successful attempts / attempts", ""},
	{"retry_rate", "attempts with attempt > 0 / attempts", ""},
	{"ttft_req", "the delivered span's first_token_at − the request's first arrival (attempt 0's queued_at): the TTFT a user saw, retries included",
		"The TTFT criterion judges its p95. Per span, ttft restarts at each retry."},
	{"tpot_req", "the delivered span's tpot", "The TPOT criterion judges its p95."},
	{"e2e_req", "the delivered span's released_at − the request's first arrival", "vLLM bench's E2EL, with retries counted from the first attempt."},
	{"slo_met", "requests completed in the window that were delivered and meet every bound of --slo (an unknown ttft_req or e2e_req misses; an unknown tpot_req, a one-token request, meets)",
		"The bounds are those of vLLM bench's --goodput (ttft, tpot, e2e)."},
	{"goodput", "slo_met / window_seconds (requests per second)", "vLLM bench's request goodput, from the logs."},
	{"slo_attainment", "slo_met / requests completed in the window; a failed request misses", "The SLO attainment criterion judges it."},
	{"backlog_time", "measure of {t: queue_depth(t) > 0} in seconds", ""},
	{"gap_time", "measure of {t: queue_depth(t) > 0 and in_flight(t) < cap}: idle capacity while work waits", ""},
	{"gap_fraction", "gap_time / window_seconds", "No common tool reports it; with vLLM metrics it is the time where num_requests_waiting > 0 while num_requests_running < max_num_seqs."},
	{"backlog_gap_fraction", "gap_time / backlog_time; NULL when backlog_time = 0", ""},
	{"engine_gap_time", "gap_time while some replica holds requests in its engine queue with slots free (its scheduler kept them: KV cache, token budget, preemption, a paused engine)", ""},
	{"admission_gap_time", "gap_time, none of the above, while some request waits before an engine's queue: at the gateway (routing, rate limits, a stalled router) or in an engine's frontend (tokenizing, IPC)", ""},
	{"imbalance_gap_time", "gap_time, none of the above, while every waiting request sits in the queue of a full replica and another replica has free slots (load balancing)", ""},
	{"unattributed_gap_time", "gap_time, none of the above, while some waiting request's logs do not say where it waited; the four causes sum to gap_time", ""},
	{"mean_in_flight, mean_queue_depth", "time averages of in_flight(t) and queue_depth(t) over the window, exact from span boundaries",
		"vLLM's num_requests_running and num_requests_waiting gauges are sampled; the *_sampled metrics are computed from such samples."},
	{"kv_cache_usage, kv_cache_usage_max", "the time-average and the largest of the engines' KV-cache usage (0..1) from their samples, each sample held until the next",
		"vLLM's vllm:kv_cache_usage_perc (gpu_cache_usage_perc before V1), SGLang's token usage."},
	{"utilization", "mean_in_flight / cap", "Slot utilization, not GPU utilization (nvidia-smi's counts time a kernel is running)."},
	{"little_concurrency", "arrival_rate × mean t_total of requests arriving in the window (Little's law)",
		"Benchmark tools' \"concurrency\" is the configured maximum of concurrent requests, not a measured mean."},
	{"percentiles", "p50 … p99 of successful spans released in the window, interpolated linearly between closest ranks",
		"Same as numpy's default and DuckDB's quantile_cont."},
	{"cap", "the --cap flag, else the samples' cap, else max_num_seqs from the logs, else the maximum in_flight seen (inferred: gap_time is then a lower bound)", ""},
}
