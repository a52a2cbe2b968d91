package gateway

import (
	"context"
	"slices"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/multi"
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

func (u *upstreamQuery) reply(ctx context.Context, out []search.Result) (*pb.SearchReply, error) {
	if err := u.complete(ctx, out); err != nil {
		return nil, err
	}
	results := make([]*pb.SearchResult, 0, len(out))
	u.mu.Lock()
	defer u.mu.Unlock()
	for i := range out {
		u.order = append(u.order, string(out[i].ID))
		results = append(results, &pb.SearchResult{
			Properties: withSelectedText(u.properties(&out[i]), out[i].Schema, u.textOnly()),
			Metadata:   u.metadata(&out[i]),
		})
	}
	return &pb.SearchReply{Results: results}, nil
}

// complete reads by id the selected objects that no read loaded yet, when
// the caller asked for metadata the pool's search leaves out (poolMetadata):
// one read for all of them, from the object cache when it holds their
// versions (usually: the stage read the selected objects' properties
// already, or a query before this one did).
func (u *upstreamQuery) complete(ctx context.Context, out []search.Result) error {
	var ids []multi.Identifier
	// The properties the stage chose stay (read keeps the last read's).
	props := map[strfmt.UUID]*pb.PropertiesResult{}
	u.mu.Lock()
	if u.trimmed || objectMetadata(u.req.GetMetadata()) {
		for i := range out {
			if id := out[i].ID; u.objs[id] == nil {
				ids = append(ids, multi.Identifier{ID: string(id), ClassName: u.class})
				props[id] = u.props[id]
			}
		}
	}
	u.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	if _, err := u.read(ctx, ids, additional.Properties{}, u.req.GetTenant()); err != nil {
		return withCode(err)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, p := range props {
		if p != nil {
			u.props[id] = p
		}
	}
	return nil
}

// properties are the object's properties, cut to the caller's request.
func (u *upstreamQuery) properties(res *search.Result) *pb.PropertiesResult {
	p := u.props[res.ID]
	if u.trimmed && u.objs[res.ID] != nil {
		p = u.objs[res.ID].GetProperties() // the pool's search loaded only what the selection reads
	}
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

// textOnly names the properties whose text the stage may have changed when
// the pool's search loaded only those (nil: any it loaded).
func (u *upstreamQuery) textOnly() []string {
	if u.trimmed {
		return u.reads
	}
	return nil
}

// withSelectedText is p with the text the selection gave the object: with
// evidence cards the module puts the card in the first text property and
// drops the others (engine/evidence.go, withCard); schema is the selected
// object as the stage returned it, which holds the properties the pool's
// search loaded: only (nil: all of p's) are compared with it.
func withSelectedText(p *pb.PropertiesResult, schema any, only []string) *pb.PropertiesResult {
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
		if text == nil || (only != nil && !slices.Contains(only, name)) {
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
	// The object's own metadata from its read by id (complete), in the
	// order Weaviate gives it: the request's names.
	obj := u.objs[res.ID].GetMetadata()
	m.Vector, m.VectorBytes, m.Vectors = nil, nil, nil
	if want.Vector {
		// On a collection of named vectors Weaviate answers the legacy
		// vector with all of them: so did the read.
		m.Vector, m.VectorBytes, m.Vectors = obj.GetVector(), obj.GetVectorBytes(), obj.GetVectors()
	}
	for _, name := range want.Vectors {
		if want.Vector && len(u.vectors) > 0 {
			break
		}
		if i := slices.IndexFunc(obj.GetVectors(), func(v *pb.Vectors) bool { return v.GetName() == name }); i >= 0 {
			m.Vectors = append(m.Vectors, obj.GetVectors()[i])
		}
	}
	m.CreationTimeUnix, m.CreationTimeUnixPresent = 0, false
	if want.CreationTimeUnix {
		m.CreationTimeUnix, m.CreationTimeUnixPresent = obj.GetCreationTimeUnix(), obj.GetCreationTimeUnixPresent()
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
