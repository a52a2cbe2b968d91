package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	const gib = int64(1) << 30
	meminfo := "MemTotal:       25165824 kB\nMemFree:        1000 kB\n" // 24 GiB
	for _, tc := range []struct {
		name   string
		files  map[string]string
		want   int64
		source string
	}{
		{"no cgroup", map[string]string{"proc/meminfo": meminfo}, 24 * gib, "total memory"},
		{"cgroup v2 limit", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "4294967296\n"}, 4 * gib, "cgroup limit"},
		{"cgroup v2 unlimited", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "max\n"}, 24 * gib, "total memory"},
		{"cgroup v1 limit", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648"}, 2 * gib, "cgroup limit"},
		{"cgroup v1 unlimited", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"}, 24 * gib, "total memory"},
		{"cgroup above total", map[string]string{"proc/meminfo": meminfo, "sys/fs/cgroup/memory.max": "68719476736"}, 24 * gib, "total memory"},
		{"nothing readable", nil, 8 * gib, "assumed (no /proc/meminfo)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range tc.files {
				path := filepath.Join(root, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, source := MemoryLimit(root)
			if got != tc.want || source != tc.source {
				t.Errorf("MemoryLimit = %d (%s), want %d (%s)", got, source, tc.want, tc.source)
			}
		})
	}
}

func TestDefaultInflightMB(t *testing.T) {
	for _, tc := range []struct {
		limit int64
		want  int
	}{
		{24 << 30, 768},
		{4 << 30, 128},
		{1 << 30, MinInflightMB}, // a thirty-second is 32 MiB: the floor
		{0, MinInflightMB},
	} {
		if got := DefaultInflightMB(tc.limit); got != tc.want {
			t.Errorf("DefaultInflightMB(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

func TestFromEnvInflight(t *testing.T) {
	limit, _ := MemoryLimit("/")
	for _, tc := range []struct {
		value string
		want  int // -1: an error naming the variable
	}{
		{"", DefaultInflightMB(limit)},
		{"auto", DefaultInflightMB(limit)},
		{"0", 0},
		{" 512 ", 512},
		{"-1", -1},
		{"1.5", -1},
		{"lots", -1},
		{"AUTO", -1},
	} {
		m, err := FromEnv(func(k string) string {
			if k == "DIVERSE_SELECT_MAX_INFLIGHT_MB" {
				return tc.value
			}
			return ""
		})
		if tc.want < 0 {
			if err == nil || !strings.Contains(err.Error(), "DIVERSE_SELECT_MAX_INFLIGHT_MB") || !strings.Contains(err.Error(), "auto") {
				t.Errorf("%q: error %v, want one naming the variable and its allowed values", tc.value, err)
			}
			continue
		}
		if err != nil || m.MaxInflightMB != tc.want || m.MaxInflightBytes() != int64(tc.want)<<20 {
			t.Errorf("%q: MaxInflightMB %d (%v), want %d", tc.value, m.MaxInflightMB, err, tc.want)
		}
	}
}
