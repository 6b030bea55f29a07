package ingest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// FormatAuto asks Run to detect the format of each input by sniffing it.
const FormatAuto = "auto"

// format is one row of the formats table.
type format struct {
	// New returns a Reader over one decompressed input.
	New func(in Input) Reader
	// Sniff scores how much head, the first bytes (up to sniffBytes) of a
	// decompressed input, looks like this format: 0 means not at all, 100
	// means certainly. head may end in the middle of a record. For
	// --format auto the highest score wins, ties going to the name that
	// sorts first; an input nothing claims is an error.
	Sniff func(head []byte) int
}

// sniffBytes is how much of each input auto-detection looks at.
const sniffBytes = 64 << 10

// formats is the table of input formats, by the name --format takes. A new
// format is one file implementing Reader and one row here. Sniff scores that
// overlap are ordered on purpose: vllm-otel (98 with vLLM's llm_request spans)
// beats otel-genai (95 for any gen_ai.* span); mapping never claims an input.
var formats = map[string]format{
	"spans":   {New: newSpansReader, Sniff: sniffSpans},
	"samples": {New: newSamplesReader, Sniff: sniffSamples},

	// vLLM (schemas/formats/vllm.md)
	"vllm-log": {New: func(in Input) Reader {
		return newVLLMLogReaderWith(in, VLLMLogOptions{Year: in.Year, TZ: in.Zone})
	}, Sniff: sniffVLLMLog},
	"vllm-otel":  {New: newVLLMOTelReader, Sniff: sniffVLLMOTel},
	"prometheus": {New: newPrometheusReader, Sniff: sniffPrometheus},
	"vllm-bench": {New: newVLLMBenchReader, Sniff: sniffVLLMBench},

	// Gateways (schemas/formats/gateways.md)
	"litellm": {New: func(in Input) Reader {
		return newLiteLLMReaderOpts(in, GatewayOptions{Zone: in.Zone})
	}, Sniff: sniffLiteLLM},
	"kong":       {New: newKongReader, Sniff: sniffKong},
	"envoy-ai":   {New: newEnvoyAIReader, Sniff: sniffEnvoyAI},
	"otel-genai": {New: newOTelGenAIReader, Sniff: sniffOTelGenAI},
	"mapping": {New: func(in Input) Reader {
		if in.Mapping == nil {
			return newMappingReaderNoFile(in)
		}
		return newMappingReader(in, in.Mapping, in.Zone)
	}, Sniff: sniffMapping},
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
		return format{}, fmt.Errorf("unknown format %q (want %s or %s)", name, strings.Join(Formats(), ", "), FormatAuto)
	}
	return f, nil
}

// detectFormat returns the name of the format that scores head highest, or
// "" when no format claims it.
func detectFormat(head []byte) string {
	// Every reader skips a UTF-8 byte order mark; the sniffers need not see it.
	head = bytes.TrimPrefix(head, utf8BOM)
	best, bestScore := "", 0
	for _, name := range Formats() {
		if score := formats[name].Sniff(head); score > bestScore {
			best, bestScore = name, score
		}
	}
	return best
}
