package gateway

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// schemaServer answers GET /v1/schema/Doc after delay, counting the reads.
type schemaServer struct {
	reads atomic.Int64
	delay atomic.Int64 // nanoseconds
	code  atomic.Int64 // 0: 200
}

func (s *schemaServer) start(t *testing.T) *url.URL {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/.well-known/ready" {
			return
		}
		s.reads.Add(1)
		select {
		case <-time.After(time.Duration(s.delay.Load())):
		case <-r.Context().Done():
			return
		}
		if c := s.code.Load(); c != 0 {
			w.WriteHeader(int(c))
			return
		}
		_, _ = w.Write([]byte(`{"class":"Doc"}`))
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

// TestClassesConcurrentMiss: 32 callers missing the same schema at once are
// served by one upstream read.
func TestClassesConcurrentMiss(t *testing.T) {
	var up schemaServer
	up.delay.Store(int64(100 * time.Millisecond))
	c := newClasses(up.start(t), http.DefaultClient, time.Minute, time.Hour, 2*time.Second, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for range 32 {
		wg.Go(func() {
			class, err := c.get(context.Background(), "Doc")
			if err == nil && class.Class != "Doc" {
				err = status.Errorf(codes.Internal, "class %q", class.Class)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := up.reads.Load(); n != 1 {
		t.Errorf("%d schema reads for 32 concurrent misses, want 1", n)
	}
}

// TestClassesFailFast: a known schema is served at once while the upstream
// stalls (and read again in the background); an unknown one is Unavailable
// after the read's timeout, naming it; a refusal drops the entry.
func TestClassesFailFast(t *testing.T) {
	var up schemaServer
	const timeout = 300 * time.Millisecond
	c := newClasses(up.start(t), http.DefaultClient, 50*time.Millisecond, time.Hour, timeout, nil)
	ctx := context.Background()
	if _, err := c.get(ctx, "Doc"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the entry is due for a read again
	up.delay.Store(int64(10 * time.Second))
	for i := range 3 {
		start := time.Now()
		class, err := c.get(ctx, "Doc")
		if took := time.Since(start); err != nil || class.Class != "Doc" || took > 50*time.Millisecond {
			t.Errorf("get %d while the upstream stalls: %v %v after %s, want the known schema at once", i, class, err, took)
		}
	}
	start := time.Now()
	_, err := c.get(ctx, "Other")
	took := time.Since(start)
	if status.Code(err) != codes.Unavailable || took > timeout+200*time.Millisecond {
		t.Errorf("an unknown schema while the upstream stalls: %v after %s, want Unavailable within %s", err, took, timeout)
	}

	// The upstream answers again, and refuses: the entry goes.
	up.delay.Store(0)
	up.code.Store(http.StatusForbidden)
	time.Sleep(timeout + 100*time.Millisecond) // the stalled background read has given up
	_, _ = c.get(ctx, "Doc")                   // starts a background read
	deadline := time.Now().Add(2 * time.Second)
	for {
		_, err := c.get(ctx, "Doc")
		if status.Code(err) == codes.PermissionDenied {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the upstream refused the schema: %v, want PermissionDenied", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
