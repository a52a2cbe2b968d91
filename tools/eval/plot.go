package main

import (
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// budgetPlot draws HotpotQA both-gold rate and gold recall against the
// token budget for the default, the baselines and a few other strategies,
// side by side, and writes a PNG.
func budgetPlot(r *results, def, path string) error {
	hp := r.suite("HotpotQA")
	type line struct {
		label string
		y     func(ci, mi int) float64
		col   color.Color
		dash  bool
		width vg.Length
	}
	val := func(label string) func(ci, mi int) float64 {
		return func(ci, mi int) float64 { return r.out["HotpotQA"][label].mean(hp, ci, mi, nil) }
	}
	lines := []line{
		{def + " (default)", val(def), color.RGBA{R: 200, G: 30, B: 30, A: 255}, false, vg.Points(2.5)},
		{"relcost", val("relcost"), color.RGBA{R: 30, G: 90, B: 200, A: 255}, false, vg.Points(1.5)},
		{"mmr, best lambda per budget", func(ci, mi int) float64 {
			_, v := bestSweep(hp, r.out["HotpotQA"], r.cfgs, ci, mi, nil)
			return v
		}, color.RGBA{R: 20, G: 150, B: 70, A: 255}, false, vg.Points(1.5)},
		{"topk", val("topk"), color.RGBA{A: 255}, false, vg.Points(1.5)},
		{"facility", val("facility"), color.RGBA{R: 150, G: 90, B: 200, A: 255}, true, vg.Points(1.2)},
		{"adagres (paper defaults)", val("adagres"), color.RGBA{R: 230, G: 140, B: 20, A: 255}, true, vg.Points(1.2)},
	}
	panel := func(mi int, title string, legend bool) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = title
		p.X.Label.Text = "token budget (cl100k_base)"
		p.Y.Label.Text = "% of questions"
		if mi == 1 {
			p.Y.Label.Text = "% of gold paragraphs"
		}
		p.Y.Min, p.Y.Max = 0, 100
		p.X.Min, p.X.Max = 250, 950
		p.Add(plotter.NewGrid())
		for _, l := range lines {
			pts := make(plotter.XYs, len(hp.Constraints))
			for ci, c := range hp.Constraints {
				pts[ci] = plotter.XY{X: float64(c.Budget), Y: 100 * l.y(ci, mi)}
			}
			ln, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, err
			}
			ln.Color, ln.Width = l.col, l.width
			if l.dash {
				ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			sc.Color, sc.Shape = l.col, draw.CircleGlyph{}
			p.Add(ln, sc)
			if legend {
				p.Legend.Add(l.label, ln, sc)
			}
		}
		// Bottom right of the recall panel is empty: every line is above 45% there.
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.XOffs, p.Legend.YOffs = -vg.Points(4), vg.Points(4)
		p.Legend.Padding = vg.Points(2)
		ticks := make([]plot.Tick, len(hp.Constraints))
		for ci, c := range hp.Constraints {
			ticks[ci] = plot.Tick{Value: float64(c.Budget), Label: fmt.Sprint(c.Budget)}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		return p, nil
	}
	both, err := panel(0, "HotpotQA: both supporting paragraphs selected", false)
	if err != nil {
		return err
	}
	rec, err := panel(1, "HotpotQA: gold paragraph recall", true)
	if err != nil {
		return err
	}
	const w, h = 11 * vg.Inch, 4.5 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Points(12), PadTop: vg.Points(6), PadBottom: vg.Points(6),
		PadLeft: vg.Points(6), PadRight: vg.Points(6)}
	canvases := plot.Align([][]*plot.Plot{{both, rec}}, tiles, dc)
	both.Draw(canvases[0][0])
	rec.Draw(canvases[0][1])
	return saveImage(img, path)
}

func saveImage(img *vgimg.Canvas, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
