// Package docblock writes measured figures into the generated blocks of the
// project's documents - the text between <!-- BEGIN name --> and
// <!-- END name --> - and names the machine they were measured on.
package docblock

import (
	"fmt"
	"os"
	"runtime"
	"strings"
)

// Splice replaces the text between the markers of block name in file by body.
func Splice(file, name, body string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s := string(data)
	begin, end := "<!-- BEGIN "+name+" -->", "<!-- END "+name+" -->"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s ... %s markers", file, begin, end)
	}
	return os.WriteFile(file, []byte(s[:i+len(begin)]+"\n"+body+s[j:]), 0o644)
}

// CPUModel is the processor's name from /proc/cpuinfo, or the architecture.
func CPUModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "model name") {
			if _, v, ok := strings.Cut(line, ":"); ok {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}
