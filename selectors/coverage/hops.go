package coverage

import (
	"slices"
	"strings"
	"unicode"

	"github.com/diverse-select/diverse-select/selectors"
	"github.com/diverse-select/diverse-select/selectors/text"
)

// Second-hop demand. A multi-hop question names its first hop; the chunk
// that answers it is about an entity the question does not name but the
// first hop's chunk mentions (HotpotQA's bridge paragraph: in 189 of 300
// questions one gold paragraph's title appears in the other's text, against
// 12% of gold-distractor pairs). Once a chunk is selected, the chunks whose
// title it mentions - or that mention its title - become demand: selecting
// one of them gains hopWeight, as a query term would.
//
// A chunk's title is its first line when the text has more than one line
// and the first line is short (the module joins a title property and the
// text properties with "\n"), without a trailing parenthetical; chunks
// without a title take part only as the mentioning side. Titles the question already names are left to query-term
// coverage.

// maxTitleWords bounds what counts as a title line.
const maxTitleWords = 12

// title returns the candidate's title line, if it has one.
func title(c selectors.Candidate) (string, bool) {
	head, ok := firstLine(c.Text)
	if !ok || moreFields(head, maxTitleWords) {
		return "", false
	}
	return head, true
}

// firstLine returns the text's first line when more text follows it: the
// title line, if it is short enough (title).
func firstLine(text string) (string, bool) {
	head, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimSpace(rest) == "" {
		return "", false
	}
	return head, true
}

// moreFields reports whether s has more than n space-separated fields
// (strings.Fields without building them).
func moreFields(s string, n int) bool {
	fields, in := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) {
			in = false
		} else if !in {
			if in, fields = true, fields+1; fields > n {
				return true
			}
		}
	}
	return false
}

// anyTitle reports whether a candidate has a title line: without one the
// second hop has nothing to link, and the terms need not be kept.
func anyTitle(c []selectors.Candidate) bool {
	for i := range c {
		if _, ok := title(c[i]); ok {
			return true
		}
	}
	return false
}

// titleLinks returns, per candidate, the other candidates linked to it: d
// and u are linked when u's title occurs as a run of terms in d's analysed
// terms (all, as the query-term coverage reads them: stemmed, stopwords
// removed) or d's title in u's, unless more than max(3, N/20) chunks name
// that title. One pass over the terms with a map from a title's anchor term,
// no pairwise text comparison, and no text pass of its own when the
// candidates come with precomputed terms.
func titleLinks(c []selectors.Candidate, an *text.Analyzer, all [][]string, query string) [][]int32 {
	qterms := map[string]bool{}
	for _, t := range an.Terms(nil, query) {
		qterms[t] = true
	}
	// Chunks of one document share its title: the titles are grouped, so
	// each distinct title is matched against the text once.
	var titles [][]string // per distinct title, its terms
	group := make([]int32, len(c))
	byHead := map[string]int32{}      // title line -> its group, or -1
	byTitle := map[string]int32{}     // title terms -> group
	byAnchor := map[string][]anchor{} // a title's anchor term -> the titles it anchors
	var anchors wordFilter
	for u := range c {
		group[u] = -1
		head, ok := firstLine(c[u].Text)
		if !ok {
			continue
		}
		if g, seen := byHead[head]; seen { // the same title line: the same terms
			group[u] = g
			continue
		}
		g := int32(-1)
		if !moreFields(head, maxTitleWords) {
			// The text's terms begin with its title line's (the analysed terms
			// run in text order and a line break ends a word), so the title's
			// are a prefix of them: counted, not stemmed again.
			var t []string
			if k := text.CountTerms(titleCore(head)); k <= len(all[u]) {
				t = all[u][:k:k]
			} else {
				t = an.Terms(nil, titleCore(head))
			}
			if len(t) > 0 && !allIn(t, qterms) {
				key := strings.Join(t, " ")
				var known bool
				if g, known = byTitle[key]; !known {
					g = int32(len(titles))
					byTitle[key] = g
					titles = append(titles, t)
					a := anchorOf(t)
					byAnchor[t[a]] = append(byAnchor[t[a]], anchor{title: g, at: int32(a)})
					anchors.add(t[a])
				}
			}
		}
		byHead[head] = g
		group[u] = g
	}
	if len(titles) == 0 {
		return nil
	}
	// mentions[g]: the chunks whose terms name title g (d ascending, so a
	// repeat is the last element); a chunk with that title names it too.
	mentions := make([][]int32, len(titles))
	for d, words := range all {
		for i, w := range words {
			if !anchors.mayHave(w) {
				continue
			}
			for _, a := range byAnchor[w] {
				t := titles[a.title]
				m := mentions[a.title]
				start := i - int(a.at)
				if (len(m) > 0 && m[len(m)-1] == int32(d)) ||
					start < 0 || start+len(t) > len(words) || !equalWords(words[start:start+len(t)], t) {
					continue
				}
				mentions[a.title] = append(m, int32(d))
			}
		}
	}
	// A title many chunks name is the pool's topic, not an entity one chunk
	// leads to (and linking it would cost O(N^2)): it gets no links.
	most := max(3, len(c)/20)
	links := make([][]int32, len(c))
	for u, g := range group {
		if g < 0 {
			continue
		}
		m := mentions[g]
		others := len(m)
		if _, self := slices.BinarySearch(m, int32(u)); self {
			others--
		}
		if others > most {
			continue
		}
		for _, d := range m {
			if int(d) != u {
				links[d] = append(links[d], int32(u))
				links[u] = append(links[u], d)
			}
		}
	}
	// A pair can be linked both ways and through several chunks of one
	// title: each list once, ascending (a set, not a scan per addition).
	for d := range links {
		if len(links[d]) > 1 {
			slices.Sort(links[d])
			links[d] = slices.Compact(links[d])
		}
	}
	return links
}

// anchor is where a title is looked for: its term at position at.
type anchor struct {
	title, at int32
}

// anchorOf picks the term a title is found by: its longest (the first of
// the longest), which is rarer in the texts than a title's first term
// tends to be (in a pool about statins, half the titles begin with
// "statin"), so fewer words lead to a comparison.
func anchorOf(t []string) int {
	a := 0
	for i, w := range t {
		if len(w) > len(t[a]) {
			a = i
		}
	}
	return a
}

// titleCore drops a trailing parenthetical qualifier, which texts rarely
// repeat: "Mercury (planet)" is mentioned as "Mercury".
func titleCore(head string) string {
	h := strings.TrimSpace(head)
	if strings.HasSuffix(h, ")") {
		if i := strings.LastIndex(h, "("); i > 0 {
			return h[:i]
		}
	}
	return h
}

func allIn(w []string, set map[string]bool) bool {
	for _, x := range w {
		if !set[x] {
			return false
		}
	}
	return true
}

func equalWords(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
