package integration

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weaviate/weaviate/entities/models"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestGatewayUpstreamRestart: under load (8 clients sending selecting
// searches with a deadline each), the upstream Weaviate is killed and
// started again, restarts times. While it is down every answer is
// Unavailable; no call waits longer than maxWait, however long the
// client's deadline, because the upstream is down or starting (the schema
// read's own timeout, the known schema served meanwhile); after each
// restart the gateway - the same process, never restarted - answers the
// same selection as before.
func TestGatewayUpstreamRestart(t *testing.T) {
	gs := startGatewayStack(t, "gateway-restart", gatewayOptions{config: map[string]any{gwClass: gwCfg}})
	createOn(t, gs.upClient, &models.Class{Class: gwClass, Vectorizer: "text2vec-transformers",
		ModuleConfig: transformers(), Properties: bodyProps()})
	importOn(t, gs.upClient, gwClass, gwDocs)
	// Stopped and started once, gently: what a crash loses of the last
	// seconds' writes is Weaviate's business, not this test's.
	gs.up.StopServer(false)
	c0, cancel0 := context.WithTimeout(context.Background(), 3*time.Minute)
	if err := gs.up.Restart(c0); err != nil {
		cancel0()
		t.Fatal(err)
	}
	cancel0()
	req := eqRequest(40, map[string]any{"strategy": "mmr", "tokenBudget": 100}, nil)
	before, err := gs.search(ctx(t), req)
	if err != nil || len(before.Results) == 0 {
		t.Fatalf("before: %v", err)
	}
	want := replyIDs(before)
	pid := gs.gw.PID()

	// deadline is the clients': longer than any wait the gateway allows, so
	// that a stalled call shows as a long wait, not as the client's timeout.
	const deadline = 10 * time.Second
	// maxWait bounds every call's wait: the schema read's timeout (2 s) and
	// a margin for a loaded machine.
	const maxWait = 3 * time.Second
	const restarts = 3
	var phase atomic.Int32 // 0 up, 1 down, 2 restarting, 3 up again
	type tally struct {
		ok, unavailable, deadline, other, wrong, late int
		longest                                       time.Duration
	}
	var mu sync.Mutex
	tallies := map[int32]*tally{0: {}, 1: {}, 2: {}, 3: {}}
	var firstOther []string
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := phase.Load()
				cctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				reply, err := gs.search(cctx, req)
				took := time.Since(start)
				cancel()
				mu.Lock()
				tl := tallies[p]
				switch code := status.Code(err); {
				case err == nil && slices.Equal(replyIDs(reply), want):
					tl.ok++
				case err == nil:
					tl.wrong++
					if len(firstOther) < 5 {
						firstOther = append(firstOther, fmt.Sprintf("client %d, phase %d: a wrong selection %v", c, p, replyIDs(reply)))
					}
				case code == codes.Unavailable:
					tl.unavailable++
				case code == codes.DeadlineExceeded:
					tl.deadline++
				default:
					tl.other++
					if len(firstOther) < 5 {
						firstOther = append(firstOther, fmt.Sprintf("client %d, phase %d: %v", c, p, err))
					}
				}
				if took > maxWait {
					tl.late++
				}
				tl.longest = max(tl.longest, took)
				mu.Unlock()
				if err != nil {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(time.Second)
	for round := range restarts {
		phase.Store(1)
		gs.up.StopServer(true) // killed, as a crashed node
		time.Sleep(3 * time.Second)
		phase.Store(2)
		c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		if err := gs.up.Restart(c); err != nil {
			cancel()
			t.Fatalf("restart %d of the upstream: %v", round+1, err)
		}
		cancel()
		mu.Lock()
		okBefore := tallies[3].ok
		mu.Unlock()
		phase.Store(3)
		recovered := time.Now()
		for {
			mu.Lock()
			ok := tallies[3].ok - okBefore
			mu.Unlock()
			if ok >= 40 || time.Since(recovered) > 30*time.Second {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	close(stop)
	wg.Wait()
	for p, name := range []string{"up", "killed", "restarting", "back"} {
		tl := tallies[int32(p)]
		t.Logf("%-10s ok %d, Unavailable %d, DeadlineExceeded %d, other errors %d, wrong %d, waits over %s %d, longest wait %s",
			name, tl.ok, tl.unavailable, tl.deadline, tl.other, tl.wrong, maxWait, tl.late, tl.longest.Round(time.Millisecond))
	}
	if tl := tallies[1]; tl.unavailable == 0 || tl.ok > 0 || tl.other > 0 || tl.deadline > 0 {
		t.Errorf("while the upstream was down: %+v, want Unavailable only", *tl)
	}
	if tl := tallies[3]; tl.ok < 40*restarts || tl.wrong > 0 {
		t.Errorf("after the restarts: %+v, want the selection again (40 answers after each)", *tl)
	}
	for p, tl := range tallies {
		if tl.late > 0 || tl.wrong > 0 || tl.deadline > 0 {
			t.Errorf("phase %d: waits over %s or wrong answers: %+v (longest %s)", p, maxWait, *tl, tl.longest)
		}
	}
	if len(firstOther) > 0 {
		t.Errorf("errors other than Unavailable, or wrong selections: %v", firstOther)
	}
	if !gs.gw.Alive() || gs.gw.PID() != pid {
		t.Errorf("the gateway restarted or died")
	}
}
