"""The repository's scripts (benchmarks/, examples/) as modules, for tests of their parts."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(relpath: str):
    """The module of the script ``relpath`` (from the repository's root), run fresh."""
    path = ROOT / relpath
    spec = importlib.util.spec_from_file_location(path.stem + "_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
