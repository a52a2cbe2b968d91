package gateway

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/go-openapi/strfmt"
	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/dto"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"github.com/weaviate/weaviate/usecases/byteops"
	rankmodels "github.com/weaviate/weaviate/usecases/modulecomponents/additional/models"
	"github.com/weaviate/weaviate/usecases/modulecomponents/additional/rank"
	"google.golang.org/protobuf/proto"
)

// The upstream searches of one selecting query, and their results. The
// stage asks for its pool (SearchPool) as Weaviate's parsed params; the
// gateway sends the caller's own request with what the stage changed - the
// window, what is loaded, the reranker that scores the pool - and reads the
// results into Weaviate's result type, keeping each object's properties as
// Weaviate sent them for the reply.

const searchMethod = "/weaviate.v1.Weaviate/Search"

// upstreamQuery is one selecting query's view of the upstream: the
// caller's request and every object read, by id.
type upstreamQuery struct {
	g   *Gateway
	req *pb.SearchRequest
	// the collection's name as the upstream spells it
	class string

	mu sync.Mutex
	// pool is each object's result from the pool's search (its metadata:
	// distance, score, explanation), props its properties from the last
	// read that loaded them, objs its last read by id (the metadata of the
	// object itself: vectors, creation time).
	pool  map[strfmt.UUID]*pb.SearchResult
	props map[strfmt.UUID]*pb.PropertiesResult
	objs  map[strfmt.UUID]*pb.SearchResult
	// order is the selection's ids, in the reply's order.
	order []string
	// metric is the distance of the collection's legacy vector ("": named
	// vectors, whose target the generative ordering does not know).
	metric string
	// vectors are the collection's named vectors: a read by id loads them
	// all, so that one cached read serves any request's.
	vectors []string
	// reads are the properties the selection reads (engine.PoolSearch);
	// trimmed: the pool's search asked for them alone, so the selected
	// objects' other properties come from their read by id (reply.go).
	reads   []string
	trimmed bool
	// blobs are the collection's blob properties.
	blobs []string
}

func (g *Gateway) newUpstreamQuery(req *pb.SearchRequest, class *models.Class) *upstreamQuery {
	metric := ""
	if len(class.VectorConfig) == 0 {
		metric = "cosine" // Weaviate's default
		if cfg, ok := class.VectorIndexConfig.(map[string]any); ok {
			if d, ok := cfg["distance"].(string); ok && d != "" {
				metric = d
			}
		}
	}
	var blobs []string
	for _, p := range class.Properties {
		if slices.Equal(p.DataType, []string{"blob"}) {
			blobs = append(blobs, p.Name)
		}
	}
	return &upstreamQuery{g: g, req: req, class: class.Class, metric: metric, vectors: slices.Sorted(maps.Keys(class.VectorConfig)), blobs: blobs,
		pool: map[strfmt.UUID]*pb.SearchResult{}, props: map[strfmt.UUID]*pb.PropertiesResult{}, objs: map[strfmt.UUID]*pb.SearchResult{}}
}

// search runs a search upstream with the caller's credentials.
func (u *upstreamQuery) search(ctx context.Context, req *pb.SearchRequest) (*pb.SearchReply, error) {
	reply := &pb.SearchReply{}
	ctx, cancel := context.WithTimeout(ctx, u.g.opts.UpstreamTimeout)
	defer cancel()
	if err := u.g.conn.Invoke(outgoing(ctx), searchMethod, req, reply); err != nil {
		return nil, u.g.classes.unlessStarting(ctx, upstreamStatus(err))
	}
	return reply, nil
}

// searchPool is the stage's PoolSearch: the caller's search with the pool's
// window, loads and hooks, loading of the properties only what the
// selection reads (reads) where it can.
func (u *upstreamQuery) searchPool(ctx context.Context, pool dto.GetParams, reads []string) ([]search.Result, error) {
	if u.namesBlob() {
		reads = nil // a read by id returns no blob: the search loads the caller's
	}
	req, trimmed := poolRequest(u.req, pool, reads)
	reply, err := u.search(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, len(reply.Results))
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reads, u.trimmed = reads, u.trimmed || trimmed
	for _, r := range reply.Results {
		res := u.result(r)
		u.pool[res.ID] = r
		if !pool.AdditionalProperties.NoProps || len(pool.Properties) > 0 {
			u.props[res.ID] = r.Properties
		}
		out = append(out, res)
	}
	return out, nil
}

// poolRequest is req with the pool's window, properties, metadata and
// reranker (pool: the stage's params of the pool's search). Of the
// properties it asks only for those the selection reads (reads; nil: not
// known) and the one a reranker of the pool reads, when the caller's other
// properties can be read by id for the selected objects alone (trimmable):
// trimmed says so.
func poolRequest(req *pb.SearchRequest, pool dto.GetParams, reads []string) (_ *pb.SearchRequest, trimmed bool) {
	r := proto.CloneOf(req)
	r.Generative = nil // generate runs on the selection (generate.go)
	r.Rerank = nil
	if rp, ok := pool.AdditionalProperties.ModuleParams["rerank"].(*rank.Params); ok && rp != nil {
		r.Rerank = &pb.Rerank{Property: rp.GetProperty(), Query: rp.Query}
	}
	if pg := pool.Pagination; pg != nil {
		r.Limit, r.Offset = uint32(pg.Limit), uint32(pg.Offset)
		if pg.Autocut > 0 {
			r.Autocut = uint32(pg.Autocut)
		}
	}
	addl := pool.AdditionalProperties
	switch {
	case addl.NoProps && len(pool.Properties) == 0:
		r.Properties = &pb.PropertiesRequest{} // ids and scores only
	case len(reads) > 0 && trimmable(req.Properties):
		names := slices.Clone(reads)
		if r.Rerank != nil && !slices.Contains(names, r.Rerank.Property) {
			names = append(names, r.Rerank.Property)
		}
		r.Properties, trimmed = &pb.PropertiesRequest{NonRefProperties: names}, true
	case r.Properties != nil:
		r.Properties = proto.CloneOf(r.Properties)
		for _, p := range pool.Properties {
			if p.IsPrimitive && !r.Properties.ReturnAllNonrefProperties && !slices.Contains(r.Properties.NonRefProperties, p.Name) {
				r.Properties.NonRefProperties = append(r.Properties.NonRefProperties, p.Name)
			}
		}
	}
	r.Metadata = poolMetadata(req.GetMetadata(), addl)
	return r, trimmed
}

// namesBlob: the caller asks for a blob property by its name, which a read
// by id (every non-blob property, readByID) does not return.
func (u *upstreamQuery) namesBlob() bool {
	return slices.ContainsFunc(u.req.GetProperties().GetNonRefProperties(), func(n string) bool {
		return slices.ContainsFunc(u.blobs, func(b string) bool { return strings.EqualFold(b, n) })
	})
}

// trimmable: the caller's properties are what a read by id returns, cut
// to their names - no cross-references (the search resolves them) and no
// nested object cut to some of its fields.
func trimmable(want *pb.PropertiesRequest) bool {
	return len(want.GetRefProperties()) == 0 && len(want.GetObjectProperties()) == 0
}

// poolMetadata is what the pool's search asks of each candidate: its id and
// version, its distance and score (the relevance), the vectors the stage
// compares, and what the caller asked that depends on the search
// (certainty, explanation, consistency). What the caller asked of the
// object itself - its vectors, its creation time - comes with the read of
// the selected objects by id (reply.go, complete): the pool's search does
// not serialise a vector per candidate for the few that are returned.
func poolMetadata(want *pb.MetadataRequest, addl additional.Properties) *pb.MetadataRequest {
	return &pb.MetadataRequest{
		Uuid: true, LastUpdateTimeUnix: true, Distance: true, Score: true,
		Certainty: want.GetCertainty(), ExplainScore: want.GetExplainScore(), IsConsistent: want.GetIsConsistent(),
		Vector:  addl.Vector,
		Vectors: slices.Clone(addl.Vectors),
	}
}

// objectMetadata: the caller asked for metadata of the object itself, which
// the pool's search leaves out (poolMetadata).
func objectMetadata(want *pb.MetadataRequest) bool {
	return want.GetVector() || len(want.GetVectors()) > 0 || want.GetCreationTimeUnix()
}

// read is the stage's MultiGetFunc: the objects by id, each with its
// properties and vectors - from the gateway's object cache when it holds the
// version the pool's search returned (concurrent misses of one version
// merged into one read), the others in one search filtered to their ids;
// got[k] is ids[k]'s object or the zero result when it is gone.
func (u *upstreamQuery) read(ctx context.Context, ids []multi.Identifier, _ additional.Properties, tenant string) ([]search.Result, error) {
	var keys []objectKey // versions the pool's search named
	var direct []string  // the others: read, not kept
	u.mu.Lock()
	for _, id := range ids {
		k := objectKey{class: u.class, tenant: tenant, id: strfmt.UUID(id.ID),
			updated: u.pool[strfmt.UUID(id.ID)].GetMetadata().GetLastUpdateTimeUnix()}
		if k.updated > 0 {
			keys = append(keys, k)
		} else {
			direct = append(direct, id.ID)
		}
	}
	u.mu.Unlock()
	found := map[strfmt.UUID]*pb.SearchResult{}
	if len(keys) > 0 {
		got, err := u.g.objects.get(ctx, keys, func(ctx context.Context, keys []objectKey) (map[objectKey]*pb.SearchResult, error) {
			missing := make([]string, len(keys))
			for i, k := range keys {
				missing[i] = string(k.id)
			}
			reply, err := u.readByID(ctx, missing, tenant)
			if err != nil {
				return nil, err
			}
			out := make(map[objectKey]*pb.SearchResult, len(reply.Results))
			for _, r := range reply.Results {
				md := r.GetMetadata()
				out[objectKey{class: u.class, tenant: tenant, id: strfmt.UUID(md.GetId()), updated: md.GetLastUpdateTimeUnix()}] = r
			}
			return out, nil
		})
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if r, ok := got[k]; ok {
				found[k.id] = r
			} else { // gone, or changed since the pool's search (kept under its new version)
				direct = append(direct, string(k.id))
			}
		}
	}
	if len(direct) > 0 {
		reply, err := u.readByID(ctx, direct, tenant)
		if err != nil {
			return nil, err
		}
		for _, r := range reply.Results {
			found[strfmt.UUID(r.GetMetadata().GetId())] = r
		}
	}
	out := make([]search.Result, len(ids))
	u.mu.Lock()
	defer u.mu.Unlock()
	for i, id := range ids {
		if r, ok := found[strfmt.UUID(id.ID)]; ok {
			out[i] = u.result(r) // the others stay zero: gone
			u.props[out[i].ID] = r.Properties
			u.objs[out[i].ID] = r
		}
	}
	return out, nil
}

// readByID is one search for the objects of ids, with every property and
// vector and their times.
func (u *upstreamQuery) readByID(ctx context.Context, ids []string, tenant string) (*pb.SearchReply, error) {
	return u.search(ctx, &pb.SearchRequest{
		Collection: u.class, Tenant: tenant, ConsistencyLevel: u.req.ConsistencyLevel,
		Limit:       uint32(len(ids)),
		Filters:     idFilter(ids),
		Properties:  &pb.PropertiesRequest{ReturnAllNonrefProperties: true},
		Metadata:    &pb.MetadataRequest{Uuid: true, LastUpdateTimeUnix: true, CreationTimeUnix: true, Vector: true, Vectors: u.vectors},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	})
}

// idFilter matches the objects with the given ids.
func idFilter(ids []string) *pb.Filters {
	return &pb.Filters{
		Operator:  pb.Filters_OPERATOR_CONTAINS_ANY,
		On:        []string{"_id"},
		TestValue: &pb.Filters_ValueTextArray{ValueTextArray: &pb.TextArray{Values: ids}},
	}
}

// result reads one upstream result into Weaviate's result type, as the
// stage sees candidates inside Weaviate.
func (u *upstreamQuery) result(r *pb.SearchResult) search.Result {
	m := r.GetMetadata()
	res := search.Result{
		ID:           strfmt.UUID(m.GetId()),
		ClassName:    u.class,
		Dist:         m.GetDistance(),
		Certainty:    m.GetCertainty(),
		Score:        m.GetScore(),
		ExplainScore: m.GetExplainScore(),
		Created:      m.GetCreationTimeUnix(),
		Updated:      m.GetLastUpdateTimeUnix(),
		Tenant:       u.req.GetTenant(),
		IsConsistent: m.GetIsConsistent(),
	}
	if len(m.GetVectorBytes()) > 0 {
		res.Vector = byteops.Fp32SliceFromBytes(m.GetVectorBytes())
	} else if len(m.GetVector()) > 0 {
		res.Vector = m.GetVector()
	}
	if vs := m.GetVectors(); len(vs) > 0 {
		res.Vectors = models.Vectors{}
		for _, v := range vs {
			if v.GetType() == pb.Vectors_VECTOR_TYPE_MULTI_FP32 {
				res.Vectors[v.GetName()] = multiFloats(v.GetVectorBytes())
			} else {
				res.Vectors[v.GetName()] = byteops.Fp32SliceFromBytes(v.GetVectorBytes())
			}
		}
	}
	if m.GetRerankScorePresent() {
		s := m.GetRerankScore()
		res.AdditionalProperties = models.AdditionalProperties{"rerank": []*rankmodels.RankResult{{Score: &s}}}
	}
	if fields := r.GetProperties().GetNonRefProps().GetFields(); len(fields) > 0 {
		props := make(map[string]any, len(fields))
		for k, v := range fields {
			props[k] = value(v)
		}
		res.Schema = props
	}
	return res
}

// multiFloats decodes a multi-vector (the dimension as a little-endian
// uint16, then the vectors' float32s) with Weaviate's byteops, which
// panics on a single byte and refuses a dimension of 0: those are no
// vectors.
func multiFloats(b []byte) [][]float32 {
	if len(b) < 2 {
		return nil
	}
	out, err := byteops.Fp32SliceOfSlicesFromBytes(b)
	if err != nil {
		return nil
	}
	return out
}

// value is a property value as Weaviate's results hold it: what the
// selection reads (text, text arrays, numbers for a token count, anything a
// source property holds as its printed form).
func value(v *pb.Value) any {
	switch k := v.GetKind().(type) {
	case *pb.Value_TextValue:
		return k.TextValue
	case *pb.Value_NumberValue:
		return k.NumberValue
	case *pb.Value_IntValue:
		return float64(k.IntValue)
	case *pb.Value_BoolValue:
		return k.BoolValue
	case *pb.Value_DateValue:
		return k.DateValue
	case *pb.Value_UuidValue:
		return k.UuidValue
	case *pb.Value_BlobValue:
		return k.BlobValue
	case *pb.Value_ListValue:
		return listValue(k.ListValue)
	case *pb.Value_ObjectValue:
		out := map[string]any{}
		for name, f := range k.ObjectValue.GetFields() {
			out[name] = value(f)
		}
		return out
	case *pb.Value_GeoValue:
		return map[string]any{"latitude": k.GeoValue.GetLatitude(), "longitude": k.GeoValue.GetLongitude()}
	case *pb.Value_PhoneValue:
		return map[string]any{"input": k.PhoneValue.GetInput(), "internationalFormatted": k.PhoneValue.GetInternationalFormatted()}
	}
	return nil
}

func listValue(l *pb.ListValue) any {
	switch k := l.GetKind().(type) {
	case *pb.ListValue_TextValues:
		return slices.Clone(k.TextValues.GetValues())
	case *pb.ListValue_DateValues:
		return slices.Clone(k.DateValues.GetValues())
	case *pb.ListValue_UuidValues:
		return slices.Clone(k.UuidValues.GetValues())
	case *pb.ListValue_BoolValues:
		return slices.Clone(k.BoolValues.GetValues())
	case *pb.ListValue_NumberValues:
		return byteops.Fp64SliceFromBytes(k.NumberValues.GetValues())
	case *pb.ListValue_IntValues:
		ints := byteops.IntsFromByteVector(k.IntValues.GetValues())
		out := make([]float64, len(ints))
		for i, n := range ints {
			out[i] = float64(n)
		}
		return out
	case *pb.ListValue_ObjectValues:
		var out []any
		for _, o := range k.ObjectValues.GetValues() {
			m := map[string]any{}
			for name, f := range o.GetFields() {
				m[name] = value(f)
			}
			out = append(out, m)
		}
		return out
	}
	return nil
}
