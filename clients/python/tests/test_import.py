import unittest
import uuid
from typing import Any, Dict, List

from diverse_select import Document, ImportDocumentsError, chunk_uuid, import_documents


class _Collection:
    """Stands for a client's collection: the argument checks refuse before any call reaches it."""

    name = "Docs"

    def __getattr__(self, attr: str) -> Any:
        raise AssertionError("import_documents reached the collection (%s) with bad arguments" % attr)


class ImportDocumentsTest(unittest.TestCase):
    def refused(self, documents: Any, want: str, **kw: Any) -> None:
        with self.assertRaises((ValueError, TypeError)) as cm:
            import_documents(_Collection(), documents, **kw)  # type: ignore[arg-type]
        self.assertIn(want, str(cm.exception))

    def test_documents_checked_before_any_call(self) -> None:
        self.refused("a text", "documents must be a list of documents, not a str")
        self.refused([{"id": "a", "text": "x", "body": "y"}], 'documents[0] has key(s) "body"; allowed: id, text, properties')
        self.refused([42], "documents[0] is a int; allowed: Document or a mapping")
        self.refused([Document(id="", text="x")], 'documents[0].id "" must be a non-empty string of at most 1024')
        self.refused([Document(id="a" * 1025, text="x")], 'documents[0].id "aaaa')
        self.refused([Document(id="a", text="  ")], "documents[0].text must be a string with text in it")
        self.refused([Document(id="a", text="x"), {"id": "a", "text": "y"}], 'documents[0] and documents[1] have the same id "a"')
        self.refused([Document(id="a", text="x", properties={"start": 3})], 'documents[0].properties sets "start", which the import writes itself')

    def test_settings_checked(self) -> None:
        docs = [Document(id="a", text="x")]
        self.refused(docs, "batch_size 0 is outside [1, 1000]", batch_size=0)
        self.refused(docs, "batch_size true is outside", batch_size=True)
        self.refused(docs, "source_property must be a property name", source_property="")
        self.refused(docs, "must be four different names", start_property="text")

    def test_nothing_to_import(self) -> None:
        self.assertEqual(import_documents(_Collection(), []), {})  # type: ignore[arg-type]

    def test_chunk_uuid(self) -> None:
        u = chunk_uuid("Docs", "a", 0, 10)
        self.assertEqual(u, "5403cb8d-9ec3-505e-bce5-12083739e086")  # the Go helper's ChunkID too (import_test.go)
        self.assertEqual(u, chunk_uuid("Docs", "a", 0, 10))
        self.assertEqual(uuid.UUID(u).version, 5)
        others = {chunk_uuid("Docs", "a", 0, 11), chunk_uuid("Docs", "b", 0, 10), chunk_uuid("Other", "a", 0, 10),
                  chunk_uuid("Docs", "a\x000", 10, 10)}
        self.assertNotIn(u, others)
        self.assertEqual(len(others), 4)

    def test_error_names_document_and_chunk(self) -> None:
        failures: Dict[str, Any] = {"doc/1": (12, 40, "invalid integer property 'start'"), "doc/2": (0, 5, "x")}
        imported: Dict[str, List[str]] = {"doc/3": [chunk_uuid("Docs", "doc/3", 0, 5)]}
        e = ImportDocumentsError(failures, imported)
        self.assertIn('document "doc/1": chunk [12, 40) was refused: invalid integer property \'start\'', str(e))
        self.assertIn("(and 1 more documents)", str(e))
        self.assertEqual(e.imported, imported)


if __name__ == "__main__":
    unittest.main()
