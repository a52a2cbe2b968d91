package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	dsconfig "github.com/diverse-select/diverse-select/config"
)

// The CI quality check (make eval-check, run by .ci/run after make test)
// runs the default strategy and the baselines on the evaluation sets and
// fails when a figure of the default falls below the floor stored in
// thresholds.json: its value on every target metric, and its margin over
// what the target requires (so a change that narrows the lead over the
// baselines fails too, even where the target itself is not met), on every
// encoder; and it fails when the default selects any near-copy pair.

// thresholdFile is the stored floors; see the Comment field of the file.
type thresholdFile struct {
	Comment  string `json:"comment"`
	Strategy string `json:"strategy"`
	// Tolerance in points below a stored value that still passes: one
	// HotpotQA question is 0.33 points, and a floating-point tie flipping
	// one instance must not fail CI while any real regression does.
	TolerancePoints float64     `json:"tolerancePoints"`
	Floors          []threshold `json:"floors"`
}

type threshold struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"` // in points (percent)
}

// checkFigures are the figures the check guards, in points: the default's
// value on every target and its margin over the target's requirement.
func checkFigures(r *results, def string) []threshold {
	var out []threshold
	seen := map[string]bool{}
	for _, t := range r.targets(def, nil) {
		// A ceiling's value is not a floor; its margin (how far under the
		// ceiling, in tokens) is.
		if name := "value: " + t.Name; !seen[name] && !t.Lower { // two targets may share a metric
			seen[name] = true
			out = append(out, threshold{Name: name, Value: 100 * t.Value})
		}
		out = append(out, threshold{Name: fmt.Sprintf("margin: %s (%s)", t.Name, t.Rule), Value: t.scale() * t.Margin()})
	}
	return out
}

// checkConfigs are the configs the targets need: the default, the baselines,
// facility location and the MMR sweep.
func checkConfigs(def string) []config {
	var out []config
	for _, c := range configs(def) {
		if c.Label == def || c.Sweep || c.Label == "topk" || c.Label == "relcost" || c.Label == "facility" {
			out = append(out, c)
		}
	}
	return out
}

func runCheck(ctx context.Context, o options, w io.Writer, path string, update bool) error {
	t0 := time.Now()
	def := dsconfig.DefaultStrategy
	var got []threshold
	var copies []string
	for _, enc := range o.encoders {
		_, suites, err := loadSuites(o, enc)
		if err != nil {
			return err
		}
		r, err := runAll(ctx, suites, checkConfigs(def))
		if err != nil {
			return err
		}
		cards, err := cardsFigures(ctx, o, enc)
		if err != nil {
			return err
		}
		for _, f := range append(checkFigures(r, def), cards...) {
			got = append(got, threshold{Name: enc + ": " + f.Name, Value: f.Value})
		}
		for _, s := range suites {
			if n := r.out[s.Name][def].nearCopies(); n > 0 {
				copies = append(copies, fmt.Sprintf("%s: %s: the default selected %d near-copy pairs (want none)", enc, s.Name, n))
			} else {
				fmt.Fprintf(w, "ok    %-75s %7d\n", enc+": near-copy pairs selected on "+s.Name, 0)
			}
		}
	}
	if update {
		f := thresholdFile{
			Comment: "Floors of the CI quality check (make eval-check). Each value is what the default strategy reached, " +
				"in points (the other-question token margins in tokens), on the full evaluation sets (HotpotQA dev300, MuSiQue train100, " +
				"2WikiMultihopQA train500, their mixed pools, Perspectrum train+dev, PIR four tasks) with each " +
				"encoder (glove: the embedder's glove mode; use-lite: the stored USE-Lite vectors; minilm: all-MiniLM-L6-v2, the embedder's neural mode), written by `make eval-check-update` on " + time.Now().UTC().Format("2006-01-02") +
				". Regenerate only for a deliberate change and say why in the commit; docs/quality.md has the full tables.",
			Strategy: def, TolerancePoints: 0.5, Floors: got,
		}
		for i := range f.Floors {
			f.Floors[i].Value = math.Floor(f.Floors[i].Value*100) / 100
		}
		raw, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "eval-check: wrote %d floors to %s\n", len(f.Floors), path)
		return os.WriteFile(path, append(raw, '\n'), 0o644)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("quality check: %w", err)
	}
	var f thresholdFile
	if err := json.Unmarshal(raw, &f); err != nil {
		return fmt.Errorf("quality check: %s: %w", path, err)
	}
	if f.Strategy != def {
		return fmt.Errorf("quality check: %s holds floors for strategy %q but the default is %q: "+
			"run make eval-check-update and commit the new floors with the reason", path, f.Strategy, def)
	}
	byName := map[string]float64{}
	for _, g := range got {
		byName[g.Name] = g.Value
	}
	fails := copies
	for _, fl := range f.Floors {
		v, ok := byName[fl.Name]
		switch {
		case !ok:
			fails = append(fails, fmt.Sprintf("%s: no longer measured (floor %.2f)", fl.Name, fl.Value))
		case v < fl.Value-f.TolerancePoints:
			fails = append(fails, fmt.Sprintf("%s = %.2f, below the floor %.2f (tolerance %.1f)", fl.Name, v, fl.Value, f.TolerancePoints))
		default:
			fmt.Fprintf(w, "ok    %-75s %7.2f  floor %7.2f\n", fl.Name, v, fl.Value)
		}
	}
	fmt.Fprintf(w, "eval-check: %d figures of %s checked in %s\n", len(f.Floors), def, time.Since(t0).Round(time.Millisecond))
	if len(fails) > 0 {
		return fmt.Errorf("quality regression of the default strategy %q (floors in %s):\n  %s", def, path, strings.Join(fails, "\n  "))
	}
	return nil
}
