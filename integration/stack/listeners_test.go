package stack

import (
	"net"
	"os"
	"slices"
	"testing"
)

// TestListeners: this process's own loopback and all-interfaces listeners
// are found with their addresses and ports.
func TestListeners(t *testing.T) {
	local, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	all, err := net.Listen("tcp", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	got, err := Listeners(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	find := func(proto string, port int) (Listener, bool) {
		i := slices.IndexFunc(got, func(l Listener) bool { return l.Proto == proto && l.Port == port })
		if i < 0 {
			return Listener{}, false
		}
		return got[i], true
	}
	for _, tc := range []struct {
		proto    string
		port     int
		loopback bool
	}{
		{"tcp", local.Addr().(*net.TCPAddr).Port, true},
		{"tcp", all.Addr().(*net.TCPAddr).Port, false},
		{"udp", udp.LocalAddr().(*net.UDPAddr).Port, true},
	} {
		l, ok := find(tc.proto, tc.port)
		if !ok {
			t.Errorf("%s port %d not among %v", tc.proto, tc.port, got)
			continue
		}
		if l.Loopback() != tc.loopback {
			t.Errorf("%s: loopback %v, want %v", l, l.Loopback(), tc.loopback)
		}
	}
}
