package main

import (
	"fmt"
	"os"
	"strings"
)

// The README's demo block: the first demo query's comparison, as `make run`
// prints it, between these markers (make demo-readme writes it).
const (
	demoBegin = "<!-- BEGIN demo -->"
	demoEnd   = "<!-- END demo -->"
)

// spliceDemo replaces the demo block of file by the comparison shown.
func spliceDemo(file, shown string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := spliceDemoText(string(data), shown)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(file, []byte(out), 0o644)
}

func spliceDemoText(doc, shown string) (string, error) {
	i, j := strings.Index(doc, demoBegin), strings.Index(doc, demoEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %s ... %s block", demoBegin, demoEnd)
	}
	block := demoBegin + "\n```\n" + strings.Trim(shown, "\n") + "\n```\n"
	return doc[:i] + block + doc[j:], nil
}
