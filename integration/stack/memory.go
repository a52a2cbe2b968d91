package stack

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ServerMemory is the Weaviate process's resident memory, from
// /proc/PID/status (Linux): RSS now and its peak since the process started.
type ServerMemory struct{ RSS, PeakRSS uint64 }

// Memory reads the Weaviate process's resident memory (Linux only).
func (s *Stack) Memory() (ServerMemory, error) {
	if s.weaviate == nil || s.weaviate.cmd.Process == nil {
		return ServerMemory{}, fmt.Errorf("weaviate is not running")
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.weaviate.cmd.Process.Pid))
	if err != nil {
		return ServerMemory{}, err
	}
	defer f.Close()
	var m ServerMemory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *uint64
		switch name {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.PeakRSS
		default:
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return m, fmt.Errorf("/proc status %s: %w", name, err)
		}
		*dst = kb << 10
	}
	if m.RSS == 0 {
		return m, fmt.Errorf("/proc status without VmRSS")
	}
	return m, sc.Err()
}
