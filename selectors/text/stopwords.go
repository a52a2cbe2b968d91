package text

// stopwords is our English stopword list: articles, pronouns, auxiliaries,
// prepositions, conjunctions and the most frequent adverbs and
// determiners, all lower-case. Contractions appear without their
// apostrophe parts because the tokenizer splits at apostrophes ("don't" ->
// "don", "t"); single letters are dropped by the length rule anyway.
var stopwords = func() map[string]struct{} {
	words := []string{
		"a", "about", "above", "after", "again", "against", "all", "also", "am", "an",
		"and", "any", "are", "aren", "as", "at", "be", "because", "been", "before",
		"being", "below", "between", "both", "but", "by", "can", "cannot", "could", "couldn",
		"did", "didn", "do", "does", "doesn", "doing", "don", "down", "during", "each",
		"either", "else", "ever", "few", "for", "from", "further", "had", "hadn", "has",
		"hasn", "have", "haven", "having", "he", "her", "here", "hers", "herself", "him",
		"himself", "his", "how", "however", "i", "if", "in", "into", "is", "isn",
		"it", "its", "itself", "just", "ll", "may", "me", "might", "more", "most",
		"must", "mustn", "my", "myself", "neither", "no", "nor", "not", "now", "of",
		"off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves",
		"out", "over", "own", "re", "same", "shall", "shan", "she", "should", "shouldn",
		"so", "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves",
		"then", "there", "these", "they", "this", "those", "through", "thus", "to", "too",
		"under", "until", "up", "upon", "us", "ve", "very", "was", "wasn", "we",
		"were", "weren", "what", "when", "where", "whether", "which", "while", "who", "whom",
		"whose", "why", "will", "with", "within", "without", "won", "would", "wouldn", "yet",
		"you", "your", "yours", "yourself", "yourselves",
	}
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// IsStopword reports whether the lower-cased word w is on the English stopword list.
func IsStopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// StopwordCount is the size of the stopword list (for documentation and tests).
func StopwordCount() int { return len(stopwords) }
