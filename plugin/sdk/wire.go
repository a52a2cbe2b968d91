package sdk

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"unsafe"

	"github.com/diverse-select/diverse-select/plugin/proto"
	"github.com/diverse-select/diverse-select/selectors"
)

// The codecs of both sides live here, next to each other, so that one
// round-trip test covers the protocol.

// DescriptionToProto encodes a description (plugin side).
func DescriptionToProto(d Description) (*proto.Description, error) {
	out := &proto.Description{Doc: d.Doc, NeedsVectors: d.NeedsVectors, NeedsText: d.NeedsText}
	for _, s := range d.Params {
		p := &proto.Param{Name: s.Name, Kind: string(s.Kind), Min: s.Min, Max: s.Max, MinOpen: s.MinOpen,
			MaxOpen: s.MaxOpen, Enum: s.Enum, Doc: s.Doc}
		if s.Default != nil {
			b, err := json.Marshal(s.Default)
			if err != nil {
				return nil, fmt.Errorf("parameter %q: default %v: %w", s.Name, s.Default, err)
			}
			p.DefaultJson = string(b)
		}
		out.Params = append(out.Params, p)
	}
	return out, nil
}

// DescriptionFromProto decodes a description (module side). Defaults take
// their kind's Go type (int, float64, bool, string); checking them against
// the specs is the caller's job.
func DescriptionFromProto(d *proto.Description) (Description, error) {
	out := Description{Doc: d.GetDoc(), NeedsVectors: d.GetNeedsVectors(), NeedsText: d.GetNeedsText()}
	for _, p := range d.GetParams() {
		s := selectors.ParamSpec{Name: p.GetName(), Kind: selectors.Kind(p.GetKind()), Min: p.GetMin(), Max: p.GetMax(),
			MinOpen: p.GetMinOpen(), MaxOpen: p.GetMaxOpen(), Enum: p.GetEnum(), Doc: p.GetDoc()}
		if p.GetDefaultJson() != "" {
			var v any
			if err := json.Unmarshal([]byte(p.GetDefaultJson()), &v); err != nil {
				return out, fmt.Errorf("parameter %q: default %s is not JSON: %w", s.Name, p.GetDefaultJson(), err)
			}
			if f, ok := v.(float64); ok && s.Kind == selectors.KindInt && f == math.Trunc(f) {
				v = int(f)
			}
			s.Default = v
		}
		out.Params = append(out.Params, s)
	}
	return out, nil
}

// EncodeProblem turns a problem into a request (module side). Vectors,
// texts and properties are sent only when asked for; params are the
// strategy's validated parameters.
func EncodeProblem(p *selectors.Problem, params selectors.Params, vectors, texts bool, props []string) (*proto.SelectRequest, error) {
	n := len(p.Candidates)
	req := &proto.SelectRequest{
		Ids:        make([]string, n),
		Relevance:  make([]float64, n),
		Tokens:     make([]int32, n),
		Budget:     int32(p.Budget),
		MaxResults: int32(p.K()),
		Query:      p.Query,
	}
	if vectors && n > 0 {
		req.Dim = int32(len(p.Candidates[0].Vector))
		req.Vectors = vectorBuffer(4 * n * len(p.Candidates[0].Vector))
	}
	if texts {
		req.Texts = make([]string, n)
	}
	anySource := false
	for _, c := range p.Candidates {
		anySource = anySource || c.Source != ""
	}
	if anySource {
		req.Sources = make([]string, n)
	}
	var objects []map[string]any
	if len(props) > 0 {
		objects = make([]map[string]any, n)
	}
	for i, c := range p.Candidates {
		req.Ids[i], req.Relevance[i], req.Tokens[i] = c.ID, c.Relevance, int32(c.Tokens)
		if vectors {
			if len(c.Vector) != int(req.Dim) {
				return nil, fmt.Errorf("candidate %d has a vector of %d dimensions, others have %d", i, len(c.Vector), req.Dim)
			}
			putFloats(req.Vectors[4*i*len(c.Vector):], c.Vector)
		}
		if texts {
			req.Texts[i] = c.Text
		}
		if anySource {
			req.Sources[i] = c.Source
		}
		if objects != nil {
			objects[i] = make(map[string]any, len(props))
			for _, name := range props {
				objects[i][name] = c.Properties[name]
			}
		}
	}
	if objects != nil {
		b, err := json.Marshal(objects)
		if err != nil {
			return nil, fmt.Errorf("encode candidate properties: %w", err)
		}
		req.PropertiesJson = b
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encode parameters: %w", err)
	}
	req.ParamsJson = string(b)
	return req, nil
}

// vectorBufs recycles the vector buffers of requests: a pool's vectors are
// hundreds of KiB, and fresh memory costs page faults on every call.
var vectorBufs sync.Pool

func vectorBuffer(n int) []byte {
	if b, ok := vectorBufs.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

// ReleaseRequest recycles the buffers of a request made by EncodeProblem
// once it has been sent; req must not be used afterwards.
func ReleaseRequest(req *proto.SelectRequest) {
	if req != nil && cap(req.Vectors) > 0 {
		b := req.Vectors[:0]
		req.Vectors = nil
		vectorBufs.Put(&b)
	}
}

// DecodeProblem turns a request into a problem and its raw parameters
// (plugin side), checking that the columns agree. The vectors share one
// flat array.
func DecodeProblem(req *proto.SelectRequest) (*selectors.Problem, map[string]any, error) {
	n := len(req.GetIds())
	col := func(name string, l int) error {
		if l != 0 && l != n {
			return fmt.Errorf("%s has %d entries for %d candidates", name, l, n)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		l    int
	}{{"relevance", len(req.GetRelevance())}, {"tokens", len(req.GetTokens())}, {"texts", len(req.GetTexts())},
		{"sources", len(req.GetSources())}} {
		if err := col(c.name, c.l); err != nil {
			return nil, nil, err
		}
	}
	if len(req.GetRelevance()) != n || len(req.GetTokens()) != n {
		return nil, nil, fmt.Errorf("relevance and tokens need one entry per candidate")
	}
	dim := int(req.GetDim())
	if len(req.GetVectors()) > 0 && (dim <= 0 || len(req.GetVectors()) != 4*n*dim) {
		return nil, nil, fmt.Errorf("vectors hold %d bytes, want 4 x %d candidates x dim %d", len(req.GetVectors()), n, dim)
	}
	flat := getFloats(req.GetVectors())
	var objects []map[string]any
	if len(req.GetPropertiesJson()) > 0 {
		if err := json.Unmarshal(req.GetPropertiesJson(), &objects); err != nil {
			return nil, nil, fmt.Errorf("properties: %w", err)
		}
		if err := col("properties", len(objects)); err != nil {
			return nil, nil, err
		}
	}
	p := &selectors.Problem{Candidates: make([]selectors.Candidate, n), Budget: int(req.GetBudget()),
		MaxResults: int(req.GetMaxResults()), Query: req.GetQuery()}
	for i := range p.Candidates {
		c := &p.Candidates[i]
		c.ID, c.Relevance, c.Tokens = req.Ids[i], req.Relevance[i], int(req.Tokens[i])
		if flat != nil {
			c.Vector = flat[i*dim : (i+1)*dim : (i+1)*dim]
		}
		if len(req.GetTexts()) > 0 {
			c.Text = req.Texts[i]
		}
		if len(req.GetSources()) > 0 {
			c.Source = req.Sources[i]
		}
		if objects != nil {
			c.Properties = objects[i]
		}
	}
	var raw map[string]any
	if req.GetParamsJson() != "" {
		if err := json.Unmarshal([]byte(req.GetParamsJson()), &raw); err != nil {
			return nil, nil, fmt.Errorf("parameters: %w", err)
		}
	}
	return p, raw, nil
}

// EncodeResult turns a selection into a response (plugin side).
func EncodeResult(r *selectors.Result) *proto.SelectResponse {
	out := &proto.SelectResponse{Objective: r.Objective, Stats: r.Stats, Items: make([]*proto.Item, len(r.Items))}
	for i, it := range r.Items {
		out.Items[i] = &proto.Item{Index: int32(it.Index), Gain: it.Gain, Relevance: it.Relevance, Redundancy: it.Redundancy}
	}
	return out
}

// DecodeResult turns a response into a selection (module side); the caller
// checks it against the problem.
func DecodeResult(r *proto.SelectResponse) *selectors.Result {
	out := &selectors.Result{Objective: r.GetObjective(), Stats: r.GetStats(), Items: make([]selectors.Item, len(r.GetItems()))}
	for i, it := range r.GetItems() {
		out.Items[i] = selectors.Item{Index: int(it.GetIndex()), Gain: it.GetGain(), Relevance: it.GetRelevance(),
			Redundancy: it.GetRedundancy()}
	}
	return out
}

// littleEndian reports the machine's byte order.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// putFloats writes v little-endian into b: on a little-endian machine one
// memmove of v's bytes (a per-float loop took a quarter of the module's CPU
// time per call at N = 100, d = 768).
func putFloats(b []byte, v []float32) {
	if len(v) == 0 {
		return
	}
	if littleEndian {
		copy(b[:4*len(v)], unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)))
		return
	}
	for j, x := range v {
		binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
	}
}

// getFloats reads little-endian float32s (nil for no bytes). On a
// little-endian machine it reads them in place when b is 4-byte aligned (the
// request's buffer, which lives as long as the call): no copy of a pool's
// vectors on the plugin's side.
func getFloats(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	}
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
