"""Build wiring: the Cython core in ext/ becomes palace_solver._engine, and cli/ is
installed as palace_solver.cli so that no top-level module named ``cli`` is installed.

PALACE_DEBUG=1 compiles with bounds checks, wrap-around and initialization checks and
assertions on (-O0 -g), for test runs that hunt bugs. PALACE_SANITIZE=address,undefined
(any of GCC's -fsanitize= values) adds the sanitizers (at -O1, as they recommend); the
interpreter is not instrumented, so run with the sanitizer's runtime preloaded
(.ci/sanitize does). Either one builds in build/debug/, apart from the optimized build.
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("PALACE_DEBUG") == "1"
sanitize = os.environ.get("PALACE_SANITIZE", "").strip()
directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "cdivision": not debug,
    "initializedcheck": debug,
}
# Aligned functions and loops: the hot loops of the search are sensitive to where the one
# big translation unit places them (removing 600 unused lines once made the endgame search
# 15% slower); alignment makes their speed independent of the code around them.
compile_args, link_args = ["-O3", "-falign-functions=64", "-falign-loops=32"], []
if debug or sanitize:
    compile_args = ["-O1" if sanitize else "-O0", "-g", "-fno-omit-frame-pointer"]
if sanitize:
    compile_args += [f"-fsanitize={sanitize}", "-fno-sanitize-recover=all"]
    link_args += [f"-fsanitize={sanitize}"]
#: The package's subpackages, in import order (each imports only those before it).
SUBPACKAGES = ("game", "solve", "sample", "interop", "agents", "jobs", "learn", "live",
               "review", "web")
extensions = [
    Extension(
        "palace_solver._engine",
        ["ext/_engine.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
    ),
]
special = debug or bool(sanitize)

setup(
    packages=["palace_solver", "palace_solver.cli"]
    + [f"palace_solver.{sub}" for sub in SUBPACKAGES],
    package_dir={"palace_solver": "palace_solver", "palace_solver.cli": "cli"},
    package_data={"palace_solver": ["data/*.jsonl", "data/*.json", "data/*.npz"],
                  "palace_solver.web": ["static/*"]},
    ext_modules=cythonize(extensions, compiler_directives=directives, include_path=["ext"],
                          build_dir="build/debug" if special else None, force=special),
    options={"build": {"build_base": "build/debug"}} if special else {},
    zip_safe=False,
)
