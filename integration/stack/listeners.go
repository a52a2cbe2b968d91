package stack

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Listener is a socket a process listens on: a listening TCP socket or an
// unconnected UDP one.
type Listener struct {
	Proto string // tcp or udp
	Addr  net.IP
	Port  int
}

func (l Listener) String() string {
	return l.Proto + " " + net.JoinHostPort(l.Addr.String(), strconv.Itoa(l.Port))
}

// Loopback reports whether only this host can reach the listener.
func (l Listener) Loopback() bool { return l.Addr.IsLoopback() }

// Listeners returns the sockets process pid listens on, read from /proc
// (Linux): the socket inodes among its open files, matched with the kernel's
// socket tables.
func Listeners(pid int) ([]Listener, error) {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, fmt.Errorf("listeners of process %d: %w", pid, err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	var out []Listener
	for _, table := range []struct{ file, proto, state string }{
		{"tcp", "tcp", "0A"}, {"tcp6", "tcp", "0A"}, // LISTEN
		{"udp", "udp", "07"}, {"udp6", "udp", "07"}, // unconnected
	} {
		ls, err := readSocketTable(fmt.Sprintf("/proc/%d/net/%s", pid, table.file), table.proto, table.state, inodes)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// readSocketTable reads one of the kernel's socket tables: a header line,
// then "sl local_address rem_address st ... inode ..." per socket, the
// address as hex (IPv4 as one little-endian word, IPv6 as four).
func readSocketTable(path, proto, state string, inodes map[string]bool) ([]Listener, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil // no IPv6 on this host
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Listener
	lines := bufio.NewScanner(f)
	lines.Scan() // the header
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) < 10 || fields[3] != state || !inodes[fields[9]] {
			continue
		}
		hostHex, portHex, _ := strings.Cut(fields[1], ":")
		raw, err := hex.DecodeString(hostHex)
		if err != nil {
			return nil, fmt.Errorf("%s: address %q: %w", path, fields[1], err)
		}
		for i := 0; i+4 <= len(raw); i += 4 { // each 32-bit word is in host (little-endian) order
			raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
		}
		port, err := strconv.ParseInt(portHex, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("%s: port %q: %w", path, portHex, err)
		}
		out = append(out, Listener{Proto: proto, Addr: net.IP(raw), Port: int(port)})
	}
	return out, lines.Err()
}
