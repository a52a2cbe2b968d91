// Package segment cuts a text into chunks for retrieval: the step every RAG
// user runs before import, and the first contribution of SAGE (Wang et al.,
// arXiv 2503.01713): a fact cut in two is retrieved and selected badly in
// both halves.
//
// Every chunker returns [Chunk] values: byte offsets into the text and the
// chunk's token count. Every method keeps the same size bounds
// ([CheckBounds]): no chunk over its maximum by the chunk's own count, whole
// sentences (a sentence over the maximum alone is cut at word boundaries and
// the chunk flagged [Chunk.Cut]), and no chunk under MinTokens unless the
// text is shorter or neither neighbour can take it within the maximum (a
// small chunk is merged with the neighbour most like it, or borrows
// sentences from the one before it). The methods, each with what it
// optimises and its cost for a text of n bytes, s sentences and encoder
// dimension d:
//
//   - [Sentences] splits a text into sentences (selectors/sentences, the
//     splitter the evidence cards use too). O(n).
//   - [Fixed]: cut every Tokens tokens at the word boundary where the count
//     is reached, whatever the sentences. Objective: equal-size chunks.
//     O(n); the baseline SAGE measures against.
//   - [Packed]: whole sentences packed greedily into chunks of at most Tokens
//     tokens (a sentence longer than that is a chunk of its own). Objective:
//     equal-size chunks that never cut a sentence. O(n). It is SAGE's
//     second baseline and its coarse chunker ([Coarse]).
//   - [Percentile]: the popular "semantic" splitter: embed each sentence and
//     cut where the cosine distance between neighbours exceeds the given
//     percentile of the text's distances (95 by default), then cap chunks
//     with [Packed]. Objective: cut at the largest topic shifts of the text.
//     O(n + s·d + s log s) plus s encoder calls.
//   - [ChangePoint]: reads the whole document. The cuts minimise, over every
//     way to cut it within the bounds, the chunks' scatter (the squared
//     distances of their unit sentence vectors to the chunk's mean: the
//     linear-kernel change-point cost) plus a penalty per chunk, lowered or
//     raised at each cut by SAGE's pair scorer's log-odds; the number of
//     chunks follows from the text. Solved exactly by dynamic programming.
//     O(n + s·L·d) for L the sentences a chunk can hold (at most 256), plus
//     s encoder calls; docs/segmentation.md measures it beside the others
//     and Chonkie.
//   - [SAGE]: coarse chunks of whole sentences of at most MaxTokens tokens,
//     then inside each a cut between neighbour sentences whose [Scorer] -
//     a small MLP over [x1, x2, x1-x2, x1*x2] trained on Wikipedia to tell
//     consecutive sentences of a paragraph from sentences across a paragraph
//     break - says they do not belong together (score below Threshold).
//     Objective: cut where a reader would start a new paragraph.
//     O(n + s·(d·h)) for h hidden units, plus s encoder calls.
//
// The trained scorers are embedded ([Weights], [LoadScorer]); tools/segtrain
// trains them and docs/segmentation.md measures every method. The package
// has no Weaviate imports: the module serves it at
// POST /v1/modules/diverse-select/segment.
package segment
