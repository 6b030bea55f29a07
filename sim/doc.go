// Package sim sits in front of the pipeline: it generates the logs that ingest
// reads, from a deterministic discrete-event simulation of a gateway in front of
// continuous-batching LLM engine replicas, together with the truth that analyze
// must find in them.
//
// # Model
//
// Requests arrive at a FIFO gateway queue (a Poisson process, with optional
// bursts and a diurnal shape). The gateway admits the head of the queue to the
// replica with the most free slots (each replica runs at most MaxNumSeqs
// requests) as soon as one is free — it is work-conserving — except during
// admission stalls (orchestration pauses), when nothing is admitted although
// slots are free: the idle gap that gap_fraction detects. The engine has no
// queue of its own in this mode: an attempt reaches its engine
// (engine_arrived_at) when it is admitted.
//
// With a Dispatch policy the gateway does not wait for a free slot: whenever
// it is not stalled it sends every attempt in its queue on to the engine
// queue of one replica — in turn (round-robin), at random (random), or the
// one with the fewest requests running and queued (least-loaded) — and the
// attempt's engine_arrived_at is that instant. Each replica admits from the
// head of its own FIFO engine queue while it has a free slot, except during
// its engine pauses (EngineStallGap, EngineStallDuration, EngineStallJitter:
// a paused scheduler), which come on each replica's own schedule and exist
// only with a Dispatch policy (a pause needs requests queued at the engine to
// hold). The gateway never learns that a replica is paused or full. So the
// three causes of idle time of docs/metrics.md "Where the idle time comes
// from" each have their mechanism: gateway stalls hold requests at the
// gateway (admission_gap), engine pauses hold them in a replica's queue with
// its slots free (engine_gap), and a policy blind to the replicas' load
// queues them behind a full replica while another has free slots
// (imbalance_gap). The scenarios engine-hold, imbalance and gap-mix show one
// cause each and all three. MaxQueue bounds the gateway queue only.
//
// A Canary gives the last Canary.Replicas replicas a configuration of their
// own — another cap, decode rate or error rate, and under the random policy
// another share of the traffic — as a change deployed to some replicas behind
// the same gateway would (compare --canary); truth.json names them, and each
// replica's truth is its row of replicas.
//
// An admitted request prefills its prompt (PrefillBase + uncached prompt tokens /
// PrefillRate), emits its first token, then decodes the rest. All requests on a
// replica decode at the same per-stream rate
//
//	r(n) = DecodeRate / (1 + Slowdown·(n−1))   tokens/s, n = requests on the replica
//
// recomputed at every admission and release. The simulator integrates it exactly
// with a per-replica virtual clock V(t) = ∫ r(n(t)) dt: a stream whose first token
// came at V0 emits its k-th token when V reaches V0+k−1, so each completion instant
// is found without touching the other streams. The request holds its slot until
// released_at = last_token_at + ReleaseDelay.
//
// Faults: an attempt fails (status error, http 500) after a uniformly chosen
// number of tokens; a client gives up its timeout (ClientTimeout, jittered per
// request) after an attempt's queued_at (status timeout, http 408, with the
// tokens emitted so far, or none and no admitted_at when still queued at the
// gateway or in an engine queue, which it then leaves); a
// gateway with a full queue rejects at once (status error, http 429). An attempt
// that is given up or cancelled is released at that instant. Failed attempts
// are retried after an exponential backoff with jitter (a new span: same
// request_id, attempt+1, retry_cause 5xx, timeout or 429), up to MaxAttempts.
// With HedgeDelay, a request still unfinished that long after it arrived gets
// one duplicate attempt (retry_cause hedge); when one attempt succeeds the
// others are cancelled (status cancelled, http 499, partial tokens).
//
// Note that with one timeout for every client a FIFO queue never times out: the
// attempts ahead of the head all reach their deadlines first and free their
// slots. TimeoutJitter (or a stall) is what produces timeouts in the queue.
//
// # Time and determinism
//
// Every event instant is an int64 microsecond since the Unix epoch, the
// resolution of the logs, so the truth computed from the simulator's state
// agrees exactly with what analyze computes from the emitted spans. A run is a
// pure function of (Scenario, seed): randomness comes from math/rand/v2 PCG
// streams — one for arrival instants, one for bursts, one for stalls, one for
// random dispatch, one per replica for its engine pauses, and one per request
// (lengths, faults, backoff jitter) keyed by its arrival number — so two
// scenarios that differ only in the gateway (stall and fixed) see exactly the
// same arrivals and the same work. Events at one instant are processed in the order they
// were scheduled; nothing depends on map order or the wall clock. (Floating-point
// results, and so the output bytes, are identical on one architecture; a CPU that
// fuses multiply-adds may round an instant differently.)
//
// # Outputs
//
// Run streams spans to a callback as they are released (in order of
// released_at) and engine stats samples to a second one, keeping only live
// requests in memory, so it scales to any number of spans. Writers turn the
// streams into files, one per format (JSONL here: the canonical input of
// schemas/README.md; vLLM OTel, LiteLLM, LiteLLM with vLLM's response
// metrics, SGLang's request metrics export and the vLLM server log, each
// described at its writer); Generate connects a Run to a Writer. The returned Truth is
// written as truth.json by WriteTruth. A span names the replica an attempt
// was sent to and its engine_arrived_at once it reached an engine queue, even
// when it timed out or was cancelled there before admission.
//
// The truth's gap attribution (engine_gap_time, admission_gap_time,
// imbalance_gap_time, unattributed_gap_time and their shares, per window and
// for the run, and per replica over the run) comes from the same sweep as
// gap_time: each admitted attempt reports, at its admission, its wait at the
// gateway and in its replica's engine queue, and the sweep counts per replica
// the requests at the gateway (that it will admit), in its engine queue and in
// flight. Every wait has a location, so unattributed_gap_time is 0.
package sim
