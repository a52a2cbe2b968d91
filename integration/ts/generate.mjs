// RAG in one query through the official TypeScript client (weaviate-client):
// collection.generate.nearText with rerank, on collections whose reranker is
// reranker-diverse-select, so Weaviate's generate gets the diverse selection.
// Run by integration/generate_test.go (TestRAGGenerateTypeScript), which
// starts the server and the OpenAI recorder, creates the collections, and
// checks every reply this script prints against the selection and what the
// LLM was sent. Environment: WEAVIATE_HTTP_PORT, WEAVIATE_GRPC_PORT,
// RAG_COLLECTIONS (comma-separated), RAG_RUNS, RAG_POOL.
// Output: one JSON line per query {collection, tag, bodies, grouped, singles},
// then {readme: {bodies, grouped}} for a query on 'Article' with the
// collection's own settings (docs/rag.md's programs run as written in
// integration/snippets_test.go).
import weaviate from 'weaviate-client';

const client = await weaviate.connectToLocal({
  host: '127.0.0.1',
  port: Number(process.env.WEAVIATE_HTTP_PORT),
  grpcPort: Number(process.env.WEAVIATE_GRPC_PORT),
});
const emit = (line) => process.stdout.write(JSON.stringify(line) + '\n');

try {
  const query = 'statins cholesterol heart';
  for (const name of process.env.RAG_COLLECTIONS.split(',')) {
    const collection = client.collections.get(name);
    for (let run = 0; run < Number(process.env.RAG_RUNS); run++) {
      const tag = `ts-${run}`;
      const res = await collection.generate.nearText(
        query,
        {
          singlePrompt: `(${tag}) Summarise: {body}`,
          groupedTask: `Answer from these chunks (${tag})`,
          groupedProperties: ['body'],
        },
        { limit: Number(process.env.RAG_POOL), rerank: { property: 'body', query } },
      );
      emit({
        collection: name,
        tag,
        bodies: res.objects.map((o) => o.properties.body),
        grouped: res.generative?.text ?? null,
        singles: res.objects.map((o) => o.generative?.text ?? null),
      });
    }
  }

  const articles = client.collections.get('Article');
  const question = 'statins cholesterol heart';
  const answer = await articles.generate.nearText(
    question,
    { groupedTask: `Answer "${question}" from these chunks only.`, groupedProperties: ['body'] },
    { limit: 40, rerank: { property: 'body', query: question } }, // 40 candidates, the diverse selection goes to the LLM
  );
  emit({ readme: { bodies: answer.objects.map((o) => o.properties.body), grouped: answer.generative?.text ?? null } });
} finally {
  await client.close();
}
