package gateway

import (
	"slices"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate/entities/search"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"google.golang.org/protobuf/proto"
)

// The reply in Weaviate's own shape: each selected object as the
// upstream sent it - its properties from the read that loaded them, cut to
// what the caller asked for, its metadata from the pool's search, cut to
// what the caller asked for - with the rerank score and explanation the
// stage gave it (the module's giveRerankScores and explainInScore).

func (u *upstreamQuery) reply(out []search.Result) *pb.SearchReply {
	results := make([]*pb.SearchResult, 0, len(out))
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := range out {
		u.order = append(u.order, string(out[i].ID))
		results = append(results, &pb.SearchResult{
			Properties: withSelectedText(u.properties(&out[i]), out[i].Schema),
			Metadata:   u.metadata(&out[i]),
		})
	}
	return &pb.SearchReply{Results: results}
}

// properties are the object's properties, cut to the caller's request.
func (u *upstreamQuery) properties(res *search.Result) *pb.PropertiesResult {
	p := u.props[res.ID]
	if p == nil {
		p = u.pool[res.ID].GetProperties()
	}
	want := u.req.GetProperties()
	if p == nil || want == nil || want.ReturnAllNonrefProperties {
		return p // all non-reference properties: what the reads loaded
	}
	keep := slices.Clone(want.NonRefProperties)
	for _, o := range want.ObjectProperties {
		keep = append(keep, o.GetPropName())
	}
	out := proto.CloneOf(p)
	if out.NonRefProps != nil {
		for name := range out.NonRefProps.Fields {
			if !slices.Contains(keep, name) {
				delete(out.NonRefProps.Fields, name)
			}
		}
	}
	return out
}

// withSelectedText is p with the text the selection gave the object: with
// evidence cards the module puts the card in the first text property and
// drops the others (engine/evidence.go, withCard); schema is the selected
// object as the stage returned it.
func withSelectedText(p *pb.PropertiesResult, schema any) *pb.PropertiesResult {
	props, ok := schema.(map[string]any)
	if p == nil || p.NonRefProps == nil || !ok {
		return p
	}
	var out *pb.PropertiesResult
	edit := func() *pb.PropertiesResult {
		if out == nil {
			out = proto.CloneOf(p)
		}
		return out
	}
	for name, v := range p.NonRefProps.Fields {
		var text any
		switch k := v.GetKind().(type) {
		case *pb.Value_TextValue:
			text = k.TextValue
		case *pb.Value_ListValue:
			if tv, ok := k.ListValue.GetKind().(*pb.ListValue_TextValues); ok {
				text = tv.TextValues.GetValues()
			}
		}
		if text == nil {
			continue
		}
		switch sv, present := props[name]; {
		case !present:
			delete(edit().NonRefProps.Fields, name)
		case isString(sv) && sv != text:
			edit().NonRefProps.Fields[name] = &pb.Value{Kind: &pb.Value_TextValue{TextValue: sv.(string)}}
		case isStrings(sv) && !slices.Equal(sv.([]string), asStrings(text)):
			edit().NonRefProps.Fields[name] = &pb.Value{Kind: &pb.Value_ListValue{ListValue: &pb.ListValue{
				Kind: &pb.ListValue_TextValues{TextValues: &pb.TextValues{Values: sv.([]string)}}}}}
		}
	}
	if out == nil {
		return p
	}
	return out
}

func isString(v any) bool  { _, ok := v.(string); return ok }
func isStrings(v any) bool { _, ok := v.([]string); return ok }

func asStrings(v any) []string {
	s, _ := v.([]string)
	return s
}

// metadata is the pool search's metadata of the object with what the
// caller did not ask for left out, and the stage's rerank score and
// explanation.
func (u *upstreamQuery) metadata(res *search.Result) *pb.MetadataResult {
	m := proto.CloneOf(u.pool[res.ID].GetMetadata())
	if m == nil {
		m = &pb.MetadataResult{}
	}
	want := u.req.GetMetadata()
	if want == nil {
		want = &pb.MetadataRequest{}
	}
	if want.Uuid {
		m.Id = string(res.ID)
		if id, err := uuid.Parse(string(res.ID)); err == nil {
			m.IdAsBytes = id[:]
		}
	} else {
		m.Id, m.IdAsBytes = "", nil
	}
	if !want.Vector {
		m.Vector, m.VectorBytes = nil, nil
		if len(want.Vectors) == 0 {
			m.Vectors = nil
		} else {
			m.Vectors = slices.DeleteFunc(m.Vectors, func(v *pb.Vectors) bool { return !slices.Contains(want.Vectors, v.GetName()) })
		}
	}
	if !want.LastUpdateTimeUnix {
		m.LastUpdateTimeUnix, m.LastUpdateTimeUnixPresent = 0, false
	}
	if !want.Distance {
		m.Distance, m.DistancePresent = 0, false
	}
	if !want.Score {
		m.Score, m.ScorePresent = 0, false
	}
	m.RerankScore, m.RerankScorePresent = 0, false
	if rs, ok := res.AdditionalProperties["rerank"].([]*rankmodels.RankResult); ok && len(rs) > 0 && rs[0].Score != nil {
		m.RerankScore, m.RerankScorePresent = *rs[0].Score, true
	}
	if want.ExplainScore {
		m.ExplainScore, m.ExplainScorePresent = res.ExplainScore, true
	}
	return m
}
