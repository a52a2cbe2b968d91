package main

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// otherTokens is the tokens the selection spends on candidates of other
// questions (instance.Other).
func otherTokens(sel []int, in *instance) int {
	n := 0
	for _, i := range sel {
		if in.Other != nil && in.Other[i] {
			n += in.Cands[i].Tokens
		}
	}
	return n
}

// otherAhead is 1 when the selection holds a candidate of another question
// while a candidate of the question's own is left out that would fit the
// constraint in its place (the budget, or K), else 0: the off-topic chunk
// was preferred to one of the question's own.
func otherAhead(sel []int, in *instance, c constraint) float64 {
	if in.Other == nil {
		return 0
	}
	picked := make([]bool, len(in.Cands))
	used := 0
	for _, i := range sel {
		picked[i] = true
		used += in.Cands[i].Tokens
	}
	for _, d := range sel {
		if !in.Other[d] {
			continue
		}
		for u := range in.Cands {
			if !picked[u] && !in.Other[u] && (c.Budget <= 0 || used-in.Cands[d].Tokens+in.Cands[u].Tokens <= c.Budget) {
				return 1
			}
		}
	}
	return 0
}

// answerIn is 1 when one of the instance's answers occurs in the selected
// text (case folded, as a whole word sequence), 0 when none does, and NaN
// (not counted in means) when no candidate of the pool holds an answer:
// a yes/no answer or one the paragraphs phrase otherwise. On a mixed pool
// only the question's own paragraphs count.
func answerIn(sel []int, in *instance) float64 {
	inPool := false
	for i := range in.Cands {
		if in.Other != nil && in.Other[i] {
			continue
		}
		if answerOccurs(in.Cands[i].Text, in.Answers) {
			inPool = true
			break
		}
	}
	if !inPool {
		return math.NaN()
	}
	for _, i := range sel {
		if (in.Other == nil || !in.Other[i]) && answerOccurs(in.Cands[i].Text, in.Answers) {
			return 1
		}
	}
	return 0
}

// answerOccurs reports whether text holds one of answers, case folded,
// not inside a longer word or number ("35" is not in "1935").
func answerOccurs(text string, answers []string) bool {
	t := strings.ToLower(text)
	for _, a := range answers {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == "" {
			continue
		}
		for from := 0; ; {
			k := strings.Index(t[from:], a)
			if k < 0 {
				break
			}
			k += from
			before, _ := utf8.DecodeLastRuneInString(t[:k])
			after, _ := utf8.DecodeRuneInString(t[k+len(a):])
			if !wordRune(before) && !wordRune(after) {
				return true
			}
			from = k + 1
		}
	}
	return false
}

func wordRune(r rune) bool { return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r)) }
