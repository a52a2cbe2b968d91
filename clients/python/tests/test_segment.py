import json
import threading
import unittest
from typing import Any, Dict, List, Tuple
from http.server import BaseHTTPRequestHandler, HTTPServer

from diverse_select import SEGMENT_PATH, SegmentError, segment


class _Handler(BaseHTTPRequestHandler):
    status = 200
    reply: Any = {}
    seen: List[Tuple[str, Any, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers.get("Authorization"), body))
        raw = json.dumps(type(self).reply).encode()
        self.send_response(type(self).status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class SegmentTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = HTTPServer(("127.0.0.1", 0), _Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = "http://127.0.0.1:%d" % self.server.server_port
        _Handler.seen = []

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def test_request(self) -> None:
        cases: List[Tuple[Dict[str, Any], Dict[str, Any]]] = [  # (arguments, the body's keys beside texts)
            ({"method": "packed", "max_tokens": 64}, {"method": "packed", "maxTokens": 64}),
            ({"max_tokens": 64, "min_tokens": 16}, {"maxTokens": 64, "minTokens": 16}),
            ({"min_tokens": 0, "encoder": None}, {"minTokens": 0}),
        ]
        for kwargs, keys in cases:
            with self.subTest(kwargs=kwargs):
                _Handler.seen = []
                _Handler.status, _Handler.reply = 200, {"method": "packed", "results": [{"chunks": []}]}
                res = segment(self.url, "One. Two.", api_key="k", **kwargs)
                self.assertEqual(res["method"], "packed")
                self.assertEqual(_Handler.seen, [(SEGMENT_PATH, "Bearer k", {"texts": ["One. Two."], **keys})])

    def test_error(self) -> None:
        _Handler.status, _Handler.reply = 413, {"error": [{"message": "exceeds DIVERSE_SELECT_SEGMENT_MAX_BYTES=10"}]}
        with self.assertRaises(SegmentError) as cm:
            segment(self.url, ["a"])
        self.assertEqual(cm.exception.status, 413)
        self.assertIn("DIVERSE_SELECT_SEGMENT_MAX_BYTES=10", str(cm.exception))


if __name__ == "__main__":
    unittest.main()
