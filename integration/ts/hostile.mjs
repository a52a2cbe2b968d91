// One hostile query through the official TypeScript client (gRPC), run by
// integration/hostile_test.go: HOSTILE_COLLECTION, HOSTILE_KIND and
// HOSTILE_SIZE pick the query. It prints one JSON line, {"ok", "n",
// "error"}, and exits 0 whatever the server answered; a failure to connect
// is an error too, which the Go test reports.
import weaviate from 'weaviate-client';

const size = Number(process.env.HOSTILE_SIZE);
const queries = {
  // The query of the hostile-input issue: settings nested size brackets deep.
  brackets: () => 'diverseSelect(strategy: ' + '['.repeat(size) + '): solar',
  // A question of size bytes of plain words, no settings.
  words: () => 'solar panels '.repeat(Math.ceil(size / 13)).slice(0, size),
};

const client = await weaviate.connectToLocal({
  host: '127.0.0.1',
  port: Number(process.env.WEAVIATE_HTTP_PORT),
  grpcPort: Number(process.env.WEAVIATE_GRPC_PORT),
});
let out;
try {
  const res = await client.collections.get(process.env.HOSTILE_COLLECTION).query.nearText('solar panels', {
    limit: 20,
    rerank: { property: 'body', query: queries[process.env.HOSTILE_KIND]() },
  });
  out = { ok: true, n: res.objects.length };
} catch (e) {
  out = { ok: false, error: String(e?.message ?? e).slice(0, 2000) };
} finally {
  await client.close();
}
console.log(JSON.stringify(out));
