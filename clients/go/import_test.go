package diverseselect

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestImportRequestChecked: a bad request is refused by its field before
// any call (the nil client would panic if one were made).
func TestImportRequestChecked(t *testing.T) {
	doc := Document{ID: "a", Text: "One."}
	for _, tc := range []struct {
		req  ImportRequest
		want string
	}{
		{ImportRequest{Documents: []Document{doc}}, "Collection is empty"},
		{ImportRequest{Collection: "C", BatchSize: 1001, Documents: []Document{doc}}, "BatchSize 1001 is outside [1, 1000]"},
		{ImportRequest{Collection: "C", StartProperty: "text", Documents: []Document{doc}}, "must be four different names"},
		{ImportRequest{Collection: "C", Documents: []Document{{ID: "", Text: "x"}}}, "Documents[0].ID must be a non-empty string of at most 1024 bytes (it has 0)"},
		{ImportRequest{Collection: "C", Documents: []Document{{ID: strings.Repeat("a", 1025), Text: "x"}}}, "(it has 1025)"},
		{ImportRequest{Collection: "C", Documents: []Document{{ID: "a", Text: " "}}}, "Documents[0].Text has no text"},
		{ImportRequest{Collection: "C", Documents: []Document{{ID: "a", Text: "x", Properties: map[string]any{"end": 1}}}}, `Documents[0].Properties sets "end", which the import writes itself`},
		{ImportRequest{Collection: "C", Documents: []Document{doc, doc}}, `Documents[0] and Documents[1] have the same ID "a"`},
	} {
		_, err := ImportDocuments(context.Background(), nil, nil, tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.req, err, tc.want)
		}
	}
}

// TestChunkID: a uuid5 of the collection, the source id and the range, the
// Python helper's chunk_uuid("Docs", "a", 0, 10).
func TestChunkID(t *testing.T) {
	id := ChunkID("Docs", "a", 0, 10)
	if id != "5403cb8d-9ec3-505e-bce5-12083739e086" { // clients/python/tests/test_import.py's
		t.Errorf("ChunkID: %s, the Python helper's 5403cb8d-9ec3-505e-bce5-12083739e086", id)
	}
	if u := uuid.MustParse(id); u.Version() != 5 {
		t.Errorf("%s: version %d", id, u.Version())
	}
	for _, other := range []string{ChunkID("Docs", "a", 0, 11), ChunkID("Docs", "b", 0, 10), ChunkID("Other", "a", 0, 10)} {
		if other == id {
			t.Errorf("%s is the id of another chunk", id)
		}
	}
}
