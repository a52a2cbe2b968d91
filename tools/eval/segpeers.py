"""The peers of make eval-segment (tools/eval -mode segment), run by the Go evaluation.

Reads one JSON job on stdin and writes one JSON answer on stdout:

- {"job": "pysbd", "texts": [...]}: each text's sentences by pysbd (a rule-based, Punkt-style splitter), as
  [start, end] code-point offsets.
- {"job": "chonkie-semantic" | "chonkie-recursive", "texts": [...], "url": ..., "chunk_size": n, ...}: each
  text's chunks by Chonkie's SemanticChunker or RecursiveChunker, as [start, end] code-point offsets. The
  sentence vectors and the token counts come from the Go evaluation over HTTP (url): the same encoder and the
  same cl100k_base counts as package segment's chunkers, through a thin embeddings adapter.

The answer also gives the seconds spent chunking ("seconds"), for the speed table.
"""

import json
import sys
import time
import urllib.request

import numpy as np


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=600) as res:
        return json.loads(res.read())


def tokenizer(url):
    """Chonkie's tokenizer interface over the evaluation's cl100k_base (encode, decode and count)."""
    from chonkie.tokenizer import Tokenizer

    class Remote(Tokenizer):
        def __repr__(self):
            return "Remote(cl100k_base)"

        def encode(self, text):
            return self.encode_batch([text])[0]

        def encode_batch(self, texts):
            return post(url + "/encode", {"texts": list(texts)})["ids"]

        def decode(self, tokens):
            return self.decode_batch([tokens])[0]

        def decode_batch(self, token_sequences):
            return post(url + "/decode", {"ids": [list(t) for t in token_sequences]})["texts"]

        def tokenize(self, text):
            return self.encode(text)

        def count_tokens(self, text):
            return self.count_tokens_batch([text])[0]

        def count_tokens_batch(self, texts):
            return post(url + "/count", {"texts": list(texts)})["counts"]

    return Remote()


def chonkie_semantic(job):
    from chonkie import SemanticChunker
    from chonkie.embeddings.base import BaseEmbeddings
    url = job["url"]

    class Remote(BaseEmbeddings):
        """Chonkie's embeddings interface over the evaluation's encoder."""

        def __init__(self):
            super().__init__()
            self._dims = None

        def embed(self, text):
            return self.embed_batch([text])[0]

        def embed_batch(self, texts):
            vecs = [np.asarray(v, dtype=np.float32) for v in post(url + "/vectors", {"texts": list(texts)})["vectors"]]
            if vecs:
                self._dims = len(vecs[0])
            return vecs

        @property
        def dimension(self):
            if self._dims is None:
                self.embed("dimension")
            return self._dims

        def get_tokenizer(self):
            return tokenizer(url)

    chunker = SemanticChunker(embedding_model=Remote(), threshold=job["threshold"], chunk_size=job["chunk_size"])
    return [[[c.start_index, c.end_index] for c in chunker.chunk(t)] for t in job["texts"]]


def chonkie_recursive(job):
    from chonkie import RecursiveChunker

    chunker = RecursiveChunker(tokenizer=tokenizer(job["url"]), chunk_size=job["chunk_size"], min_characters_per_chunk=job["min_characters"])
    return [[[c.start_index, c.end_index] for c in chunker.chunk(t)] for t in job["texts"]]


def pysbd_sentences(job):
    import pysbd

    seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
    return [[[s.start, s.end] for s in seg.segment(t)] for t in job["texts"]]


def main():
    job = json.load(sys.stdin)
    run = {"pysbd": pysbd_sentences, "chonkie-semantic": chonkie_semantic, "chonkie-recursive": chonkie_recursive}[job["job"]]
    start = time.perf_counter()
    spans = run(job)
    json.dump({"spans": spans, "seconds": time.perf_counter() - start}, sys.stdout)


if __name__ == "__main__":
    main()
