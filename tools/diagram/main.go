// Command diagram draws docs/query-path.svg (make diagrams): where the
// selection sits in a query's path, the picture the README shows. The boxes
// inside the group are the selection stage's order (engine/stage.go and the
// explorer's selection-stage glue: the pool's search runs its rerankers and
// other hooks, the selection follows, generate runs on the selected objects
// only); TestCommittedDiagram fails when the committed file is not this
// command's output.
package main

import (
	"flag"
	"fmt"
	"html"
	"os"
	"strings"
)

// stage is one box of the picture.
type stage struct {
	title, lines string // lines: "\n"-separated
	inStage      bool   // run by the selection stage (drawn in its group)
	highlight    bool
}

// stages returns the boxes in the order a query runs them.
func stages() []stage {
	return []stage{
		{title: "search", lines: "nearText, nearVector,\nnearObject, hybrid,\nbm25 or Get: the pool\nof candidates"},
		{title: "thresholds", lines: "distance / certainty,\nautocut, boost\n(Weaviate's own)"},
		{title: "rerankers", lines: "rerank and other\nhooks score the pool\n(when the query asks)", inStage: true},
		{title: "diverse selection", lines: "diverseSelect, or\nreranker-diverse-select:\nthe best set within\nthe token budget", inStage: true, highlight: true},
		{title: "generate", lines: "the LLM gets the\nselected objects only,\nin the selection's order", inStage: true},
		{title: "response", lines: "GraphQL or gRPC:\nthe selected objects\n(+ explanations)"},
	}
}

const (
	boxW, boxH, gap = 150, 112, 26
	top             = 40
	margin          = 12
)

// svg renders the stages left to right.
func svg(st []stage) string {
	width := margin*2 + len(st)*boxW + (len(st)-1)*gap
	height := top + boxH + margin + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Helvetica, Arial, sans-serif">`+"\n",
		width, height, width, height)
	b.WriteString(`<title>Where diverse-select sits in a Weaviate query: search, thresholds, rerankers, diverse selection, generate, response</title>` + "\n")
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>` + "\n")
	b.WriteString(`<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>` + "\n")
	// The selection stage's group.
	first, last := -1, -1
	for i, s := range st {
		if s.inStage {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first >= 0 {
		x0 := margin + first*(boxW+gap) - 8
		x1 := margin + last*(boxW+gap) + boxW + 8
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="8" fill="#f4f4f4" stroke="#bbbbbb" stroke-dasharray="4 3"/>`+"\n",
			x0, top-24, x1-x0, boxH+32)
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="12" fill="#555">the selection stage in Weaviate's explorer: the pool's hooks, the selection, generate on the selection only</text>`+"\n",
			x0+8, top-9)
	}
	for i, s := range st {
		x := margin + i*(boxW+gap)
		fill, stroke, titleColor := "#ffffff", "#555555", "#222222"
		if s.highlight {
			fill, stroke, titleColor = "#fdecea", "#c62828", "#c62828"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="6" fill="%s" stroke="%s" stroke-width="%s"/>`+"\n",
			x, top, boxW, boxH, fill, stroke, map[bool]string{true: "2.5", false: "1.2"}[s.highlight])
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold" text-anchor="middle" fill="%s">%s</text>`+"\n",
			x+boxW/2, top+24, titleColor, html.EscapeString(s.title))
		for j, line := range strings.Split(s.lines, "\n") {
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11.5" text-anchor="middle" fill="#333">%s</text>`+"\n",
				x+boxW/2, top+46+j*15, html.EscapeString(line))
		}
		if i+1 < len(st) {
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"/>`+"\n",
				x+boxW+2, top+boxH/2, x+boxW+gap-2, top+boxH/2)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func main() {
	out := flag.String("out", "docs/query-path.svg", "the SVG file to write")
	flag.Parse()
	if err := os.WriteFile(*out, []byte(svg(stages())), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "diagram:", err)
		os.Exit(1)
	}
}
