package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/diverse-select/diverse-select/cmd/embedder/embed"
	"github.com/diverse-select/diverse-select/internal/vecmath"
	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/tokens"
)

// instance is one selection problem with its gold labels.
type instance struct {
	ID string
	// Half splits HotpotQA for validation: 0 = the first half of the
	// questions (where choices were explored), 1 = the held-out second half.
	Half    int
	Query   string
	Cands   []selectors.Candidate
	Labels  [][]int // per candidate, see metrics.go
	NLabels int
	// AltLabels and NAltLabels are a second labelling (PIR: perspectives
	// whose gold items share a text merged into one), nil when unused.
	AltLabels  [][]int
	NAltLabels int
	// Other marks the candidates of other questions (Perspectrum's
	// distractors, the mixed multi-hop pools' neighbours), nil when the
	// pool is the question's own; the precision metrics read it.
	Other []bool
	// Answers are the gold answer strings whose occurrence in the selected
	// text the answer-in-context metric looks for (nil: not measured).
	Answers []string
	// Comparison marks a multi-hop comparison question (comparisonQuestion).
	Comparison bool
}

// constraint is one column of a table: a token budget or a K.
type constraint struct{ Budget, K int }

func (c constraint) String() string {
	if c.Budget > 0 {
		return "B=" + strconv.Itoa(c.Budget)
	}
	return "K=" + strconv.Itoa(c.K)
}

// suite is one dataset with its constraints and metrics.
type suite struct {
	Name        string
	Insts       []*instance
	Constraints []constraint
	Metrics     []string
	// Score returns the values of Metrics for one selection.
	Score func(in *instance, sel []int, c constraint) []float64
	// Oracle, when set, is the best any selection can score under a
	// constraint (HotpotQA: the gold paragraphs that fit the budget).
	Oracle func(in *instance, c constraint) []float64
	// Engine, when set, builds the similarity engine of an instance from
	// its vectors (default: selectors.NewDenseSimilarities).
	// An error leaves the default, whose problem validation then names
	// the candidate (a vector of another dimension).
	Engine func(vecs [][]float32) (selectors.Similarities, error)
}

// Metric names.
const (
	mBoth     = "both-gold"
	mRecall   = "gold recall"
	mCover    = "cluster coverage"
	mDistract = "distractors"
	mPersp    = "perspectives covered"
	mPerspD   = "distinct-text perspectives covered"
	mAll      = "all-gold"
	mAnswer   = "answer in context"
	mOtherTok = "other-question tokens"
	mAhead    = "other-question pick ahead of own"
)

// lowerIsBetter names the metrics where less is better (the best MMR
// lambda of such a column is the one with the smallest value).
func lowerIsBetter(m string) bool {
	return m == mDistract || m == mOtherTok || m == mAhead || m == mCopies || m == mParaPair || m == mOffPicks
}

// countMetric names the metrics printed as plain numbers, not percentages.
func countMetric(m string) bool {
	return m == mDistract || m == mOtherTok || m == mFacets || m == mCopies || m == mParaPair || m == mOffPicks
}

func hotpotScore(in *instance, sel []int, _ constraint) []float64 {
	return []float64{allHit(sel, in.Labels, in.NLabels), recall(sel, in.Labels, in.NLabels)}
}

// multiHopScore is hotpotScore and the answer in the selected text.
func multiHopScore(in *instance, sel []int, c constraint) []float64 {
	return append(hotpotScore(in, sel, c), answerIn(sel, in))
}

// mixedScore: all gold selected, the answer in the selected text of the
// question's own paragraphs, and the two precision metrics.
func mixedScore(in *instance, sel []int, c constraint) []float64 {
	return []float64{allHit(sel, in.Labels, in.NLabels), answerIn(sel, in), float64(otherTokens(sel, in)), otherAhead(sel, in, c)}
}

func perspScore(in *instance, sel []int, c constraint) []float64 {
	return []float64{coverageAtK(sel, in.Labels, in.NLabels, c.K), float64(distractors(sel, in.Labels)),
		float64(otherTokens(sel, in)), otherAhead(sel, in, c)}
}

func pirScore(in *instance, sel []int, _ constraint) []float64 {
	return []float64{recall(sel, in.Labels, in.NLabels), recall(sel, in.AltLabels, in.NAltLabels)}
}

// hotpotOracle: both-gold is 1 when the gold paragraphs fit the budget
// together; recall is the largest share of them that fits.
func hotpotOracle(in *instance, c constraint) []float64 {
	var gold []int
	for i, l := range in.Labels {
		if len(l) > 0 {
			gold = append(gold, in.Cands[i].Tokens)
		}
	}
	slices.Sort(gold)
	fit, used := 0, 0
	for _, t := range gold {
		if c.Budget > 0 && used+t > c.Budget {
			break
		}
		fit, used = fit+1, used+t
	}
	both := 0.0
	if fit == in.NLabels && fit > 0 {
		both = 1
	}
	return []float64{both, float64(fit) / float64(max(1, in.NLabels)), answerFits(in, c)}
}

// answerFits is the oracle of answer-in-context: 1 when a candidate holding
// an answer fits the budget, NaN when none holds one (as answerIn).
func answerFits(in *instance, c constraint) float64 {
	v := math.NaN()
	for i := range in.Cands {
		if answerOccurs(in.Cands[i].Text, in.Answers) {
			v = 0
			if c.Budget <= 0 || in.Cands[i].Tokens <= c.Budget {
				return 1
			}
		}
	}
	return v
}

// env embeds and counts: the embedder's glove mode and cl100k_base, shared
// by every suite; vectors are cached by text.
type env struct {
	enc     string
	emb     *embed.GloVe
	stored  *storedVectors // use-lite
	cache   *vectorCache   // minilm
	counter tokens.Counter
	mu      sync.Mutex
	vecs    map[string][]float32
	toks    map[string]int
	err     error // the first text without a stored vector
}

func newEnv(o options, enc string) (*env, error) {
	c, err := tokens.New(tokens.CL100K)
	if err != nil {
		return nil, err
	}
	e := &env{enc: enc, counter: c, vecs: map[string][]float32{}, toks: map[string]int{}}
	switch enc {
	case encGloVe:
		e.emb, err = embed.LoadGloVe(o.gloveDir)
	case encUSE:
		e.stored, err = loadStoredVectors(filepath.Join(o.dataDir, "use-lite-512"), useLiteDim)
	case encMiniLM:
		e.cache, err = openVectorCache(o.vectorCache, o.python)
	default:
		err = fmt.Errorf("unknown encoder %q", enc)
	}
	if err != nil {
		return nil, fmt.Errorf("encoder %s: %w", enc, err)
	}
	return e, nil
}

// embed returns the vector of one text under the env's encoder.
func (e *env) embed(text string) []float32 {
	if e.emb != nil {
		return e.emb.Embed(text)
	}
	var v []float32
	var err error
	if e.cache != nil {
		v, err = e.cache.vector(text)
	} else {
		v, err = e.stored.vector(text)
	}
	if err != nil {
		e.mu.Lock()
		if e.err == nil {
			e.err = err
		}
		e.mu.Unlock()
	}
	return v
}

// embedAll embeds texts in parallel and caches them.
func (e *env) embedAll(texts []string) {
	var todo []string
	e.mu.Lock()
	seen := map[string]bool{}
	for _, t := range texts {
		if _, ok := e.vecs[t]; !ok && !seen[t] {
			seen[t] = true
			todo = append(todo, t)
		}
	}
	e.mu.Unlock()
	if len(todo) == 0 {
		return
	}
	if e.cache != nil {
		// One batch for the neural worker; the lookups below then read the cache.
		if err := e.cache.ensure(todo); err != nil {
			e.mu.Lock()
			if e.err == nil {
				e.err = err
			}
			e.mu.Unlock()
		}
	}
	out := make([][]float32, len(todo))
	toks := make([]int, len(todo))
	parallel(len(todo), func(i int) { out[i], toks[i] = e.embed(todo[i]), e.counter.Count(todo[i]) })
	e.mu.Lock()
	for i, t := range todo {
		e.vecs[t], e.toks[t] = out[i], toks[i]
	}
	e.mu.Unlock()
}

// vec and count read the cache, filling it for a text embedAll did not see.
func (e *env) vec(text string) []float32 {
	e.embedAll([]string{text})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.vecs[text]
}

func (e *env) count(text string) int {
	e.embedAll([]string{text})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.toks[text]
}

// candidate builds a candidate whose relevance is the cosine to the query
// vector, as the module computes it for nearText under cosine (1 - distance).
func (e *env) candidate(id, text string, q []float32) selectors.Candidate {
	v := e.vec(text)
	return selectors.Candidate{ID: id, Text: text, Vector: v, Tokens: e.count(text), Relevance: vecmath.Cosine(q, v)}
}

// finish puts the candidates in retrieval order (decreasing relevance, ties
// by input order), keeping the labels (and the second labelling) aligned.
func finish(in *instance) *instance {
	idx := make([]int, len(in.Cands))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(in.Cands[b].Relevance, in.Cands[a].Relevance) })
	c := make([]selectors.Candidate, len(idx))
	l := make([][]int, len(idx))
	var a [][]int
	if in.AltLabels != nil {
		a = make([][]int, len(idx))
	}
	var o []bool
	if in.Other != nil {
		o = make([]bool, len(idx))
	}
	for k, i := range idx {
		c[k], l[k] = in.Cands[i], in.Labels[i]
		if a != nil {
			a[k] = in.AltLabels[i]
		}
		if o != nil {
			o[k] = in.Other[i]
		}
	}
	in.Cands, in.Labels, in.AltLabels, in.Other = c, l, a, o
	return in
}

// hotpotSuite: per question, its paragraphs; gold = the two supporting ones.
func hotpotSuite(e *env, qs []hotpotQuestion, budgets []int) *suite {
	return multiHopSuite(e, "HotpotQA", qs, budgets)
}

// allGoldMetric is the name of the all-gold metric of a multi-hop suite:
// "both-gold" for HotpotQA, whose questions all have two supporting
// paragraphs, "all-gold" for the sets whose questions need two to four.
func allGoldMetric(name string) string {
	if name == "HotpotQA" {
		return mBoth
	}
	return mAll
}

// multiHopSuite: per question, its paragraphs; gold = every supporting one
// (all are needed), and the answer strings for answer-in-context.
func multiHopSuite(e *env, name string, qs []hotpotQuestion, budgets []int) *suite {
	embedQuestions(e, qs)
	s := &suite{Name: name, Metrics: []string{allGoldMetric(name), mRecall, mAnswer}, Score: multiHopScore, Oracle: hotpotOracle}
	for _, b := range budgets {
		s.Constraints = append(s.Constraints, constraint{Budget: b})
	}
	answers := textAnswers(qs)
	for qi, q := range qs {
		qv := e.vec(q.Question)
		in := &instance{ID: q.ID, Query: q.Question, Half: 2 * qi / len(qs), Answers: answers[q.ID], Comparison: comparisonQuestion(q)}
		for pi, p := range q.Paras {
			in.Cands = append(in.Cands, e.candidate(strconv.Itoa(pi), hotpotText(p), qv))
			var l []int
			if p.Gold {
				l = []int{in.NLabels}
				in.NLabels++
			}
			in.Labels = append(in.Labels, l)
		}
		s.Insts = append(s.Insts, finish(in))
	}
	return s
}

// comparisonQuestion is the per-type rule of issue 42: a question is a
// comparison when a gold answer is yes or no, or is written in the question
// itself (the question names the two entities and asks which one: "Who was
// born first, A or B?"); the rest are the bridge and compositional
// questions.
func comparisonQuestion(q hotpotQuestion) bool {
	question := strings.ToLower(q.Question)
	for _, a := range q.Answers {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "yes" || a == "no" || (a != "" && strings.Contains(question, a)) {
			return true
		}
	}
	return false
}

// embedQuestions embeds every question of qs and its paragraphs, in one
// batch.
func embedQuestions(e *env, qs []hotpotQuestion) {
	var texts []string
	for _, q := range qs {
		texts = append(texts, q.Question)
		for _, p := range q.Paras {
			texts = append(texts, hotpotText(p))
		}
	}
	e.embedAll(texts)
}

// mixedQuestions is the number of other questions whose paragraphs join a
// question's own in a mixed pool, mixedSeed fixes which: a pool larger
// than one topic, as a small collection or a broad query gives, where each
// other question brings a cluster of paragraphs on a topic of its own.
const (
	mixedQuestions = 2
	mixedSeed      = 20181031 // EMNLP 2018, the HotpotQA paper
)

// mixedSuite: per question, its own paragraphs plus every paragraph of
// mixedQuestions other questions of the dataset, drawn with a fixed seed
// (a paragraph whose text is one of the question's own counts as its own).
// Gold as in multiHopSuite; the precision metrics count the other
// questions' paragraphs.
func mixedSuite(e *env, name string, qs []hotpotQuestion, budgets []int) *suite {
	embedQuestions(e, qs)
	s := &suite{Name: name + " mixed", Metrics: []string{allGoldMetric(name), mAnswer, mOtherTok, mAhead}, Score: mixedScore}
	for _, b := range budgets {
		s.Constraints = append(s.Constraints, constraint{Budget: b})
	}
	answers := textAnswers(qs)
	for qi, q := range qs {
		qv := e.vec(q.Question)
		in := &instance{ID: q.ID, Query: q.Question, Half: 2 * qi / len(qs), Answers: answers[q.ID], Comparison: comparisonQuestion(q)}
		own := map[string]bool{}
		for pi, p := range q.Paras {
			t := hotpotText(p)
			own[t] = true
			in.Cands = append(in.Cands, e.candidate(strconv.Itoa(pi), t, qv))
			in.Other = append(in.Other, false)
			var l []int
			if p.Gold {
				l = []int{in.NLabels}
				in.NLabels++
			}
			in.Labels = append(in.Labels, l)
		}
		for _, oi := range otherQuestions(len(qs), qi, mixedQuestions) {
			for pi, p := range qs[oi].Paras {
				if t := hotpotText(p); !own[t] {
					own[t] = true // a paragraph twice in the pool would be a planted copy
					in.Cands = append(in.Cands, e.candidate(fmt.Sprintf("q%d-%d", oi, pi), t, qv))
					in.Other = append(in.Other, true)
					in.Labels = append(in.Labels, nil)
				}
			}
		}
		s.Insts = append(s.Insts, finish(in))
	}
	return s
}

// otherQuestions draws k distinct questions of n other than qi, with a
// seed of qi's own (the same pools on every run and encoder).
func otherQuestions(n, qi, k int) []int {
	rng := rand.New(rand.NewPCG(mixedSeed, uint64(qi)))
	var out []int
	for len(out) < min(k, n-1) {
		if o := rng.IntN(n); o != qi && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

// perspSuite: per claim, all its perspectives plus 15 of other claims;
// labels = the claim's perspective clusters.
func perspSuite(e *env, d *perspData, ks []int) *suite {
	texts := make([]string, 0, len(d.Text))
	for _, c := range d.Claims {
		texts = append(texts, c.Claim)
		for _, pid := range c.Pids {
			texts = append(texts, d.Text[pid])
		}
		for _, pid := range c.Distractors {
			texts = append(texts, d.Text[pid])
		}
	}
	e.embedAll(texts)
	s := &suite{Name: "Perspectrum", Metrics: []string{mCover, mDistract, mOtherTok, mAhead}, Score: perspScore}
	for _, k := range ks {
		s.Constraints = append(s.Constraints, constraint{K: k})
	}
	for ci, c := range d.Claims {
		qv := e.vec(c.Claim)
		in := &instance{ID: strconv.Itoa(c.ID), Query: c.Claim, NLabels: c.Clusters, Half: 2 * ci / len(d.Claims)}
		for i, pid := range c.Pids {
			in.Cands = append(in.Cands, e.candidate(strconv.Itoa(pid), d.Text[pid], qv))
			in.Labels = append(in.Labels, c.Cluster[i])
		}
		in.Other = make([]bool, len(c.Pids))
		for _, pid := range c.Distractors {
			in.Cands = append(in.Cands, e.candidate(strconv.Itoa(pid), d.Text[pid], qv))
			in.Labels = append(in.Labels, nil)
			in.Other = append(in.Other, true)
		}
		s.Insts = append(s.Insts, finish(in))
	}
	return s
}

// pirPool is the number of corpus items retrieved per PIR root query.
const pirPool = 50

// pirSuite: per root query, the top-50 of its task's corpus by cosine;
// labels = the root's perspectives each item is gold for.
func pirSuite(e *env, tasks []pirTask, ks []int) *suite {
	var texts []string
	for _, t := range tasks {
		texts = append(texts, t.Corpus...)
		for _, r := range t.Roots {
			texts = append(texts, r.Query)
		}
	}
	e.embedAll(texts)
	s := &suite{Name: "PIR", Metrics: []string{mPersp, mPerspD}, Score: pirScore}
	for _, k := range ks {
		s.Constraints = append(s.Constraints, constraint{K: k})
	}
	n := 0
	for _, t := range tasks {
		n += len(t.Roots)
	}
	for _, t := range tasks {
		for ri, r := range t.Roots {
			qv := e.vec(r.Query)
			all := &instance{}
			gold := map[int][]int{}
			for p, g := range r.Gold {
				for _, d := range g {
					gold[d] = append(gold[d], p)
				}
			}
			for d, text := range t.Corpus {
				all.Cands = append(all.Cands, e.candidate(strconv.Itoa(d), text, qv))
				all.Labels = append(all.Labels, gold[d])
			}
			merged, nMerged := mergeSameText(t.Corpus, r.Gold)
			for d := range all.Cands {
				all.AltLabels = append(all.AltLabels, mapLabels(all.Labels[d], merged))
			}
			finish(all)
			in := &instance{ID: fmt.Sprintf("%s/%d", t.Name, ri), Query: r.Query, NLabels: len(r.Perspectives),
				Cands: all.Cands[:min(pirPool, len(all.Cands))], Labels: all.Labels[:min(pirPool, len(all.Labels))],
				AltLabels: all.AltLabels[:min(pirPool, len(all.AltLabels))], NAltLabels: nMerged}
			in.Half = ri % 2
			s.Insts = append(s.Insts, in)
		}
	}
	return s
}

// mergeSameText maps each perspective of a root to a group: perspectives
// whose gold items include two with the same normalised text are one group
// (PIR's exfever labels the identical sentence for two perspectives; a
// context needs it once). It returns the map and the number of groups.
func mergeSameText(corpus []string, gold [][]int) ([]int, int) {
	parent := make([]int, len(gold))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	byText := map[uint64]int{}
	for p, items := range gold {
		for _, d := range items {
			k := selectors.NormalizedTextHash(corpus[d])
			if q, ok := byText[k]; ok {
				parent[find(p)] = find(q)
			} else {
				byText[k] = p
			}
		}
	}
	group := map[int]int{}
	out := make([]int, len(gold))
	for p := range gold {
		r := find(p)
		if _, ok := group[r]; !ok {
			group[r] = len(group)
		}
		out[p] = group[r]
	}
	return out, len(group)
}

// mapLabels maps perspective labels to their groups, without repeats.
func mapLabels(labels, group []int) []int {
	var out []int
	for _, l := range labels {
		if g := group[l]; !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// parallel runs f(0..n-1) on GOMAXPROCS workers.
func parallel(n int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), max(n, 1))
	var wg sync.WaitGroup
	next := make(chan int, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
