package diverseselect

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v5/weaviate"
	"github.com/weaviate/weaviate-go-client/v5/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// Segment at import, as the Python helper's import_documents
// (docs/segmentation.md): each document is cut on the segment endpoint and
// its chunks are written with the caller's own client, under ids that are a
// uuid5 of the collection, the source id and the byte range, so a retry
// writes the same objects; a document's chunks the new cut does not hold
// are deleted first, so a re-import converges; a document with a refused
// chunk loses all its chunks, so none is left half written.

// importNamespace is the uuid5 namespace of the chunks' ids (the Python
// helper's too: the same document gets the same ids from either).
var importNamespace = uuid.MustParse("6f1d0c9e-4b7a-5e3f-9a51-2d8c7e0b4f16")

// MaxSourceIDBytes bounds a document's id: a property value and part of
// every chunk's id.
const MaxSourceIDBytes = 1024

// Document is one document to import: ID is its source id, Text the text to
// cut, Properties copied onto each of its chunks.
type Document struct {
	ID         string
	Text       string
	Properties map[string]any
}

// ImportRequest is an import: Documents into Collection (and Tenant), cut
// by Segment's settings (its Texts and Collection are set here). The
// property names default to text, source_id, start and end; BatchSize
// (default 100, at most 1000) is the chunks of one batch request.
type ImportRequest struct {
	Collection, Tenant                                       string
	Documents                                                []Document
	Segment                                                  SegmentRequest
	TextProperty, SourceProperty, StartProperty, EndProperty string
	BatchSize                                                int
}

// ChunkFailure is a document's first refused chunk: its byte range and the
// server's message.
type ChunkFailure struct {
	Start, End int
	Message    string
}

// ImportError says which documents were not imported (none of them has a
// chunk left) and which were (their chunks' ids).
type ImportError struct {
	Failures map[string]ChunkFailure
	Imported map[string][]string
}

func (e *ImportError) Error() string {
	ids := make([]string, 0, len(e.Failures))
	for id := range e.Failures {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	f := e.Failures[ids[0]]
	more := ""
	if len(ids) > 1 {
		more = fmt.Sprintf(" (and %d more documents)", len(ids)-1)
	}
	return fmt.Sprintf("import documents: document %q: chunk [%d, %d) was refused: %s; the document's chunks were removed%s", ids[0], f.Start, f.End, f.Message, more)
}

// ChunkID is the id of the chunk [start, end) (UTF-8 bytes) of document
// sourceID in collection.
func ChunkID(collection, sourceID string, start, end int) string {
	return uuid.NewSHA1(importNamespace, fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d", collection, sourceID, start, end)).String()
}

// textsPerRequest and bytesPerRequest keep a segment request well under the
// endpoint's default limits (64 texts, 1 MiB).
const (
	textsPerRequest = 16
	bytesPerRequest = 512 << 10
)

// ImportDocuments cuts req.Documents on the segment endpoint seg (the
// module's Weaviate or the gateway: a *connection.Connection) and writes
// their chunks with client. It returns each document's chunk ids in text
// order, or an *ImportError naming the documents left out.
func ImportDocuments(ctx context.Context, client *weaviate.Client, seg RESTRunner, req ImportRequest) (map[string][]string, error) {
	if err := req.check(); err != nil {
		return nil, err
	}
	if err := req.checkSource(ctx, client); err != nil {
		return nil, err
	}
	// Cut every text first: a refused segment request writes nothing.
	var cuts [][]Chunk
	for i := 0; i < len(req.Documents); {
		j, size := i, 0
		for j < len(req.Documents) && j-i < textsPerRequest && (j == i || size+len(req.Documents[j].Text) <= bytesPerRequest) {
			size += len(req.Documents[j].Text)
			j++
		}
		sr := req.Segment
		sr.Collection, sr.Texts = req.Collection, nil
		for _, d := range req.Documents[i:j] {
			sr.Texts = append(sr.Texts, d.Text)
		}
		res, err := Segment(ctx, seg, sr)
		if err != nil {
			return nil, fmt.Errorf("import documents: %w", err)
		}
		if len(res.Results) != j-i {
			return nil, fmt.Errorf("import documents: the server cut %d texts, %d were sent", len(res.Results), j-i)
		}
		for _, r := range res.Results {
			cuts = append(cuts, r.Chunks)
		}
		i = j
	}

	type pending struct {
		source     string
		start, end int
		obj        *models.Object
	}
	ids := map[string][]string{}
	var objects []pending
	for k, d := range req.Documents {
		for _, c := range cuts[k] {
			ids[d.ID] = append(ids[d.ID], ChunkID(req.Collection, d.ID, c.Start, c.End))
		}
		// A re-import converges: the document's chunks the new cut does not hold go first.
		stale := filters.Where().WithPath([]string{req.SourceProperty}).WithOperator(filters.Equal).WithValueText(d.ID)
		if len(ids[d.ID]) > 0 {
			stale = filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{stale,
				filters.Where().WithPath([]string{"id"}).WithOperator(filters.ContainsNone).WithValueText(ids[d.ID]...)})
		}
		if err := req.deleteWhere(ctx, client, stale); err != nil {
			return nil, fmt.Errorf("import documents: document %q: delete the chunks of its previous cut: %w", d.ID, err)
		}
		for n, c := range cuts[k] {
			props := map[string]any{}
			for key, v := range d.Properties {
				props[key] = v
			}
			props[req.TextProperty], props[req.SourceProperty] = c.Text, d.ID
			props[req.StartProperty], props[req.EndProperty] = c.Start, c.End
			objects = append(objects, pending{d.ID, c.Start, c.End, &models.Object{Class: req.Collection, Tenant: req.Tenant,
				ID: strfmt.UUID(ids[d.ID][n]), Properties: props}})
		}
	}

	failures := map[string]ChunkFailure{}
	fail := func(p pending, msg string) {
		if _, ok := failures[p.source]; !ok {
			failures[p.source] = ChunkFailure{p.start, p.end, msg}
		}
	}
	for k := 0; k < len(objects); k += req.BatchSize {
		part := objects[k:min(k+req.BatchSize, len(objects))]
		batch := client.Batch().ObjectsBatcher()
		for _, p := range part {
			batch = batch.WithObjects(p.obj)
		}
		res, err := batch.Do(ctx)
		if err != nil {
			for _, p := range part {
				fail(p, err.Error())
			}
			continue
		}
		refused := map[strfmt.UUID]string{}
		for _, r := range res {
			if r.Result != nil && r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				refused[r.ID] = r.Result.Errors.Error[0].Message
			}
		}
		for _, p := range part {
			if msg, ok := refused[p.obj.ID]; ok {
				fail(p, msg)
			}
		}
	}
	if len(failures) == 0 {
		return ids, nil
	}
	// No partial document: a document with a refused chunk loses all of them.
	for source := range failures {
		where := filters.Where().WithPath([]string{req.SourceProperty}).WithOperator(filters.Equal).WithValueText(source)
		if err := req.deleteWhere(ctx, client, where); err != nil {
			return nil, fmt.Errorf("import documents: document %q: a chunk was refused (%s) and its chunks could not be removed: %w", source, failures[source].Message, err)
		}
		delete(ids, source)
	}
	return nil, &ImportError{Failures: failures, Imported: ids}
}

// check fills the defaults and refuses a bad request by its field.
func (req *ImportRequest) check() error {
	if req.Collection == "" {
		return fmt.Errorf("import documents: Collection is empty")
	}
	if req.BatchSize == 0 {
		req.BatchSize = 100
	}
	if req.BatchSize < 1 || req.BatchSize > 1000 {
		return fmt.Errorf("import documents: BatchSize %d is outside [1, 1000]", req.BatchSize)
	}
	names := []*string{&req.TextProperty, &req.SourceProperty, &req.StartProperty, &req.EndProperty}
	seen := map[string]bool{}
	for i, def := range []string{"text", "source_id", "start", "end"} {
		if *names[i] == "" {
			*names[i] = def
		}
		seen[*names[i]] = true
	}
	if len(seen) != len(names) {
		return fmt.Errorf("import documents: TextProperty, SourceProperty, StartProperty and EndProperty must be four different names, not %s", strings.Join([]string{req.TextProperty, req.SourceProperty, req.StartProperty, req.EndProperty}, ", "))
	}
	at := map[string]int{}
	for i, d := range req.Documents {
		if d.ID == "" || len(d.ID) > MaxSourceIDBytes {
			return fmt.Errorf("import documents: Documents[%d].ID must be a non-empty string of at most %d bytes (it has %d)", i, MaxSourceIDBytes, len(d.ID))
		}
		if strings.TrimSpace(d.Text) == "" {
			return fmt.Errorf("import documents: Documents[%d].Text has no text", i)
		}
		for key := range d.Properties {
			if seen[key] {
				return fmt.Errorf("import documents: Documents[%d].Properties sets %q, which the import writes itself", i, key)
			}
		}
		if j, ok := at[d.ID]; ok {
			return fmt.Errorf("import documents: Documents[%d] and Documents[%d] have the same ID %q", j, i, d.ID)
		}
		at[d.ID] = i
	}
	return nil
}

// checkSource refuses a source property that is not text with field
// tokenization: the import finds a document's chunks by equality on it, and
// word tokenization makes "doc 1" equal "doc 1 2" (and "a" a stopword no
// filter may hold).
func (req *ImportRequest) checkSource(ctx context.Context, client *weaviate.Client) error {
	class, err := client.Schema().ClassGetter().WithClassName(req.Collection).Do(ctx)
	if err != nil {
		return fmt.Errorf("import documents: read collection %q: %w", req.Collection, err)
	}
	found := "missing"
	for _, p := range class.Properties {
		if p.Name == req.SourceProperty {
			if len(p.DataType) == 1 && p.DataType[0] == "text" && p.Tokenization == "field" {
				return nil
			}
			found = fmt.Sprintf("%s with tokenization %s", strings.Join(p.DataType, ","), p.Tokenization)
		}
	}
	return fmt.Errorf("import documents: the property %q of collection %q must be text with tokenization field (it is %s): the import finds a document's chunks by equality on it", req.SourceProperty, req.Collection, found)
}

// deleteWhere deletes the collection's objects that match where.
func (req *ImportRequest) deleteWhere(ctx context.Context, client *weaviate.Client, where *filters.WhereBuilder) error {
	d := client.Batch().ObjectsBatchDeleter().WithClassName(req.Collection).WithWhere(where)
	if req.Tenant != "" {
		d = d.WithTenant(req.Tenant)
	}
	res, err := d.Do(ctx)
	if err != nil {
		return err
	}
	if res != nil && res.Results != nil && res.Results.Failed > 0 {
		return fmt.Errorf("%d objects were not deleted", res.Results.Failed)
	}
	return nil
}
