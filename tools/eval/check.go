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
// Beside the targets it holds the default's figures on the demo suite
// (make run's corpus: facets covered as a floor; near-copies, paraphrase
// pairs, off-topic picks and tokens as ceilings, summed over the queries)
// and on the multi-hop sets' question types (comparison and other
// questions, all-gold and answer-in-context), issue 42 point 8.

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

// ceilingPrefix starts the name of a figure where less is better: the
// check fails when the figure rises above the stored value.
const ceilingPrefix = "ceiling: "

// isCeiling reports whether a stored figure is a ceiling.
func isCeiling(name string) bool {
	_, rest, _ := strings.Cut(name, ": ") // the encoder
	return strings.HasPrefix(rest, ceilingPrefix)
}

// demoFigures are the default's figures on the demo suite, summed over
// its queries per budget: the facets covered (a floor), the near-copies,
// paraphrase pairs, off-topic picks and off-topic tokens (ceilings).
func demoFigures(r *results, def string) []threshold {
	s := r.suite("Demo")
	if s == nil {
		return nil
	}
	var out []threshold
	o := r.out[s.Name][def]
	for ci, c := range s.Constraints {
		for mi, m := range s.Metrics {
			sum := 0.0
			for ii := range s.Insts {
				sum += o.vals[ci][mi][ii]
			}
			name := fmt.Sprintf("Demo %s %s (sum over %d queries)", m, c, len(s.Insts))
			if lowerIsBetter(m) {
				out = append(out, threshold{Name: ceilingPrefix + name, Value: sum})
			} else {
				out = append(out, threshold{Name: "value: " + name, Value: sum})
			}
		}
	}
	return out
}

// typeFigures are the default's all-gold and answer-in-context on
// HotpotQA's and 2Wiki's own pools split by question type (as the tune
// mode's printTypes), in points.
func typeFigures(r *results, def string) []threshold {
	var out []threshold
	for _, name := range []string{"HotpotQA", "2Wiki"} {
		s := r.suite(name)
		if s == nil {
			continue
		}
		for _, typ := range questionTypes {
			keep := func(in *instance) bool { return in.Comparison == typ.cmp }
			for _, m := range []string{allGoldMetric(name), mAnswer} {
				for _, c := range s.Constraints {
					out = append(out, threshold{Name: fmt.Sprintf("value: %s %s questions %s %s", name, typ.name, m, c),
						Value: 100 * r.value(name, def, m, c, keep)})
				}
			}
		}
	}
	return out
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

// stored is a figure as the thresholds file keeps it: a floor rounded
// down, a ceiling up, to two decimals.
func stored(t threshold) float64 {
	if isCeiling(t.Name) {
		return math.Ceil(t.Value*100) / 100
	}
	return math.Floor(t.Value*100) / 100
}

// runCheck checks the figures against the floors in path; update rewrites
// them all from this run, addNew adds those of the figures no floor holds
// yet and keeps the others.
func runCheck(ctx context.Context, o options, w io.Writer, path string, update, addNew bool) error {
	t0 := time.Now()
	def := dsconfig.DefaultStrategy
	var got []threshold
	var copies []string
	for _, enc := range o.encoders {
		e, suites, err := loadSuites(o, enc)
		if err != nil {
			return err
		}
		if enc != encUSE { // the stored USE-Lite vectors hold no demo text
			suites = append(suites, demoSuite(e))
			if e.err != nil {
				return e.err
			}
		}
		r, err := runAll(ctx, suites, checkConfigs(def))
		if err != nil {
			return err
		}
		cards, err := cardsFigures(ctx, o, enc)
		if err != nil {
			return err
		}
		figures := append(checkFigures(r, def), cards...)
		figures = append(figures, demoFigures(r, def)...)
		figures = append(figures, typeFigures(r, def)...)
		for _, f := range figures {
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
			f.Floors[i].Value = stored(f.Floors[i])
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
	have := map[string]bool{}
	for _, fl := range f.Floors {
		have[fl.Name] = true
		v, ok := byName[fl.Name]
		switch {
		case !ok:
			fails = append(fails, fmt.Sprintf("%s: no longer measured (floor %.2f)", fl.Name, fl.Value))
		case isCeiling(fl.Name) && v > fl.Value+f.TolerancePoints:
			fails = append(fails, fmt.Sprintf("%s = %.2f, above the ceiling %.2f (tolerance %.1f)", fl.Name, v, fl.Value, f.TolerancePoints))
		case isCeiling(fl.Name):
			fmt.Fprintf(w, "ok    %-75s %7.2f  ceiling %7.2f\n", fl.Name, v, fl.Value)
		case v < fl.Value-f.TolerancePoints:
			fails = append(fails, fmt.Sprintf("%s = %.2f, below the floor %.2f (tolerance %.1f)", fl.Name, v, fl.Value, f.TolerancePoints))
		default:
			fmt.Fprintf(w, "ok    %-75s %7.2f  floor %7.2f\n", fl.Name, v, fl.Value)
		}
	}
	// A figure measured without a stored floor: listed, and with
	// addNew stored (the existing floors are left as they are).
	var added []threshold
	for _, g := range got {
		if !have[g.Name] {
			fmt.Fprintf(w, "new   %-75s %7.2f\n", g.Name, g.Value)
			added = append(added, threshold{Name: g.Name, Value: stored(g)})
		}
	}
	if addNew && len(added) > 0 {
		f.Floors = append(f.Floors, added...)
		raw, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(w, "eval-check: added %d floors to %s, the others unchanged\n", len(added), path)
	}
	fmt.Fprintf(w, "eval-check: %d figures of %s checked in %s\n", len(f.Floors), def, time.Since(t0).Round(time.Millisecond))
	if len(fails) > 0 {
		return fmt.Errorf("quality regression of the default strategy %q (floors in %s):\n  %s", def, path, strings.Join(fails, "\n  "))
	}
	return nil
}
