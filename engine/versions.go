package engine

import "github.com/weaviate/weaviate/entities/search"

// Versions. The module reads some objects again by id after the search -
// the deferred properties and vectors (deferred.go) - and an object can be written in
// between. The search's filter (where) matched the version it returned, not
// the one read later: a write can make an object fail the filter (a
// visibility property, say), so after a filtered search a changed object is
// dropped rather than returned. Without a filter the newer version is what
// the same search would return now; it is used, under its own update time
// and doc id, so the feature cache keys what was read.

// sameVersion: read is the version of the object the search returned as
// res - the same id, update time and (when both name it) doc id. Weaviate
// keeps the doc id when only properties change, so the update time is what
// tells such versions apart (see featureSource.key for the writes that share
// a millisecond).
func sameVersion(res, read search.Result) bool {
	if read.ID != res.ID || read.Updated != res.Updated {
		return false
	}
	return res.DocID == nil || read.DocID == nil || *res.DocID == *read.DocID
}

// takeVersion makes read, the object res read again by id, stand in for
// res when it may: the same object, and the version the search returned or,
// after a search without a filter, any newer one, whose update time and doc
// id res then takes. It reports whether read stands in.
func takeVersion(filtered bool, res *search.Result, read search.Result) bool {
	switch {
	case read.ID != res.ID:
		return false // deleted since the search
	case sameVersion(*res, read):
		return true
	case filtered:
		return false
	}
	res.Updated, res.DocID = read.Updated, read.DocID
	return true
}
