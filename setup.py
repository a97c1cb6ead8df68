"""Build wiring: the Cython core in ext/ becomes palace_solver._engine, and cli/ is
installed as palace_solver.cli so that no top-level module named ``cli`` is installed.

PALACE_DEBUG=1 compiles with bounds checks and assertions on, for test runs that hunt bugs.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("PALACE_DEBUG") == "1"
directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "cdivision": not debug,
    "initializedcheck": debug,
}
#: The package's subpackages, in import order (each imports only those before it).
SUBPACKAGES = ("game", "solve", "sample", "interop", "agents", "jobs", "learn", "live",
               "web")
extensions = [
    Extension(
        "palace_solver._engine",
        ["ext/_engine.pyx"],
        extra_compile_args=["-O3"] if not debug else ["-O0", "-g"],
    ),
]

setup(
    packages=["palace_solver", "palace_solver.cli"]
    + [f"palace_solver.{sub}" for sub in SUBPACKAGES],
    package_dir={"palace_solver": "palace_solver", "palace_solver.cli": "cli"},
    package_data={"palace_solver": ["data/*.jsonl", "data/*.json", "data/*.npz"],
                  "palace_solver.web": ["static/*"]},
    ext_modules=cythonize(extensions, compiler_directives=directives,
                          include_path=["ext"]),
    zip_safe=False,
)
