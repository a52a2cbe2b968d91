package engine

import (
	"context"

	"github.com/weaviate/weaviate/entities/additional"
	"github.com/weaviate/weaviate/entities/models"
	"github.com/weaviate/weaviate/entities/modulecapabilities"
	"github.com/weaviate/weaviate/entities/multi"
	"github.com/weaviate/weaviate/entities/search"
)

// The names Weaviate and the modules know each other by, and what the
// modules use of the running Weaviate: the ground every other file stands on.

// Name is the module's name in ENABLE_MODULES and in a class's moduleConfig.
const Name = "diverse-select"

// ArgName is the GraphQL name of the argument and of the additional field.
const ArgName = "diverseSelect"

// Version is reported in /v1/meta.
const Version = "0.1.0"

// ModuleType is a type of our own: Weaviate exposes a non-vectorizer module on
// every class when it is the only module of its type, which is what a
// post-processor wants (a reranker type would be hidden on classes that do not
// configure it).
const ModuleType = modulecapabilities.ModuleType("Text2TextSelection")

// RerankerName is the reranker-typed module that makes diverse selection
// reachable over gRPC: the official clients (Python v4, TypeScript v3, Go,
// Java, C#) query over gRPC, whose SearchRequest has no slot for module
// arguments but does carry `rerank {property, query}`. A collection that
// configures this module as its reranker gets diverse selection from that
// field, with strategy, budget and parameters from its moduleConfig.
const RerankerName = "reranker-diverse-select"

// RerankProperty is the additional property (and GraphQL field) every
// Weaviate reranker provides; the gRPC parser fills it from SearchRequest.rerank.
const RerankProperty = "rerank"

// ClassByName reads a class from the schema.
type ClassByName func(name string) *models.Class

// MultiGetFunc loads objects by id from a tenant: Weaviate's DB.MultiGet.
type MultiGetFunc func(ctx context.Context, ids []multi.Identifier, addl additional.Properties, tenant string) ([]search.Result, error)
