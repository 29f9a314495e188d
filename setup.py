"""The build's one step beyond pyproject.toml: the simulator's kernel compiled by Cython.

``controller/play/kernel.py`` is compiled unchanged (Cython's pure-Python mode, annotations not
used as C types), so the compiled module and the source are one program: the same Python
operations on the same Python objects, in the same order, only without the interpreter's loop
(about 1.6 times the rounds per CPU second, bench/README.md). Where no C compiler is found the
extension is left out (it is optional) and the source runs as it is.

The build writes ``controller/compiled-modules.json``: each compiled module's file and the
SHA-256 of the source it was compiled from. :mod:`controller.compiled` loads a compiled module
only while its source is that source, so an edited ``kernel.py`` in a checkout installed with
``pip install -e`` runs as edited, never as the stale compiled copy.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# the modules compiled (each from its own .py, which stays the reference and the fallback)
COMPILED = ("controller.play.kernel",)
MANIFEST = "compiled-modules.json"


def _source(name: str) -> Path:
    return Path(*name.split(".")).with_suffix(".py")


class BuildCompiled(build_ext):
    """build_ext, then the manifest of what was compiled (a failed optional extension is not
    in it)."""

    def run(self) -> None:
        super().run()
        built = {}
        for ext in self.extensions:
            out = Path(self.get_ext_fullpath(ext.name))
            if out.is_file():
                built[ext.name] = {
                    "file": out.name,
                    "source_sha256": hashlib.sha256(_source(ext.name).read_bytes()).hexdigest(),
                }
        package_dir = Path(self.get_ext_fullpath("controller._manifest")).parent
        package_dir.mkdir(parents=True, exist_ok=True)
        target = package_dir / MANIFEST
        target.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def extensions() -> list[Extension]:
    if os.environ.get("CROUPIER_PURE"):  # a build of the pure-Python package only
        return []
    modules = [
        Extension(
            name,
            [str(_source(name))],
            # the same floating-point operations as the interpreter's (no fused multiply-add)
            extra_compile_args=["-ffp-contract=off", "-g0"],
            optional=True,
        )
        for name in COMPILED
    ]
    built = list(
        cythonize(
            modules,
            build_dir="build/cython",
            quiet=True,
            compiler_directives={
                "language_level": 3,
                "annotation_typing": False,  # annotations are Python's, never C types
                "binding": True,
            },
        )
    )
    for ext in built:  # (cythonize makes new Extensions and leaves this setting behind)
        ext.optional = True
    return built


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildCompiled})
