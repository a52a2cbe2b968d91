package gateway

import (
	"container/list"
	"sync"

	"github.com/go-openapi/strfmt"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/protobuf/proto"
)

// objects keeps the objects the gateway read by id - their properties and
// vectors as Weaviate sent them - by collection, tenant, id and update time,
// least recently used first out under a byte bound. A later read of the
// same version (the pool's search names each candidate's update time) is
// answered from here: the selected objects of a repeated query, or
// candidates whose features the engine's cache let go, cost no second
// upstream round trip. A changed object has another update time, so it is
// read again; a caller gets an object from here only when its own search
// returned that version of it.
type objects struct {
	max int64

	mu    sync.Mutex
	size  int64
	order *list.List // of *objectEntry, most recently used first
	byKey map[objectKey]*list.Element
}

type objectKey struct {
	class, tenant string
	id            strfmt.UUID
	updated       int64
}

type objectEntry struct {
	key  objectKey
	r    *pb.SearchResult
	size int64
}

// newObjects is an object cache of at most max bytes (0: off).
func newObjects(max int64) *objects {
	return &objects{max: max, order: list.New(), byKey: map[objectKey]*list.Element{}}
}

// get returns the cached object of k, nil when there is none.
func (o *objects) get(k objectKey) *pb.SearchResult {
	if o.max <= 0 {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	el, ok := o.byKey[k]
	if !ok {
		return nil
	}
	o.order.MoveToFront(el)
	return el.Value.(*objectEntry).r
}

// put keeps r under k (never modified after: callers clone what they change).
func (o *objects) put(k objectKey, r *pb.SearchResult) {
	size := int64(proto.Size(r)) + 128 // the entry and key's own
	if o.max <= 0 || size > o.max/8 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if el, ok := o.byKey[k]; ok {
		o.order.MoveToFront(el)
		return
	}
	o.byKey[k] = o.order.PushFront(&objectEntry{key: k, r: r, size: size})
	o.size += size
	for o.size > o.max {
		last := o.order.Back()
		e := last.Value.(*objectEntry)
		o.order.Remove(last)
		delete(o.byKey, e.key)
		o.size -= e.size
	}
}

// stats are the cache's entries and bytes.
func (o *objects) stats() map[string]int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return map[string]int64{"entries": int64(len(o.byKey)), "bytes": o.size, "maxBytes": o.max}
}
