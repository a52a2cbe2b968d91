package config

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// InflightAuto is DIVERSE_SELECT_MAX_INFLIGHT_MB's default: derive the bound
// from the machine's memory (DefaultInflightMB).
const InflightAuto = "auto"

// Inflight default: 1/InflightShare of the memory limit, at least
// MinInflightMB. Weaviate keeps its vector indexes and caches in the same
// process, and Go's collector lets transient memory grow to about twice its
// live size before it collects (GOGC=100): a thirty-second of live selection
// memory shows as up to a sixteenth in the resident size. Running more
// selections at once than that admits adds no throughput on the cores such
// a machine has. MinInflightMB fits one default-strategy selection at the
// default candidate cap (2000 candidates of 768 dimensions: 30.5 MiB of
// matrices plus 5.9 MiB of packed vectors).
const (
	InflightShare = 32
	MinInflightMB = 64
	// fallbackMemory is assumed when no limit can be read (not Linux).
	fallbackMemory = 8 << 30
)

// DefaultInflightMB is the default in-flight bound for a process whose memory
// limit is limitBytes: limitBytes/InflightShare in MiB, at least MinInflightMB.
func DefaultInflightMB(limitBytes int64) int {
	return max(MinInflightMB, int(limitBytes/InflightShare>>20))
}

// MemoryLimit is the memory this process may use: the cgroup's limit when one
// is set (cgroup v2 memory.max, or v1 memory.limit_in_bytes), else the
// machine's total memory (/proc/meminfo), whichever is smaller; source says
// which was read. root is the file-system root ("/" in production).
func MemoryLimit(root string) (bytes int64, source string) {
	total, ok := memTotal(filepath.Join(root, "proc/meminfo"))
	if !ok {
		total = fallbackMemory
		source = "assumed (no /proc/meminfo)"
	} else {
		source = "total memory"
	}
	for _, f := range []string{"sys/fs/cgroup/memory.max", "sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		// "max" (v2) or a huge number (v1) means no limit.
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err == nil && n > 0 && n < total {
			return n, "cgroup limit"
		}
		break
	}
	return total, source
}

// memTotal reads MemTotal (kB) from a meminfo file.
func memTotal(path string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err == nil && kb > 0
		}
	}
	return 0, false
}
