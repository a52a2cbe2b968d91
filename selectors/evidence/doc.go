// Package evidence compresses a selected chunk into an evidence card: its
// few sentences that share the most (idf-weighted, stemmed) terms with the
// query, kept in text order and within a word limit. It is the rule-based
// compression step of the TREC RAG 2025 answer-generation system whose
// selection step is the ngram strategy: the generator then reads the cards,
// so a 120-token chunk whose useful part is one 25-token sentence costs 25.
//
// The package has no Weaviate imports, like the rest of selectors.
package evidence
