package ingest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/tpsreport/tpsreport/ingest/internal/scan"
	"github.com/tpsreport/tpsreport/internal/suggest"
)

// FormatAuto asks Run to detect the format of each input by sniffing it.
const FormatAuto = "auto"

// FormatEmpty is the format --format auto gives an input that is empty or
// holds only whitespace: nothing to detect, and nothing wrong. It is not in
// the formats table (--format takes no "empty"); the manifest lists the
// input with it, and its lines are counted as blank skips.
const FormatEmpty = "empty"

// isBlankInput reports whether head, the first bytes of an input, is the
// whole input (shorter than scan.SniffBytes) and holds only whitespace after a
// byte order mark.
func isBlankInput(head []byte) bool {
	if len(head) >= scan.SniffBytes {
		return false
	}
	return len(bytes.TrimLeft(bytes.TrimPrefix(head, scan.BOM), " \t\r\n")) == 0
}

// newEmptyReader reads an input of FormatEmpty: every line is blank.
func newEmptyReader(in Input) Reader {
	return newLineReader(in, func([]byte, *Record) error {
		return scan.Errorf(ErrBadValue, -1, "a line that is not blank in an empty input")
	})
}

// format is one row of the formats table.
type format struct {
	// New returns a Reader over one decompressed input.
	New func(in Input) Reader
	// Sniff scores how much head, the first bytes (up to scan.SniffBytes) of a
	// decompressed input, looks like this format: 0 means not at all, 100
	// means certainly. head may end in the middle of a record. For
	// --format auto the highest score wins, ties going to the name that
	// sorts first; an input nothing claims is an error.
	Sniff func(head []byte) int
	// TTFT is where its spans' TTFT starts: the instant its queued_at
	// records (TTFTClient, TTFTGateway, TTFTEngine; "" where the log
	// decides, as canonical spans do, or no span is written).
	TTFT string
}

// Where a format's TTFT starts (schemas/formats/*.md), earliest first: a
// client's send, a gateway's receipt, an engine's arrival.
const (
	TTFTClient  = "client"
	TTFTGateway = "gateway"
	TTFTEngine  = "engine"
)

// TTFTFrom is where the TTFT of a run read from the given formats starts:
// the earliest point any of them records (a gateway's log joined with an
// engine's measures from the gateway), "" when none says.
func TTFTFrom(names []string) string {
	best := ""
	rank := map[string]int{TTFTClient: 1, TTFTGateway: 2, TTFTEngine: 3}
	for _, n := range names {
		o := formats[n].TTFT
		if o != "" && (best == "" || rank[o] < rank[best]) {
			best = o
		}
	}
	return best
}

// formats is the table of input formats, by the name --format takes. A new
// format is one file implementing Reader and one row here. Sniff scores that
// overlap are ordered on purpose: vllm-otel (98 with vLLM's llm_request spans)
// beats otel-genai (95 for any gen_ai.* span); mapping never claims an input.
var formats = map[string]format{
	"spans":   {New: newSpansReader, Sniff: sniffSpans},
	"samples": {New: newSamplesReader, Sniff: sniffSamples},
	"stages":  {New: newStagesReader, Sniff: sniffStages},

	// vLLM (schemas/formats/vllm.md)
	"vllm-log":       {New: newVLLMLogReader, Sniff: sniffVLLMLog, TTFT: TTFTEngine},
	"vllm-otel":      {New: newVLLMOTelReader, Sniff: sniffVLLMOTel, TTFT: TTFTEngine},
	"prometheus":     {New: newPrometheusReader, Sniff: sniffPrometheus},
	"vllm-bench":     {New: newVLLMBenchReader, Sniff: sniffVLLMBench, TTFT: TTFTClient},
	"guidellm":       {New: newGuideLLMReader, Sniff: sniffGuideLLM, TTFT: TTFTClient},           // schemas/formats/loadtools.md
	"aiperf":         {New: newAIPerfReader, Sniff: sniffAIPerf, TTFT: TTFTClient},               // schemas/formats/loadtools.md
	"inference-perf": {New: newInferencePerfReader, Sniff: sniffInferencePerf, TTFT: TTFTClient}, // schemas/formats/loadtools.md
	"llmperf":        {New: newLLMPerfReader, Sniff: sniffLLMPerf, TTFT: TTFTClient},             // schemas/formats/loadtools.md
	"sglang-bench":   {New: newSGLangBenchReader, Sniff: sniffSGLangBench, TTFT: TTFTClient},     // schemas/formats/loadtools.md

	// SGLang (schemas/formats/sglang.md)
	"sglang-metrics": {New: newSGLangMetricsReader, Sniff: sniffSGLangMetrics, TTFT: TTFTEngine},
	"sglang-log":     {New: newSGLangLogReader, Sniff: sniffSGLangLog, TTFT: TTFTEngine},

	// llama.cpp server (schemas/formats/llamacpp.md)
	"llamacpp":     {New: newLlamaCppReader, Sniff: sniffLlamaCpp, TTFT: TTFTEngine},
	"llamacpp-log": {New: newLlamaCppLogReader, Sniff: sniffLlamaCppLog},

	// TensorRT-LLM (schemas/formats/trtllm.md)
	"trtllm-perf": {New: newTRTLLMPerfReader, Sniff: sniffTRTLLMPerf, TTFT: TTFTEngine},

	// NVIDIA Dynamo (schemas/formats/dynamo.md)
	"dynamo-trace": {New: newDynamoTraceReader, Sniff: sniffDynamoTrace, TTFT: TTFTEngine},
	"dynamo-nvext": {New: newDynamoNvextReader, Sniff: sniffDynamoNvext, TTFT: TTFTEngine},

	// llm-d's endpoint picker, the router (schemas/formats/llm-d.md)
	"llm-d-epp": {New: newEPPReader, Sniff: sniffLLMDEPP},

	// Gateways (schemas/formats/gateways.md)
	"litellm":    {New: newLiteLLMReader, Sniff: sniffLiteLLM, TTFT: TTFTGateway},
	"kong":       {New: newKongReader, Sniff: sniffKong, TTFT: TTFTGateway},
	"envoy-ai":   {New: newEnvoyAIReader, Sniff: sniffEnvoyAI, TTFT: TTFTGateway},
	"otel-genai": {New: newOTelGenAIReader, Sniff: sniffOTelGenAI, TTFT: TTFTGateway},
	"mapping":    {New: newMappingReader, Sniff: sniffMapping},
}

// Formats returns the names of the registered input formats, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for name := range formats {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// lookupFormat returns the format called name.
func lookupFormat(name string) (format, error) {
	f, ok := formats[name]
	if !ok {
		return format{}, unknownFormat(name)
	}
	return f, nil
}

// unknownFormat is the error for a format name that is not registered, from
// --format or a FORMAT: prefix: it suggests the closest name and lists the
// valid ones.
func unknownFormat(name string) error {
	valid := append(Formats(), FormatAuto)
	if s := suggest.Closest(name, valid, 2); s != "" {
		return fmt.Errorf("unknown format %q (did you mean %q?); valid formats: %s", name, s, strings.Join(valid, ", "))
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", name, strings.Join(valid, ", "))
}

// sniffSkipLines is how many leading lines detection may pass over when no
// format claims the input as it starts: a log cut at a byte offset
// (copytruncate, tail -c, a shipper's chunk) starts with the end of a line,
// and a first line may carry a NUL or invalid UTF-8. The reader then
// rejects those lines, counted, and reads the rest.
const sniffSkipLines = 3

// detectFormat returns the name of the format that scores head highest, or
// "" when no format claims it, nor head after its first lines
// (sniffSkipLines).
func detectFormat(head []byte) string {
	// Every reader skips a UTF-8 byte order mark; the sniffers need not see it.
	head = bytes.TrimPrefix(head, scan.BOM)
	for range sniffSkipLines + 1 {
		if name := bestFormat(head); name != "" {
			return name
		}
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break
		}
		head = head[i+1:]
	}
	return ""
}

// rivals are the formats other than chosen that also claim head, at the
// line where detection chose (detectFormat), highest score first: when an
// input gives nothing as the format detected, the user is told what else
// it may be.
func rivals(head []byte, chosen string) []string {
	head = bytes.TrimPrefix(head, scan.BOM)
	for range sniffSkipLines + 1 {
		if bestFormat(head) != "" {
			type claim struct {
				name  string
				score int
			}
			var cs []claim
			for _, name := range Formats() {
				if score := formats[name].Sniff(head); score > 0 && name != chosen {
					cs = append(cs, claim{name, score})
				}
			}
			slices.SortStableFunc(cs, func(a, b claim) int { return b.score - a.score })
			var out []string
			for _, c := range cs {
				out = append(out, c.name)
			}
			return out
		}
		i := bytes.IndexByte(head, '\n')
		if i < 0 {
			break
		}
		head = head[i+1:]
	}
	return nil
}

// bestFormat returns the name of the format that scores head highest, or ""
// when no format claims it.
func bestFormat(head []byte) string {
	best, bestScore := "", 0
	for _, name := range Formats() {
		if score := formats[name].Sniff(head); score > bestScore {
			best, bestScore = name, score
		}
	}
	return best
}
