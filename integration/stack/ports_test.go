package stack

import (
	"fmt"
	"net"
	"testing"
)

// TestFreePortBlock: blocks lie below the ephemeral range, are free, and
// never share a port with one handed out before in this process.
func TestFreePortBlock(t *testing.T) {
	seen := map[int]bool{}
	for i := range 3000 {
		n := 1 + i%5
		first, err := FreePortBlock(n)
		if err != nil {
			t.Fatal(err)
		}
		for p := first; p < first+n; p++ {
			if p < lowestPort || p >= ephemeralLow() {
				t.Fatalf("port %d outside [%d, %d)", p, lowestPort, ephemeralLow())
			}
			if seen[p] {
				t.Fatalf("port %d handed out twice", p)
			}
			seen[p] = true
		}
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("FreePort's %d: %v", port, err)
	}
	l.Close()
}
