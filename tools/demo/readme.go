package main

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// reTopkCopies reads the near-copies of the top-k column's summary line.
var reTopkCopies = regexp.MustCompile(`= \d+ chunks, \d+ tokens, \d+/\d+ facets, (\d+) near-copies`)

// readmeComparison picks the comparison whose top-k holds the most
// near-copies: the one that shows what the selection is for.
func readmeComparison(shown []string) string {
	best, most := "", -1
	for _, s := range shown {
		n := -1
		if m := reTopkCopies.FindStringSubmatch(s); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		if n > most {
			best, most = s, n
		}
	}
	return best
}

// The README's demo block: the comparison of the demo query whose top-k
// holds the most near-copies (the first such query on a tie), as `make run`
// prints it, between these markers (make demo-readme writes it).
const (
	demoBegin = "<!-- BEGIN demo -->"
	demoEnd   = "<!-- END demo -->"
)

// spliceDemo replaces the demo block of file by the comparison shown.
func spliceDemo(file, shown string) error {
	return spliceFile(file, func(doc string) (string, error) { return spliceDemoText(doc, shown) })
}

// spliceFile rewrites file with splice.
func spliceFile(file string, splice func(doc string) (string, error)) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	out, err := splice(string(data))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return os.WriteFile(file, []byte(out), 0o644)
}

func spliceDemoText(doc, shown string) (string, error) {
	lines := strings.Split(strings.Trim(shown, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return spliceBlock(doc, demoBegin, demoEnd, "```\n"+strings.Join(lines, "\n")+"\n```\n")
}

// spliceBlock puts body between the lines begin and end of doc, in place of what was there.
func spliceBlock(doc, begin, end, body string) (string, error) {
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %s ... %s block", begin, end)
	}
	return doc[:i] + begin + "\n" + body + doc[j:], nil
}
