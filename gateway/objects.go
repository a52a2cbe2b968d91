package gateway

import (
	"context"

	"github.com/go-openapi/strfmt"
	"github.com/maypok86/otter/v2"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/protobuf/proto"
)

// objects keeps the objects the gateway read by id - their properties and
// vectors as Weaviate sent them - by collection, tenant, id and update time,
// under a byte bound (otter's weigher). A later read of the same version
// (the pool's search names each candidate's update time) is answered from
// here: the selected objects of a repeated query, or candidates whose
// features the engine's cache let go, cost no second upstream round trip;
// concurrent misses of one version are served by one read (otter's bulk
// loader). A changed object has another update time, so it is read again;
// a caller gets an object from here only when its own search returned that
// version of it.
type objects struct {
	max   int64
	cache *otter.Cache[objectKey, *pb.SearchResult] // nil: off
}

type objectKey struct {
	class, tenant string
	id            strfmt.UUID
	updated       int64
}

// newObjects is an object cache of at most max bytes (0 or less: off).
func newObjects(max int64) *objects {
	o := &objects{max: max}
	if max > 0 {
		o.cache = otter.Must(&otter.Options[objectKey, *pb.SearchResult]{
			MaximumWeight: uint64(max),
			Weigher:       func(_ objectKey, r *pb.SearchResult) uint32 { return uint32(objectSize(r)) },
		})
	}
	return o
}

// objectSize is what an entry holds: the object and the entry's and key's own.
func objectSize(r *pb.SearchResult) int64 { return int64(proto.Size(r)) + 128 }

// cacheable: an object of k may be kept (a known version, small enough).
func (o *objects) cacheable(k objectKey, r *pb.SearchResult) bool {
	return o.cache != nil && k.updated > 0 && objectSize(r) <= o.max/8
}

// get returns the objects of keys, from the cache or, for those it lacks,
// from load (one call for all of them, merged with concurrent callers'
// misses of the same keys); an object load leaves out is not in the map.
// load returns objects by key; those not cacheable are returned but not
// kept.
func (o *objects) get(ctx context.Context, keys []objectKey, load func(context.Context, []objectKey) (map[objectKey]*pb.SearchResult, error)) (map[objectKey]*pb.SearchResult, error) {
	if o.cache == nil {
		return load(ctx, keys)
	}
	var extra map[objectKey]*pb.SearchResult // read, but too large to keep
	got, err := o.cache.BulkGet(ctx, keys, otter.BulkLoaderFunc[objectKey, *pb.SearchResult](
		func(ctx context.Context, keys []objectKey) (map[objectKey]*pb.SearchResult, error) {
			read, err := load(ctx, keys)
			if err != nil {
				return nil, err
			}
			keep := make(map[objectKey]*pb.SearchResult, len(read))
			for k, r := range read {
				if o.cacheable(k, r) {
					keep[k] = r
				} else {
					if extra == nil {
						extra = map[objectKey]*pb.SearchResult{}
					}
					extra[k] = r
				}
			}
			return keep, nil
		}))
	if err != nil {
		return nil, err
	}
	for k, r := range extra {
		got[k] = r
	}
	return got, nil
}

// stats are the cache's entries and bytes.
func (o *objects) stats() map[string]int64 {
	if o.cache == nil {
		return map[string]int64{"entries": 0, "bytes": 0, "maxBytes": o.max}
	}
	return map[string]int64{"entries": int64(o.cache.EstimatedSize()), "bytes": int64(o.cache.WeightedSize()), "maxBytes": o.max}
}
