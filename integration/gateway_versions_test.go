package integration

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/weaviate/weaviate/entities/models"
	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"

	"github.com/diverse-select/diverse-select/integration/stack"
	"github.com/diverse-select/diverse-select/selectors"
)

// The gateway on more than one Weaviate: the pinned stock build and every
// older stock build in bin/ (make weaviate-stock-old: weaviate-server-v*).
// Each gets the planted corpus - explicit vectors, all distances distinct,
// so that two databases order the pool alike - and the module's server gets
// it too; every built-in strategy through the gateway selects what the
// module selects.

const verClass = "GatewayVersions"

// verDim is the planted vectors' dimension.
const verDim = 24

// verDocs: 30 facts, some with two or three near-copies (small noise, so
// no two vectors are equal), each a sentence of its own.
var verDocs = func() []Doc {
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("statins lower cholesterol heart attack risk muscle pain liver enzyme grapefruit juice diabetes " +
		"exercise diet salt fish oil walking coffee sleep stroke blood pressure doctor trial study adults years weeks")
	var docs []Doc
	for f := range 30 {
		base := make([]float32, verDim)
		for i := range base {
			base[i] = float32(r.NormFloat64())
		}
		var text []string
		for range 12 + f%7 {
			text = append(text, words[r.IntN(len(words))])
		}
		copies := 1 + f%3
		for c := range copies {
			v := make([]float32, verDim)
			for i := range v {
				v[i] = base[i] + float32(0.05*r.NormFloat64())
			}
			body := strings.Join(text, " ")
			if c > 0 {
				body += fmt.Sprintf(" (copy %d)", c)
			}
			docs = append(docs, Doc{Key: fmt.Sprintf("f%d_c%d", f, c), Group: f, Body: body, Vector: v})
		}
	}
	return withNtok(docs)
}()

// verQuery is the planted query vector, as nearVector bytes.
func verQuery() []byte {
	v := make([]float32, verDim)
	for i := range v {
		v[i] = float32(math.Sin(float64(i + 1)))
	}
	return float32Bytes(v)
}

func verClassDef() *models.Class {
	return &models.Class{Class: verClass, Vectorizer: "none", Properties: bodyProps()}
}

// stockServers are the stock builds in bin/: the pinned version's and the
// older ones (weaviate-server-v*), oldest last.
func stockServers(t *testing.T) []string {
	t.Helper()
	root, err := stack.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	old, _ := filepath.Glob(filepath.Join(root, "bin", "weaviate-server-v*"))
	if len(old) == 0 {
		t.Fatal("no older stock Weaviate in bin/: run `make weaviate-stock-old` (make test does)")
	}
	sort.Strings(old)
	out := []string{"weaviate-server-stock"}
	for i := len(old) - 1; i >= 0; i-- {
		out = append(out, filepath.Base(old[i]))
	}
	return out
}

// TestGatewayVersions: the gateway in front of each stock build selects
// what the module selects, for every built-in strategy, over nearVector
// searches (with and without a distance threshold); and a plain search
// passes through.
func TestGatewayVersions(t *testing.T) {
	ensure(t, verClass, func(t testing.TB) {
		c := verClassDef()
		c.ModuleConfig = map[string]any{rerankerName: gwCfg}
		createClass(t, c)
		importDocs(t, verClass, verDocs)
	})
	for _, server := range stockServers(t) {
		t.Run(server, func(t *testing.T) {
			gs := startGatewayStack(t, server, gatewayOptions{server: server, config: map[string]any{verClass: gwCfg}})
			createOn(t, gs.upClient, verClassDef())
			importOn(t, gs.upClient, verClass, verDocs)
			var meta map[string]any
			restJSON(t, "GET", gs.HTTPURL+"/v1/meta", nil, &meta)
			t.Logf("upstream Weaviate %v", meta["version"])
			cases := 0
			for _, s := range selectors.Names() {
				// nearVector only: bm25 scores tie on equal term counts and
				// lengths, and two databases order ties differently.
				for _, search := range []string{"nearVector", "nearVector-distance"} {
					req := verRequest(50, map[string]any{"strategy": s, "tokenBudget": 90}, search)
					want, err := moduleSearch(ctx(t), t, req)
					if err != nil || len(want.Results) == 0 {
						t.Fatalf("%s/%s: module: %v (%d results)", s, search, err, len(want.GetResults()))
					}
					got, err := gs.search(ctx(t), req)
					if err != nil {
						t.Fatalf("%s/%s: gateway: %v\n%s", s, search, err, gs.logTail())
					}
					if d := sameReply(want, got); d != "" {
						t.Errorf("%s/%s: the gateway on %s differs from the module: %s", s, search, meta["version"], d)
					}
					cases++
				}
			}
			plain := verRequest(10, nil, "nearVector")
			plain.Rerank = nil
			a, err := gs.search(ctx(t), plain)
			if err != nil || len(a.Results) != 10 {
				t.Errorf("a plain search through the gateway: %v", err)
			}
			t.Logf("Weaviate %v: gateway == module on %d cases", meta["version"], cases)
		})
	}
}

// verRequest is a selecting request on the planted corpus.
func verRequest(limit int, settings map[string]any, search string) *pb.SearchRequest {
	q := "statins cholesterol heart"
	prop := "body"
	if settings != nil {
		prop = settingsProperty("body", settings)
	}
	req := &pb.SearchRequest{
		Collection: verClass, Limit: uint32(limit),
		Rerank:      &pb.Rerank{Property: prop, Query: &q},
		Properties:  &pb.PropertiesRequest{NonRefProperties: []string{"body", "grp"}},
		Metadata:    &pb.MetadataRequest{Uuid: true, ExplainScore: true, Distance: true, Score: true},
		Uses_123Api: true, Uses_125Api: true, Uses_127Api: true,
	}
	req.NearVector = &pb.NearVector{VectorBytes: verQuery()}
	if search == "nearVector-distance" {
		d := 1.0
		req.NearVector.Distance = &d
	}
	return req
}
