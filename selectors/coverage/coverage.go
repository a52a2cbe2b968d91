// Package coverage is the default strategy: query-focused coverage under the
// token budget. It was chosen by evidence on HotpotQA, Perspectrum and PIR
// (docs/quality.md), not taken from one paper; each of its parts follows a
// published idea.
//
// The full write-up, with the evidence behind each default, is
// docs/strategies-quality.md; the package's example runs it on a small pool.
//
// Objective (monotone submodular, plus the second-hop demand):
//
//	F(S) = sum_u rho_u * max_{d in S} s(d,u) + kappa * queryCoverage * QC(S) + HOP(S)
//
// where:
//
//   - The first term is facility location over the whole pool weighted by
//     relevance (query-focused facility location, Lin and Bilmes 2011):
//     every candidate u lends its relevance rho_u to the selection to the
//     extent that a selected chunk says the same thing, s(d,u). With
//     s(d,d) = 1 a chunk unlike anything selected adds exactly its own
//     relevance, as in top-k; a near-copy of a selected chunk adds almost
//     nothing, so the budget goes to new information.
//
//   - The demand: a target's weight is its relevance rho_u, or rho_u^4
//     under the price of a token (below).
//
//   - rho_u, hybrid relevance in [0, 1]: (1-lexicalWeight) * dense_u +
//     lexicalWeight * lex_u, where dense_u is the relevance min-max scaled
//     over the pool and lex_u the idf-weighted share of the query's terms
//     found in u, divided by the pool's largest share (the fusion of
//     normalised dense and keyword scores of hybrid search). Without query
//     text, or when no candidate contains a query term, rho = dense.
//
//   - s(d,u) = max(0, k(d,u))^similarityPower for d != u, where k is the
//     cosine of the candidates' vectors after subtracting the pool mean
//     ("center", default). Sentence embeddings are anisotropic (GloVe SIF
//     vectors of unrelated texts have cosines around 0.5); centring removes
//     the direction every candidate shares, so k measures what two chunks
//     share beyond the topic (Mu and Viswanath 2018; on Perspectrum,
//     paraphrases score 0.46 and different perspectives of one claim 0.02
//     after centring, against 0.72 and 0.51 before). The default power 2
//     makes s the squared correlation: the share of one chunk's variation
//     the other accounts for, so near-copies (k 0.95: s 0.9) are covered
//     and loosely related chunks (k 0.3: s 0.09) hardly at all. The centred
//     cosines come from the cosine matrix alone:
//     (c_ij - m_i - m_j + m) / sqrt((1 - 2 m_i + m) (1 - 2 m_j + m)) with
//     m_i the mean of row i and m the mean of the matrix.
//
//   - QC(S) = sum over the query's terms t found in S of w_t, with
//     w_t = log((N+1)/(df_t+0.5)) normalised to sum 1 (df over the pool):
//     the share of the question a selection speaks to. Multi-part questions
//     need evidence for each part (weighted coverage).
//
//   - kappa = kbar, the number of items the constraint admits on average
//     (B / mean tokens, at least 1, at most maxResults; maxResults when
//     there is no budget), as in AdaGReS's calibration: the relevance term
//     grows with the number of picks while QC is bounded by 1, so scaling
//     it by kbar keeps the balance the same for any budget.
//
//   - Part demand (demand.go, "parts"): the question's parts (clauses and
//     the phrases a conjunction joins) are demand points; a chunk covers a
//     part by the idf-weighted share of its terms it contains, and
//     kappa * parts * sum_p W_p * max_{d in S} c(d,p) rewards the chunk that
//     has a part's terms together (GeoRAG's demand-weighted coverage, with
//     lexical coverage of the parts). Monotone submodular.
//
//   - Second-hop demand (hops.go, "hop"): once a chunk is selected, a chunk
//     linked to it by title (one's title line occurs in the other's text)
//     gains kappa * hop / |query terms| until it is selected itself: the
//     bridge paragraph of a multi-hop question is about an entity only the
//     first hop names. It depends on the order of selection, so F with
//     hop > 0 is no longer submodular; the guarantee below is for hop = 0.
//
//   - The price of a token (precision.go; off with fill): under a budget
//     that admits at most a quarter of the pool, the demand is rho_u^4 and
//     the candidates outside the most relevant ones, and far below the
//     best, are worth nothing but their query terms, parts and hop (their
//     kernel rows are zero), so a pick pays for its tokens only with what
//     it adds on the query's topic, and the selection may end under budget.
//     Where the pool's relevance is decisive (its best stands 2.5 standard
//     deviations above its mean), the query terms and parts a chunk adds
//     count in proportion to its relevance ((rho_d / best)^3), so a chunk
//     far down the ranking no longer pays for its tokens with one of the
//     question's words alone (QC and the part demand stay monotone
//     submodular: a term's credit is the largest gate among the selected
//     chunks that have it).
//
//   - The trusted head (trust.go, "trustGap"): when the pool's relevance
//     curve drops by trustGap standard deviations right after its first
//     few candidates (at most kbar), those rank with the best, cover none
//     of each other, and the kernel's power rises to 4: the encoder's
//     ranking is trusted where it is decisive, and the pool diversifies
//     where it is flat.
//
// No near-copies: the greedy and the fill skip a near-copy of a selected
// item (selectors.CopyGuard), and, with minNovelty > 0, an item whose gain
// is below that share of its stand-alone value.
//
// Algorithm: lazy density greedy (gain / tokens) under a token budget,
// lazy greedy on the gain under maxResults alone, with the best-single
// guard under a budget, until no candidate left gains anything (Result.Stop
// says why it ended). With greedy "both" the greedy on the plain gain runs
// as well under a budget, and the selection with the larger F is kept; by
// default ("auto") only where the density greedy passed over a long chunk
// that is the most relevant (greedy.go, passedOverLong). With fill (off by
// default, the behaviour before issue 34) the remaining budget is then
// filled by relevance per token, so the budget is not left unused while a
// candidate fits.
//
// Pages (Problem.Preselected): the earlier pages' items are in the state
// before the first round, so the greedy, the guard and the fill continue
// from them (the guard compares gains given them). kappa is calibrated for
// the page's own budget, like the first page's; with queryCoverage, hop
// and parts 0 it plays no part and, without fill and under maxResults, the
// pages are one greedy run. Under the price of a token a later page's
// relevance window counts only what is not shown yet (precision.go), so a
// later page is empty only when nothing relevant is left.
//
// Guarantee: F is monotone submodular (facility location with a
// non-negative kernel plus weighted coverage): greedy under a cardinality
// constraint >= (1-1/e) OPT; density greedy with the best-single guard,
// or the better of the density and the plain-gain greedy (Leskovec et al.
// 2007), >= (1-1/e)/2 OPT under a knapsack. The fill phase only adds items,
// which never lowers a monotone F.
//
// Complexity: one N x M float32 block, M = min(N, targets): the cosines
// of every candidate with the targets (the most relevant candidates), made
// into the kernel in place with the centring as a rank-one correction;
// O(N M) for the initial gains, O(M + |Q|) per lazy re-evaluation, plus one
// pass over the analysed terms for the query's terms and the title links.
//
// Explanation: Item.Gain is the marginal gain when the item was picked,
// Item.Redundancy the part of the item's stand-alone value F({d}) that
// earlier picks already covered, Item.Relevance the candidate's relevance.
// Stats: "kappa", "queryTerms" (terms of the query found in the pool),
// "singleGuard" (1 when the best single item replaced the greedy set),
// "plainGain" (1 when the plain-gain greedy's set was kept),
// "filled" (items added by the fill phase).
package coverage

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/diverse-select/diverse-select/selectors"
)

// Name is the strategy's registry name.
const Name = "coverage"

// MaxPool caps the pool (with targets 0 the kernel is N x N float32).
const MaxPool = 16384

func init() {
	inf := math.Inf(1)
	selectors.Register(selectors.Definition{
		Name: Name,
		Doc: "default: relevance-weighted facility location over centred similarities + query-term coverage, " +
			"density greedy under the token budget",
		NeedsVectors: true,
		NeedsText:    true,
		Continues:    true,
		Params: []selectors.ParamSpec{
			{Name: "lexicalWeight", Kind: selectors.KindFloat, Default: 0.5, Min: 0, Max: 1,
				Doc: "share of the lexical query match in the relevance (0 = the dense relevance only)"},
			{Name: "similarityPower", Kind: selectors.KindFloat, Default: 2.0, Min: 1, Max: 64,
				Doc: "how much a selected chunk covers another: centred cosine to this power (larger = only near-copies count)"},
			{Name: "queryCoverage", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: inf,
				Doc: "weight of the query-term coverage term, in units of kbar"},
			{Name: "center", Kind: selectors.KindBool, Default: true,
				Doc: "compare candidates after subtracting the pool's mean vector (anisotropic embeddings)"},
			{Name: "fill", Kind: selectors.KindBool, Default: false,
				Doc: "fill the token budget: no relevance window, and after the gains run out the remaining budget goes by " +
					"relevance per token (false = stop when nothing left pays for its tokens; may end under budget)"},
			{Name: "minNovelty", Kind: selectors.KindFloat, Default: DefaultMinNovelty, Min: 0, Max: 1,
				Doc: "skip a candidate whose marginal gain is below this share of its stand-alone value (0 = off)"},
			{Name: "hop", Kind: selectors.KindFloat, Default: 4.0, Min: 0, Max: inf,
				Doc: "second-hop demand: a chunk linked by title to a selected one gains this many average query terms (0 = off)"},
			{Name: "parts", Kind: selectors.KindFloat, Default: 1.0, Min: 0, Max: inf,
				Doc: "weight of the question's parts (clauses, conjoined phrases) as demand, in units of kbar (0 = off)"},
			{Name: "trustGap", Kind: selectors.KindFloat, Default: DefaultTrustGap, Min: 0, Max: inf,
				Doc: "trust the ranking when a drop of this many standard deviations of the pool's relevance sets its head apart " +
					"(within the items the budget admits): the head ranks with the best and its chunks cover none of each other (0 = off)"},
			{Name: "greedy", Kind: selectors.KindString, Default: GreedyAuto, Enum: []string{GreedyAuto, GreedyDensity, GreedyBoth},
				Doc: "under a token budget: " + GreedyDensity + " = the greedy by gain per token; " + GreedyBoth + " = also the greedy by " +
					"plain gain, keeping the selection with the larger objective (takes a long chunk the query needs " +
					"ahead of short ones that gain more per token; twice the greedy's work); " + GreedyAuto + " = " + GreedyDensity +
					", and " + GreedyBoth + " (inside the relevance window) only when the density greedy left out the most relevant " +
					"chunk and it is long (at least a fifth of the budget)"},
			{Name: "outsideTerms", Kind: selectors.KindString, Default: OutsideTermsAuto,
				Enum: []string{OutsideTermsAuto, OutsideTermsWhole, OutsideTermsRelevance},
				Doc: "under the price of a token, what a chunk outside the relevance window earns for the query terms and parts it adds: " +
					OutsideTermsWhole + " = their whole credit (a weak encoder ranks a later hop low, and its words find it); " +
					OutsideTermsRelevance + " = a share, (relevance / the best)^3 (no short, far-down chunk buys the " +
					"question's words ahead of the relevant ones); " + OutsideTermsAuto + " = " + OutsideTermsRelevance +
					" where the pool's dense ranking agrees with the query's words (rank correlation at least " +
					strconv.FormatFloat(wordsAgree, 'f', -1, 64) + ": a pool wider than the query's topic), " + OutsideTermsWhole + " elsewhere"},
			{Name: "targets", Kind: selectors.KindInt, Default: DefaultTargets, Min: 0, Max: MaxPool,
				Doc: "the facility-location term sums over this many most relevant candidates (0 = the whole pool)"},
		},
		New: func(p selectors.Params) (selectors.Strategy, error) {
			return strategy{lexical: p.Float("lexicalWeight"), power: p.Float("similarityPower"),
				queryCoverage: p.Float("queryCoverage"), center: p.Bool("center"), fill: p.Bool("fill"),
				minNovelty: p.Float("minNovelty"), hop: p.Float("hop"), parts: p.Float("parts"),
				targets: p.Int("targets"), trustGap: p.Float("trustGap"), greedy: p.String("greedy"),
				outsideTerms: p.String("outsideTerms")}, nil
		},
	})
}

// DefaultMinNovelty is the default of minNovelty (docs/quality.md: how it
// was chosen).
const DefaultMinNovelty = 0.0

// DefaultTargets is the default of targets: pools up to this size are
// covered exactly; larger ones are compared with their most relevant
// DefaultTargets candidates. On open pools of 100-2000 candidates retrieved
// from a whole corpus, quality rises as targets shrinks, from the exact
// objective down to 16, on HotpotQA and Perspectrum, both encoders and both
// halves: the facility-location weights are relevances scaled over the
// pool, and in a large pool the mass of off-topic candidates outweighs the
// few on the query, so targets is the objective's relevance focus. 32 gains
// 16-30 points of HotpotQA both-gold and 11-18 of Perspectrum coverage over
// 256 at N = 1000-2000 and keeps the library's own pools within 0.3 point;
// 16 gains more on open pools but costs those 1.7 (docs/quality.md, "Large
// pools: coverage's targets"). It also makes the kernel an N x 32 block.
const DefaultTargets = 32

type strategy struct {
	lexical, power, queryCoverage, minNovelty, hop, parts, trustGap float64
	center, fill                                                    bool
	targets                                                         int
	greedy, outsideTerms                                            string
}

// The values of greedy.
const (
	GreedyAuto    = "auto"
	GreedyDensity = "density"
	GreedyBoth    = "both"
)

// The values of outsideTerms.
const (
	OutsideTermsAuto      = "auto"
	OutsideTermsWhole     = "whole"
	OutsideTermsRelevance = "relevance"
)

// UsesTerms implements selectors.TermsUser: the query's terms are looked up
// in the candidates' analysed terms unless both lexical parts are off.
func (s strategy) UsesTerms() bool { return s.lexical > 0 || s.queryCoverage > 0 }

// MatrixBytes implements selectors.MatrixUser: one N x M block, the
// cosines with the targets turned into the kernel in place.
func (s strategy) MatrixBytes(n int) int64 {
	m := n
	if s.targets > 0 {
		m = min(n, s.targets)
	}
	return int64(n) * int64((m+3)/4*4) * 4
}

// Select implements selectors.Strategy.
func (s strategy) Select(ctx context.Context, p *selectors.Problem) (*selectors.Result, error) {
	if len(p.Candidates) > MaxPool {
		return nil, fmt.Errorf("%w: coverage needs an N x N kernel; %d candidates exceed its maximum of %d",
			selectors.ErrInvalidProblem, len(p.Candidates), MaxPool)
	}
	o := s.objective(p)
	defer o.release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	items, single, first, err := o.lazyGreedy(ctx, p)
	if err != nil {
		return nil, err
	}
	res := &selectors.Result{Stats: map[string]float64{"kappa": o.kappa, "queryTerms": float64(o.queryTerms)}}
	if o.trusted > 0 {
		res.Stats["trusted"] = float64(o.trusted)
	}
	auto := s.greedy == GreedyAuto
	if p.Budget > 0 && (s.greedy == GreedyBoth || (auto && passedOverLong(p.Candidates, p.Budget, first, items))) {
		var plain bool
		if items, plain, err = o.plainGainGreedy(ctx, p, items, auto); err != nil {
			return nil, err
		}
		if plain {
			res.Stats["plainGain"] = 1
		}
	}
	if p.Budget > 0 {
		var guarded bool
		items, guarded = guardBestSingle(p.Candidates, first, items)
		if guarded {
			res.Stats["singleGuard"] = 1
		}
	}
	if s.fill {
		before := len(items)
		items = o.fill(p, items, single)
		res.Stats["filled"] = float64(len(items) - before)
	}
	for _, it := range items {
		res.Objective += it.Gain // the marginal gains telescope to F(S)
	}
	res.Items = items
	return res, nil
}
