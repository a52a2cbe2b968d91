package coverage

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	head, ok := firstLine(&c)
	if !ok || moreFields(head, maxTitleWords) {
		return "", false
	}
	return head, true
}

// firstLine returns the candidate's first line when more text follows it:
// the title line, if it is short enough (title). A candidate known to be
// one line (Candidate.SingleLine) has none, and its text is not read.
func firstLine(c *selectors.Candidate) (string, bool) {
	if c.SingleLine {
		return "", false
	}
	head, rest, ok := strings.Cut(c.Text, "\n") // as selectors.SingleLine
	if !ok || strings.TrimSpace(rest) == "" {
		return "", false
	}
	return head, true
}

// moreFields reports whether s has more than n space-separated fields
// (strings.Fields without building them), byte by byte while the text is
// ASCII.
func moreFields(s string, n int) bool {
	fields, in := 0, false
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= utf8.RuneSelf {
			return moreFieldsRunes(s, n)
		}
		if asciiSpace[b] {
			in = false
		} else if !in {
			if in, fields = true, fields+1; fields > n {
				return true
			}
		}
	}
	return false
}

// asciiSpace marks the ASCII bytes unicode.IsSpace reports.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

func moreFieldsRunes(s string, n int) bool {
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
// that title. One pass over the terms with an index of the titles' anchor
// terms, no pairwise text comparison, and no text pass of its own when the
// candidates come with precomputed terms. The links live in b's memory
// (until b is released).
func titleLinks(b *linkBuffers, c []selectors.Candidate, an *text.Analyzer, all [][]string, query string) [][]int32 {
	qterms := map[string]bool{}
	for _, t := range an.Terms(nil, query) {
		qterms[t] = true
	}
	// Chunks of one document share its title line: each distinct line is
	// analysed and matched against the texts once. (Two lines with the same
	// terms are two titles with the same mentions, hence the same links.)
	b.group = resize(b.group, len(c)) // per chunk, its title or -1
	group, byHead := b.group, b.byHead
	titles := b.titles[:0] // per distinct title line, its terms
	index := &b.index
	index.reset()
	for u := range c {
		group[u] = -1
		head, ok := firstLine(&c[u])
		if !ok {
			continue
		}
		if g, seen := byHead[head]; seen {
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
				g = int32(len(titles))
				titles = append(titles, t)
				index.add(t, g)
			}
		}
		byHead[head] = g
		group[u] = g
	}
	b.titles = titles
	if len(titles) == 0 {
		return nil
	}
	index.build()
	m := &b.mentions
	m.find(all, &b.hashes, titles, index)
	// A title many chunks name is the pool's topic, not an entity one chunk
	// leads to (and linking it would cost O(N^2)): it gets no links.
	// linked[u]: u's title is linked to the chunks that name it.
	most := max(3, len(c)/20)
	b.linked = resize(b.linked, len(c))
	linked := b.linked
	for u, g := range group {
		if g >= 0 {
			names := m.byTitle(g)
			others := len(names)
			if _, self := slices.BinarySearch(names, int32(u)); self {
				others--
			}
			linked[u] = others <= most
		}
	}
	// The linked chunks by title, ascending (members(g) =
	// memberList[memberStart[g]:memberStart[g+1]]).
	b.memberStart = resize(b.memberStart, len(titles)+1)
	start := b.memberStart
	for u, g := range group {
		if g >= 0 && linked[u] {
			start[g+1]++
		}
	}
	for g := range titles {
		start[g+1] += start[g]
	}
	b.memberList = resize(b.memberList, int(start[len(titles)]))
	b.fill = append(b.fill[:0], start[:len(titles)]...)
	for u, g := range group {
		if g >= 0 && linked[u] {
			b.memberList[b.fill[g]] = int32(u)
			b.fill[g]++
		}
	}
	members := func(g int32) []int32 { return b.memberList[start[g]:start[g+1]] }
	// links[x]: the chunks that name x's title, and the chunks whose titles
	// x names; each list once, ascending, in one array.
	b.links = resize(b.links, len(c))
	links := b.links
	bound := 0 // the links before removing repeats: to's size at most
	for x := range c {
		if linked[x] {
			bound += len(m.byTitle(group[x]))
		}
		for _, g := range m.byChunk(x) {
			bound += len(members(g))
		}
	}
	if cap(b.to) < bound {
		b.to = make([]int32, 0, bound)
	}
	to := b.to[:0]
	b.seen = resize(b.seen, len(c))
	seen := b.seen // seen[y] = x+1 once y is in links[x]
	for x := range c {
		from := len(to)
		add := func(y int32) {
			if int(y) != x && seen[y] != int32(x+1) {
				seen[y] = int32(x + 1)
				to = append(to, y)
			}
		}
		if linked[x] {
			for _, d := range m.byTitle(group[x]) {
				add(d)
			}
		}
		for _, g := range m.byChunk(x) {
			for _, u := range members(g) {
				add(u)
			}
		}
		if len(to)-from > 1 {
			slices.Sort(to[from:])
		}
		if len(to) > from {
			links[x] = to[from:len(to):len(to)]
		}
	}
	b.to = to
	return links
}

// linkBuffers are titleLinks's memory, reused from query to query
// (linkPool): the maps and arrays of a pool of 1000 chunks came to about
// 280 KB per query.
type linkBuffers struct {
	group, seen, memberStart, memberList, fill, to []int32
	linked                                         []bool
	byHead                                         map[string]int32
	titles                                         [][]string
	links                                          [][]int32
	index                                          anchorIndex
	mentions                                       mentions
	// hashes are the pool's terms hashed (hashTerms), which the query terms
	// read too.
	hashes termHashes
}

// termHashes are the text.TermHash of every analysed term of a pool: the
// candidates' own (Candidate.TermHashes) where given, the others computed
// here into one array. The scans for the query's terms and for the titles
// read them instead of each loading and hashing every word.
type termHashes struct {
	per  [][]uint32 // of(d) = per[d]
	flat []uint32   // the hashes computed here
}

// compute finds the hashes of all, the analysed terms of the candidates c.
func (h *termHashes) compute(c []selectors.Candidate, all [][]string) {
	h.per = resize(h.per, len(all))
	missing := 0
	for d := range all {
		if h.per[d] = givenHashes(&c[d]); h.per[d] == nil {
			missing += len(all[d])
		}
	}
	// Sized up front: the slices of flat taken below stay valid.
	h.flat = slices.Grow(h.flat[:0], missing)
	for d, words := range all {
		if h.per[d] == nil {
			from := len(h.flat)
			h.flat = text.TermHashes(h.flat, words)
			h.per[d] = h.flat[from:len(h.flat):len(h.flat)]
		}
	}
}

func (h *termHashes) of(d int) []uint32 { return h.per[d] }

// givenHashes returns the candidate's TermHashes when they are its Terms'
// (Run's validation sees to it), else nil.
func givenHashes(c *selectors.Candidate) []uint32 {
	if c.Terms != nil && len(c.TermHashes) == len(c.Terms) {
		return c.TermHashes
	}
	return nil
}

var linkPool = sync.Pool{New: func() any { return &linkBuffers{byHead: map[string]int32{}} }}

// maxPooledLinks bounds the pool size whose buffers are kept for the next
// query, and maxPooledEntries the links and term hashes: a rare huge
// pool's, or one of long texts with many links, are left to the collector.
const (
	maxPooledLinks   = 4096
	maxPooledEntries = 1 << 20
)

// release returns b to linkPool, without the references it held into the
// query's texts and terms.
func (b *linkBuffers) release() {
	if len(b.group) > maxPooledLinks {
		return
	}
	if cap(b.to) > maxPooledEntries {
		b.to = nil
	}
	if cap(b.hashes.flat) > maxPooledEntries {
		b.hashes.flat = nil
	}
	clear(b.hashes.per)
	clear(b.byHead)
	clear(b.titles)
	clear(b.links)
	b.index.reset()
	linkPool.Put(b)
}

// resize returns s with length n and every element zero, reusing its
// memory when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// mentions are the chunks that name each title, and the titles each chunk
// names.
type mentions struct {
	// byTitle(g) = chunks[titleStart[g]:titleStart[g+1]], ascending;
	// byChunk(d) = titles[chunkStart[d]:chunkStart[d+1]].
	chunks, titles         []int32
	titleStart, chunkStart []int32
	last, fill             []int32 // scratch
}

func (m *mentions) byTitle(g int32) []int32 { return m.chunks[m.titleStart[g]:m.titleStart[g+1]] }
func (m *mentions) byChunk(d int) []int32   { return m.titles[m.chunkStart[d]:m.chunkStart[d+1]] }

// find finds where each title is named: a chunk names a title when its
// terms hold the title's terms as a run (a chunk with that title names it
// too).
func (m *mentions) find(all [][]string, hashes *termHashes, titles [][]string, index *anchorIndex) {
	m.chunkStart = resize(m.chunkStart, len(all)+1)
	m.titles = m.titles[:0]
	m.last = resize(m.last, len(titles)) // last[g] = d+1 once d names g
	last := m.last
	for d, words := range all {
		for i, h := range hashes.of(d) {
			if !index.filter.hasHash(h) {
				continue // most words: no title is anchored at them
			}
			w := words[i]
			for r := index.slot(h, w).first - 1; r >= 0; r = index.refs[r].next {
				a := index.refs[r]
				t := titles[a.title]
				start := i - int(a.at)
				if last[a.title] == int32(d+1) ||
					start < 0 || start+len(t) > len(words) || !equalWords(words[start:start+len(t)], t) {
					continue
				}
				last[a.title] = int32(d + 1)
				m.titles = append(m.titles, a.title)
			}
		}
		m.chunkStart[d+1] = int32(len(m.titles))
	}
	// The same mentions by title (a counting sort, stable: d ascending).
	m.titleStart = resize(m.titleStart, len(titles)+1)
	for _, g := range m.titles {
		m.titleStart[g+1]++
	}
	for g := range titles {
		m.titleStart[g+1] += m.titleStart[g]
	}
	m.chunks = resize(m.chunks, len(m.titles))
	m.fill = append(m.fill[:0], m.titleStart[:len(titles)]...)
	for d := range all {
		for _, g := range m.byChunk(d) {
			m.chunks[m.fill[g]] = int32(d)
			m.fill[g]++
		}
	}
}

// anchorIndex finds the titles anchored at a term: an open-addressing table
// keyed by text.TermHash (the word compared only when the hash matches), behind
// a wordFilter that turns most words away before the table is read.
type anchorIndex struct {
	filter wordFilter
	refs   []anchorRef
	words  []string // per ref, its anchor term
	slots  []anchorSlot
}

// anchorRef is one title's anchor: title g is looked for at its term at;
// next is the next title with the same anchor term, or -1.
type anchorRef struct {
	title, at, next int32
}

type anchorSlot struct {
	hash  uint32
	word  string
	first int32 // refs index + 1; 0 = empty slot
}

// reset empties the index (keeping its memory, without the words).
func (x *anchorIndex) reset() {
	x.filter = wordFilter{}
	x.refs = x.refs[:0]
	clear(x.words)
	x.words = x.words[:0]
	clear(x.slots)
	x.slots = x.slots[:0]
}

// add records title g (terms t) under its anchor term (anchorOf).
func (x *anchorIndex) add(t []string, g int32) {
	a := anchorOf(t)
	x.refs = append(x.refs, anchorRef{title: g, at: int32(a), next: -1})
	x.words = append(x.words, t[a])
}

// build makes the table from the refs added.
func (x *anchorIndex) build() {
	size := 16
	for size < 2*len(x.refs) {
		size *= 2
	}
	x.slots = resize(x.slots, size)
	for r, w := range x.words {
		h := text.TermHash(w)
		x.filter.addHash(h)
		s := x.slot(h, w)
		if s.first == 0 {
			s.hash, s.word = h, w
		}
		x.refs[r].next = s.first - 1
		s.first = int32(r + 1)
	}
}

// slot is the slot of word w (hash h), or the empty slot where it belongs.
func (x *anchorIndex) slot(h uint32, w string) *anchorSlot {
	mask := uint32(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.first == 0 || (s.hash == h && s.word == w) {
			return s
		}
	}
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

// titleCore drops// titleCore drops a trailing parenthetical qualifier, which texts rarely
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
