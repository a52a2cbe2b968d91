package gateway

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-openapi/strfmt"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
)

// TestObjectsConcurrentMiss: callers missing the same object versions at
// once are served by one read; a later caller by none; an object too large
// to keep is returned but read again.
func TestObjectsConcurrentMiss(t *testing.T) {
	o := newObjects(1 << 20)
	var reads atomic.Int64
	load := func(_ context.Context, keys []objectKey) (map[objectKey]*pb.SearchResult, error) {
		reads.Add(1)
		time.Sleep(50 * time.Millisecond)
		out := map[objectKey]*pb.SearchResult{}
		for _, k := range keys {
			out[k] = &pb.SearchResult{Metadata: &pb.MetadataResult{Id: string(k.id)}}
		}
		return out, nil
	}
	keys := []objectKey{{class: "Doc", id: "a", updated: 1}, {class: "Doc", id: "b", updated: 1}}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			got, err := o.get(context.Background(), keys, load)
			if err != nil || len(got) != 2 || got[keys[1]].GetMetadata().GetId() != "b" {
				t.Errorf("got %v %v", got, err)
			}
		})
	}
	wg.Wait()
	if n := reads.Load(); n != 1 {
		t.Errorf("%d reads for 16 concurrent misses of the same objects, want 1", n)
	}
	if _, err := o.get(context.Background(), keys, load); err != nil || reads.Load() != 1 {
		t.Errorf("a cached read: %v, %d reads in all, want 1", err, reads.Load())
	}

	big := objectKey{class: "Doc", id: strfmt.UUID("big"), updated: 1}
	bigLoad := func(_ context.Context, keys []objectKey) (map[objectKey]*pb.SearchResult, error) {
		reads.Add(1)
		return map[objectKey]*pb.SearchResult{big: {Metadata: &pb.MetadataResult{Id: "big", Vector: make([]float32, 1<<16)}}}, nil
	}
	for range 2 {
		if got, err := o.get(context.Background(), []objectKey{big}, bigLoad); err != nil || got[big] == nil {
			t.Fatalf("a large object: %v %v", got, err)
		}
	}
	if n := reads.Load(); n != 3 {
		t.Errorf("%d reads, want a large object (over an eighth of the bound) read each time: 3", n)
	}
}
