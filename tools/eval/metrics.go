package main

// Metrics over one selection. A candidate's labels are the gold units it
// carries: for HotpotQA one label per supporting paragraph, for Perspectrum
// the perspective clusters of the claim it belongs to, for PIR the root's
// perspectives it is gold for. A candidate with no label is a distractor.

// labelsHit counts the distinct labels carried by the selected candidates.
func labelsHit(sel []int, labels [][]int) int {
	seen := map[int]bool{}
	for _, i := range sel {
		for _, l := range labels[i] {
			seen[l] = true
		}
	}
	return len(seen)
}

// distractors counts the selected candidates that carry no label.
func distractors(sel []int, labels [][]int) int {
	n := 0
	for _, i := range sel {
		if len(labels[i]) == 0 {
			n++
		}
	}
	return n
}

// allHit is 1 when every one of nLabels labels is selected (HotpotQA: both
// supporting paragraphs), else 0.
func allHit(sel []int, labels [][]int, nLabels int) float64 {
	if nLabels > 0 && labelsHit(sel, labels) == nLabels {
		return 1
	}
	return 0
}

// recall is the share of the nLabels labels that are selected.
func recall(sel []int, labels [][]int, nLabels int) float64 {
	if nLabels == 0 {
		return 0
	}
	return float64(labelsHit(sel, labels)) / float64(nLabels)
}

// coverageAtK is the share of labels covered out of min(k, nLabels), the
// most k single-label items could cover (Perspectrum cluster coverage). A
// candidate in two clusters could push it past 1; it is capped there.
func coverageAtK(sel []int, labels [][]int, nLabels, k int) float64 {
	d := min(k, nLabels)
	if d <= 0 {
		return 0
	}
	return min(1, float64(labelsHit(sel, labels))/float64(d))
}
