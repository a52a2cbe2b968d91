package host

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	protobuf "google.golang.org/protobuf/proto"

	"github.com/diverse-select/diverse-select/plugin/sdk"
	"github.com/diverse-select/diverse-select/selectors"
)

// BenchmarkPluginOverhead compares one mmr selection (N = 100 candidates,
// d = 768, maxResults 10) run by the built-in strategy with the same
// selection through the passthrough plugin process, which runs the same
// built-in mmr: the difference is the plugin path's per-call overhead
// (encoding, the gRPC round trip over a Unix socket, decoding, checks).
// Medians of -count=5 are in docs/performance.md.
func BenchmarkPluginOverhead(b *testing.B) {
	p := problem(100, 768, 11)
	p.MaxResults = 10
	for _, name := range []string{"mmr", "passthrough"} {
		b.Run(name, func(b *testing.B) {
			s, err := selectors.New(name, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			pid := statusOf(name).PID // 0 for the built-in
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime(0) + cpuTime(pid)
			for i := 0; i < b.N; i++ {
				if _, err := s.Run(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			// CPU time of this process and the plugin's: less sensitive than
			// wall time to other load on the machine.
			b.ReportMetric(float64(cpuTime(0)+cpuTime(pid)-cpu0)/float64(b.N), "cpu-ns/op")
			if name == "passthrough" {
				req, err := sdk.EncodeProblem(p, s.Params, true, false, nil)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(protobuf.Size(req)), "request-bytes")
			}
		})
	}
}

// cpuTime is the user + system CPU time of process pid (0 = this one) from
// /proc, in nanoseconds (clock ticks of 10 ms: meaningful over a benchmark
// of a second or more).
func cpuTime(pid int) time.Duration {
	path := "/proc/self/stat"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): utime and stime
	// are fields 14 and 15 of the line, 12 and 13 after ") ".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
