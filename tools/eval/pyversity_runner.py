"""pyversity (the library behind Haystack's PyversityRanker) on the evaluation's pools.

tools/eval (pyversity.go) starts this script with the project's Python and writes to its stdin a
uint32 JSON header length, the header {"settings": [[strategy, diversity], ...], "pools": [[n, dims], ...]}
and then, per pool, n x dims float32 vectors and n float32 relevances (little-endian). For every pool and
setting it calls pyversity.diversify with k = n (the whole order: the Go side packs it into each budget as
the topk baseline packs relevance order) and answers one JSON object: "orders"[pool][setting] the
selected indices in order, "seconds"[setting] the summed wall time of the calls.
"""

from __future__ import annotations

import json
import struct
import sys
import time

import numpy as np
from pyversity import Strategy, diversify


def main() -> None:
    rd = sys.stdin.buffer
    (size,) = struct.unpack("<I", rd.read(4))
    header = json.loads(rd.read(size))
    settings = [(Strategy(s), float(d)) for s, d in header["settings"]]
    orders: list[list[list[int]]] = []
    seconds = [0.0] * len(settings)
    for n, dims in header["pools"]:
        vecs = np.frombuffer(rd.read(4 * n * dims), dtype="<f4").reshape(n, dims)
        scores = np.frombuffer(rd.read(4 * n), dtype="<f4")
        row = []
        for i, (strategy, diversity) in enumerate(settings):
            t = time.perf_counter()
            res = diversify(vecs, scores, k=n, strategy=strategy, diversity=diversity)
            seconds[i] += time.perf_counter() - t
            row.append([int(x) for x in res.indices])
        orders.append(row)
    json.dump({"orders": orders, "seconds": seconds}, sys.stdout)


if __name__ == "__main__":
    main()
