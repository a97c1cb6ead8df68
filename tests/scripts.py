"""The repository's scripts (benchmarks/, examples/) as modules, for tests of their parts."""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(relpath: str):
    """The module of the script ``relpath`` (from the repository's root), run fresh, its
    folder on the path as when it is run (a script imports its neighbours)."""
    path = ROOT / relpath
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem + "_script", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
