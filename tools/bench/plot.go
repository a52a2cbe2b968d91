package main

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plotLatency writes a PNG of the median latency against the pool size for
// the summary's series on both protocols.
func plotLatency(file string, tables []table) error {
	p := plot.New()
	p.Title.Text = "End to end: median latency against the candidate pool (make bench-server)"
	p.X.Label.Text = "pool (candidates)"
	p.Y.Label.Text = "median latency (ms)"
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	type line struct{ series, protocol string }
	lines := []line{{seriesPlainTop, "gRPC"}, {seriesPlainTop, "GraphQL"}, {seriesPlainPool, "gRPC"}, {seriesPlainPool, "GraphQL"},
		{seriesMMR, "gRPC"}, {seriesDefault, "gRPC"}, {seriesDefault, "GraphQL"}, {seriesGateway, "gRPC"}}
	colors := []color.RGBA{{150, 150, 150, 255}, {90, 90, 90, 255}, {120, 170, 220, 255}, {40, 90, 160, 255},
		{220, 120, 30, 255}, {30, 150, 60, 255}, {10, 90, 30, 255}, {170, 40, 160, 255}}
	var ticks []plot.Tick
	for _, t := range tables {
		ticks = append(ticks, plot.Tick{Value: float64(t.pool), Label: fmt.Sprint(t.pool)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for i, l := range lines {
		var xy plotter.XYs
		for _, t := range tables {
			if m := seriesMedian(t, l.series, l.protocol); m > 0 {
				xy = append(xy, plotter.XY{X: float64(t.pool), Y: float64(m) / 1e6})
			}
		}
		if len(xy) == 0 {
			continue
		}
		ln, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		ln.Color, pts.Color = colors[i], colors[i]
		ln.Width = vg.Points(1.5)
		if l.protocol == "GraphQL" {
			ln.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			pts.Shape = draw.BoxGlyph{}
		}
		p.Add(ln, pts)
		p.Legend.Add(l.series+" ("+l.protocol+")", ln, pts)
	}
	return p.Save(9*vg.Inch, 5.5*vg.Inch, file)
}
