package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"

	"github.com/weaviate/weaviate/entities/models"

	"github.com/diverse-select/diverse-select/engine"
)

// A collection's defaults kept in its own schema. Stock Weaviate refuses a
// moduleConfig naming a module it does not run ("module with name
// reranker-diverse-select doesn't exist"), so a create or update through
// the gateway takes the module's entries out of moduleConfig, checks them
// as the module's server does, and keeps them at the end of the class's
// description - a field stock Weaviate stores as sent and reads back as it
// is, through REST and gRPC alike - behind storedMark:
//
//	<the description sent>\n\n[diverse-select moduleConfig, kept by the gateway] {"reranker-diverse-select":{"tokenBudget":600}}
//
// The gateway's schema reads (GET /v1/schema, GET /v1/schema/{class}, and
// the answers to a create or update) take them out of the description
// again and put them back into moduleConfig: a client reading through the
// gateway sees the moduleConfig it sent. Every gateway on the same upstream
// reads them from there (classes.go's schema read), with no store of its
// own; the config file, when it names the collection, wins.

// storedMark starts the kept entries in a class's description.
const storedMark = "[diverse-select moduleConfig, kept by the gateway] "

// keptModules are the moduleConfig entries the gateway keeps.
var keptModules = []string{engine.RerankerName, engine.Name}

// splitStored is a description without the kept entries, and the entries
// (ok false: none, or not the gateway's JSON).
func splitStored(desc string) (plain string, kept map[string]any, ok bool) {
	i := strings.LastIndex(desc, storedMark)
	if i < 0 {
		return desc, nil, false
	}
	if err := json.Unmarshal([]byte(desc[i+len(storedMark):]), &kept); err != nil || kept == nil {
		return desc, nil, false
	}
	return strings.TrimSuffix(desc[:i], "\n\n"), kept, true
}

// joinStored is the description stock Weaviate keeps for plain and kept.
func joinStored(plain string, kept map[string]any) (string, error) {
	b, err := json.Marshal(kept)
	if err != nil {
		return "", err
	}
	if plain != "" {
		plain += "\n\n"
	}
	return plain + storedMark + string(b), nil
}

// collectionDefaults is a collection's selection defaults: the config
// file's when it names the collection, else those kept in its schema by a
// create through a gateway (nil: neither).
func (g *Gateway) collectionDefaults(ctx context.Context, collection string) map[string]any {
	if d := g.config.Load().defaults(collection); d != nil {
		return d
	}
	ctx, cancel := context.WithTimeout(ctx, g.opts.UpstreamTimeout)
	defer cancel()
	class, err := g.classes.get(ctx, collection)
	if err != nil || class == nil {
		return nil // the search goes on without; the upstream answers for the schema
	}
	_, kept, ok := splitStored(class.Description)
	if !ok {
		return nil
	}
	d, _ := kept[engine.RerankerName].(map[string]any)
	return d
}

// schemaRoutes registers the schema calls the gateway rewrites; every
// other REST call passes through unchanged.
func (g *Gateway) schemaRoutes(mux *http.ServeMux) {
	p := g.schemaProxy()
	write := func(w http.ResponseWriter, r *http.Request) { g.schemaWrite(w, r, p) }
	mux.HandleFunc("POST /v1/schema", write)
	mux.HandleFunc("PUT /v1/schema/{class}", write)
	mux.HandleFunc("DELETE /v1/schema/{class}", func(w http.ResponseWriter, r *http.Request) {
		p.ServeHTTP(w, r)
		g.classes.forget(r.PathValue("class"))
	})
	mux.Handle("GET /v1/schema", p)
	mux.Handle("GET /v1/schema/{class}", p)
}

// forget drops the schemas kept of a collection (every caller's): the
// gateway that changed it reads the new one at once (another replica
// within its SchemaTTL).
func (c *classes) forget(name string) {
	for k := range c.cache.Keys() {
		if strings.EqualFold(k.name, name) {
			c.cache.Invalidate(k)
		}
	}
}

// schemaProxy passes a schema call upstream and puts the kept entries of
// each class in its answer back into moduleConfig.
func (g *Gateway) schemaProxy() *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			g.http.Rewrite(r)
			r.Out.Header.Del("Accept-Encoding") // the answer is rewritten: plain JSON
		},
		Transport:      g.http.Transport,
		ModifyResponse: restoreSchema,
	}
}

// restoreSchema rewrites an upstream schema answer (one class, or
// {"classes": [...]}) as the client sent the classes.
func restoreSchema(resp *http.Response) error {
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" || resp.Request.Method == http.MethodHead {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxSchemaBytes+1))
	resp.Body.Close()
	if err != nil {
		return err
	}
	out := body
	var doc map[string]any
	if len(body) <= maxSchemaBytes && decodeJSON(body, &doc) == nil && doc != nil {
		changed := false
		if list, ok := doc["classes"].([]any); ok {
			for _, c := range list {
				if m, ok := c.(map[string]any); ok && restoreClass(m) {
					changed = true
				}
			}
		} else if _, ok := doc["class"]; ok {
			changed = restoreClass(doc)
		}
		if changed {
			if b, err := json.Marshal(doc); err == nil {
				out = b
			}
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(out))
	resp.ContentLength = int64(len(out))
	resp.Header.Set("Content-Length", strconv.Itoa(len(out)))
	return nil
}

// restoreClass moves a class's kept entries from its description back into
// its moduleConfig; false when it keeps none.
func restoreClass(class map[string]any) bool {
	desc, _ := class["description"].(string)
	plain, kept, ok := splitStored(desc)
	if !ok {
		return false
	}
	if plain == "" {
		delete(class, "description")
	} else {
		class["description"] = plain
	}
	mc, _ := class["moduleConfig"].(map[string]any)
	if mc == nil {
		mc = map[string]any{}
	}
	for name, v := range kept {
		mc[name] = v
	}
	class["moduleConfig"] = mc
	return true
}

// schemaWrite is a create (POST /v1/schema) or update (PUT
// /v1/schema/{class}): the module's moduleConfig entries are checked as
// the module checks them, a bad one refused with 422 naming the key, and
// kept in the description sent upstream. A call without them passes as
// sent.
func (g *Gateway) schemaWrite(w http.ResponseWriter, r *http.Request, p *httputil.ReverseProxy) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxSchemaBytes+1))
	r.Body.Close()
	if err != nil {
		schemaRefuse(w, http.StatusBadRequest, fmt.Sprintf("gateway: read the request: %v", err))
		return
	}
	if len(body) > maxSchemaBytes {
		schemaRefuse(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("gateway: a class definition of over %d bytes", maxSchemaBytes))
		return
	}
	out, status, err := g.keepModuleConfig(body)
	if err != nil {
		schemaRefuse(w, status, "gateway: "+err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(out))
	r.ContentLength = int64(len(out))
	r.Header.Set("Content-Length", strconv.Itoa(len(out)))
	p.ServeHTTP(w, r)
	if name := r.PathValue("class"); name != "" {
		g.classes.forget(name)
	} else if name := className(out); name != "" {
		g.classes.forget(name)
	}
}

// className is the class a create names ("" when it is not one).
func className(body []byte) string {
	var c struct {
		Class string `json:"class"`
	}
	_ = json.Unmarshal(body, &c)
	return c.Class
}

// keepModuleConfig is a class definition with the module's entries moved
// from moduleConfig into the description, after the module's checks; the
// body as it is when it names none or is not a class (the upstream
// answers it).
func (g *Gateway) keepModuleConfig(body []byte) ([]byte, int, error) {
	var doc map[string]any
	if decodeJSON(body, &doc) != nil || doc == nil {
		return body, 0, nil
	}
	mc, _ := doc["moduleConfig"].(map[string]any)
	kept := map[string]any{}
	for _, name := range keptModules {
		v, ok := mc[name]
		if !ok {
			continue
		}
		if _, isObj := v.(map[string]any); !isObj {
			return nil, http.StatusUnprocessableEntity, fmt.Errorf("moduleConfig.%s: want an object of settings (e.g. {\"tokenBudget\": 1500}), got %s", name, compactJSON(v))
		}
		kept[name] = v
		delete(mc, name)
	}
	if len(kept) == 0 {
		return body, 0, nil
	}
	var class models.Class
	if err := json.Unmarshal(body, &class); err != nil {
		return body, 0, nil // not a class Weaviate reads: it answers
	}
	if err := g.engine.ValidateCreate(&class); err != nil {
		return nil, http.StatusUnprocessableEntity, fmt.Errorf("collection %s: %w", class.Class, err)
	}
	desc, _ := doc["description"].(string)
	plain, _, _ := splitStored(desc)
	desc, err := joinStored(plain, kept)
	if err != nil {
		return nil, http.StatusUnprocessableEntity, err
	}
	doc["description"] = desc
	if len(mc) == 0 {
		delete(doc, "moduleConfig")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, http.StatusUnprocessableEntity, err
	}
	return out, 0, nil
}

// decodeJSON decodes b keeping numbers as written.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func compactJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// schemaRefuse answers in Weaviate's error shape.
func schemaRefuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": []map[string]string{{"message": msg}}})
}
