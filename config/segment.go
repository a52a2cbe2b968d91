package config

import (
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// Segment is the set-up of the segmentation endpoint
// (POST /v1/modules/diverse-select/segment): the encoders it may call and
// its input limits, checked before any work.
type Segment struct {
	// Encoders are the named text2vec-transformers-protocol endpoints a
	// request may name, in the variable's order; the first is the default.
	// A request names an encoder, never a URL: the server calls only these.
	Encoders []SegmentEncoder
	// MaxBytes bounds a request body; MaxTexts the texts of a batch;
	// MaxSentences the sentences of all its texts together (each is one
	// encoder call for the methods that embed).
	MaxBytes, MaxTexts, MaxSentences int
}

// SegmentEncoder is one named encoder endpoint.
type SegmentEncoder struct{ Name, URL string }

// SegmentEnv lists the environment variables Segment reads.
var SegmentEnv = []EnvVar{
	{Name: "DIVERSE_SELECT_SEGMENT_ENCODERS", Doc: "comma-separated `name=url` text2vec-transformers-protocol endpoints the segment endpoint may embed sentences with; the name picks the trained scorer (`glove-sif`, `minilm-l6`) and a request's `encoder` names one (default: the first). Without it only the methods that embed nothing run (docs/segmentation.md)"},
	{Name: "DIVERSE_SELECT_SEGMENT_MAX_BYTES", Default: "1048576", Lo: 1, Hi: 1 << 28, Doc: "largest segment request body (bytes); larger ones are refused before they are read"},
	{Name: "DIVERSE_SELECT_SEGMENT_MAX_TEXTS", Default: "64", Lo: 1, Hi: 1 << 16, Doc: "most texts in one segment request"},
	{Name: "DIVERSE_SELECT_SEGMENT_MAX_SENTENCES", Default: "20000", Lo: 1, Hi: 1 << 24, Doc: "most sentences of all the texts of one segment request (each is one encoder call)"},
}

// SegmentFromEnv reads Segment (getenv nil means os.Getenv).
func SegmentFromEnv(getenv func(string) string) (Segment, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	var s Segment
	for _, e := range SegmentEnv {
		v := strings.TrimSpace(getenv(e.Name))
		if v == "" {
			v = e.Default
		}
		if e.Name == "DIVERSE_SELECT_SEGMENT_ENCODERS" {
			encs, err := parseEncoders(v)
			if err != nil {
				return s, &EnvError{e.Name, v, err.Error()}
			}
			s.Encoders = encs
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < e.Lo || n > e.Hi {
			return s, &EnvError{e.Name, v, fmt.Sprintf("want an integer in [%d, %d]", e.Lo, e.Hi)}
		}
		switch e.Name {
		case "DIVERSE_SELECT_SEGMENT_MAX_BYTES":
			s.MaxBytes = n
		case "DIVERSE_SELECT_SEGMENT_MAX_TEXTS":
			s.MaxTexts = n
		case "DIVERSE_SELECT_SEGMENT_MAX_SENTENCES":
			s.MaxSentences = n
		}
	}
	return s, nil
}

func parseEncoders(v string) ([]SegmentEncoder, error) {
	var out []SegmentEncoder
	seen := map[string]bool{}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, raw, ok := strings.Cut(item, "=")
		name, raw = strings.TrimSpace(name), strings.TrimSpace(raw)
		u, err := url.Parse(raw)
		if !ok || name == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("want comma-separated name=http(s)://host:port, got %q", item)
		}
		if seen[name] {
			return nil, fmt.Errorf("encoder %q named twice", name)
		}
		seen[name] = true
		out = append(out, SegmentEncoder{Name: name, URL: raw})
	}
	return out, nil
}
