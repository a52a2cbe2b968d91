package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// segLeanPeerDocs is the held-out documents Chonkie's semantic chunker cuts
// in the lean measurement: it embeds its own sentences, windows and groups,
// about 50 new texts a document, which the neural encoder takes an hour
// for over all of them on a shared 2-core machine.
const segLeanPeerDocs = 80

// runSegmentLean (-mode segment-lean, make eval-segment-lean) is the part of
// the segmentation measurement a shared machine finishes in minutes with the
// neural encoder: per encoder, the change point and SAGE's scorer on every
// held-out document with and without the 128-token cap (beside the true
// boundaries), Chonkie's semantic chunker (its GloVe-SIF threshold, 0.50)
// beside them on the first segLeanPeerDocs, and HotpotQA's all-gold against
// the paragraphs as given. It prints the tables and writes them into the
// document's lean block; the full measurement is make eval-segment.
func runSegmentLean(ctx context.Context, o options, w io.Writer, minilm bool) error {
	counter, _, docs, truth, err := loadHeldOutSegments(o.dataDir)
	if err != nil {
		return err
	}
	encs, err := segEncoders(o, "", minilm)
	if err != nil {
		return err
	}
	var texts []string
	for _, d := range docs {
		texts = append(texts, d.Text)
	}
	qs, err := loadMultiHop(o.dataDir + "/" + multiHopSets[0].File)
	if err != nil {
		return err
	}
	for _, q := range qs {
		texts = append(texts, contextDoc(q).text)
	}
	var b, doc bytes.Buffer
	flush := func() {
		fmt.Fprint(w, b.String())
		doc.Write(b.Bytes())
		b.Reset()
	}
	head := []string{"chunker", "Pk (lower is better)", "WindowDiff (lower is better)", "boundary precision", "boundary recall", "boundary F1", "chunks per document", "mean chunk tokens", "chunks out of bounds"}
	for _, e := range encs {
		if err := prefill(ctx, e, texts); err != nil {
			return err
		}
		for _, size := range []int{segFree, segSize} {
			all, err := segChunkers(o, e, counter, size, 0.5)
			if err != nil {
				return err
			}
			ours := []namedChunker{all[2], all[4], {"the true boundaries, each paragraph packed (reference)", oracle{truth, size, counter}}}
			fmt.Fprintf(&b, "### %s, at most %d tokens a chunk, all %d held-out documents\n\n", encoderLabel(e.name), size, len(docs))
			rows, err := boundaryRows(ctx, ours, docs, counter, size)
			if err != nil {
				return err
			}
			table(&b, head, rows)
			fmt.Fprintf(&b, "### %s, at most %d tokens a chunk, the first %d held-out documents\n\n", encoderLabel(e.name), size, segLeanPeerDocs)
			if rows, err = boundaryRows(ctx, []namedChunker{all[0], all[2], all[4]}, docs[:segLeanPeerDocs], counter, size); err != nil {
				return err
			}
			table(&b, head, rows)
			flush()
		}
		all, err := segChunkers(o, e, counter, segSize, 0.5)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "### Downstream, HotpotQA, %s\n\n", encoderLabel(e.name))
		if err := downstream(ctx, &b, o, multiHopSets[0], e, []namedChunker{all[2], all[4]}, counter); err != nil {
			return err
		}
		flush()
	}
	if o.print {
		return nil
	}
	return splice(o.doc, segLeanBegin, segLeanEnd, doc.String())
}

const (
	segLeanBegin = "<!-- BEGIN make eval-segment-lean -->"
	segLeanEnd   = "<!-- END make eval-segment-lean -->"
)
