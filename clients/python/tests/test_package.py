"""The helper installs as users install it: `pip install ./clients/python`
builds a wheel (setuptools, from pyproject.toml) holding the package, its
generated table and its py.typed marker; installed alone into a fresh folder,
it imports and writes the settings form. Offline: the build backend comes
from the environment running the test (the venv's pinned setuptools)."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HELPER = os.path.join(os.path.dirname(__file__), "..")


class Package(unittest.TestCase):
    def test_wheel_installs_and_imports(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            # A copy: the build writes its build/ and egg-info beside the sources.
            src = os.path.join(tmp, "src")
            shutil.copytree(HELPER, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
            pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
            subprocess.run(pip + ["wheel", "--no-deps", "--no-build-isolation", "-w", tmp, src], check=True)
            wheels = [f for f in os.listdir(tmp) if f.endswith(".whl")]
            self.assertEqual(len(wheels), 1, wheels)
            self.assertTrue(wheels[0].startswith("diverse_select_weaviate-0.1.0-py3-none-any"), wheels[0])
            with zipfile.ZipFile(os.path.join(tmp, wheels[0])) as whl:
                names = set(whl.namelist())
                meta = whl.read("diverse_select_weaviate-0.1.0.dist-info/METADATA").decode()
            for f in ("diverse_select/__init__.py", "diverse_select/_check.py", "diverse_select/_generated.py",
                      "diverse_select/py.typed", "diverse_select/_frameworks.py", "diverse_select/langchain.py",
                      "diverse_select/llamaindex.py", "diverse_select/haystack.py"):
                self.assertIn(f, names)
            self.assertIn("Name: diverse-select-weaviate", meta)
            self.assertIn("Provides-Extra: client", meta)
            # Each framework's extra: its core package and the Weaviate client, nothing else.
            for extra, core in (("langchain", "langchain-core"), ("llamaindex", "llama-index-core"),
                                ("haystack", "haystack-ai")):
                self.assertIn("Provides-Extra: " + extra, meta)
                needs = sorted(line.split(" ")[1].split("<")[0].split(">")[0] for line in meta.splitlines()
                               if line.startswith("Requires-Dist:") and line.endswith('extra == "%s"' % extra))
                self.assertEqual(needs, sorted([core, "weaviate-client"]), extra)

            site = os.path.join(tmp, "site")
            subprocess.run(pip + ["install", "--no-deps", "--target", site, os.path.join(tmp, wheels[0])], check=True)
            code = ("import diverse_select as ds; print(ds.__file__); "
                    "print(ds.rerank_fields('body', 'q', ds.Select.mmr(token_budget=60))['prop'])")
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True,
                                 cwd=tmp, env={**os.environ, "PYTHONPATH": site}).stdout.split("\n")
            self.assertTrue(out[0].startswith(site), "imported %s, not the installed wheel" % out[0])
            self.assertEqual(out[1], 'body|diverseSelect.v1|{"strategy":"mmr","tokenBudget":60}')


if __name__ == "__main__":
    unittest.main()
