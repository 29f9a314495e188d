"""The simulator's kernel compiled by Cython (setup.py, controller/compiled.py): loaded only while
its source is the one compiled, and playing the same rounds as the source to the last count."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest

import controller.play.kernel
from controller import compiled
from controller.game.rules import VARIANT_IDS

ROOT = Path(__file__).resolve().parents[2]


def test_the_build_compiles_the_modules_the_finder_watches() -> None:
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    (value,) = (
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in node.targets)
    )
    assert ast.literal_eval(value) == compiled.COMPILED


@pytest.fixture
def package(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A package folder with the kernel's source and a (stand-in) compiled file, and the
    manifest's entry for them."""
    (tmp_path / "play").mkdir()
    source = tmp_path / "play" / "kernel.py"
    source.write_text("X = 1\n", encoding="utf-8")
    name = "kernel" + str(sysconfig.get_config_var("EXT_SUFFIX"))  # as this Python's build names it
    (tmp_path / "play" / name).write_bytes(b"\x7fELF")
    entry = {
        "file": name,
        "source_sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
    }
    return tmp_path, entry


def test_a_compiled_module_is_chosen_while_its_source_is_the_one_compiled(
    package: tuple[Path, dict[str, str]],
) -> None:
    root, entry = package
    choice = compiled.choose("controller.play.kernel", entry, root)
    assert choice is not None
    assert choice.compiled
    assert choice.path == root / "play" / entry["file"]


def test_an_edited_source_runs_as_edited_not_as_its_stale_compiled_copy(
    package: tuple[Path, dict[str, str]],
) -> None:
    root, entry = package
    (root / "play" / "kernel.py").write_text("X = 2\n", encoding="utf-8")
    choice = compiled.choose("controller.play.kernel", entry, root)
    assert choice is not None
    assert not choice.compiled
    assert choice.path == root / "play" / "kernel.py"
    assert "changed after it was compiled" in choice.reason


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        ("pure", "CROUPIER_PURE is set"),
        ("not compiled", "could not compile it"),
        ("file missing", "compiled file is missing"),
        ("file elsewhere", "compiled file is missing"),
        ("another python", "compiled for another Python"),
    ],
)
def test_the_source_runs_when_the_compiled_file_cannot_be_trusted(
    package: tuple[Path, dict[str, str]], case: str, reason: str
) -> None:
    root, entry = package
    pure = case == "pure"
    given: dict[str, str] | None = entry
    if case == "not compiled":
        given = None
    elif case == "file missing":
        (root / "play" / entry["file"]).unlink()
    elif case == "file elsewhere":  # a manifest naming a file outside the module's folder
        given = {**entry, "file": "../play/" + entry["file"]}
    elif case == "another python":  # a checkout installed by one Python, run by another
        other = "kernel.cpython-29-x86_64-linux-gnu.so"
        (root / "play" / other).write_bytes(b"\x7fELF")
        given = {**entry, "file": other}
    choice = compiled.choose("controller.play.kernel", given, root, pure=pure)
    assert choice is not None
    assert not choice.compiled
    assert reason in choice.reason


def test_a_module_without_its_source_is_left_to_python(
    package: tuple[Path, dict[str, str]],
) -> None:
    root, entry = package
    (root / "play" / "kernel.py").unlink()
    assert compiled.choose("controller.play.kernel", entry, root) is None


def test_the_status_names_the_file_the_kernel_was_loaded_from() -> None:
    (choice,) = compiled.status()
    assert choice.module == "controller.play.kernel"
    assert Path(controller.play.kernel.__file__ or "") == choice.path
    assert choice.compiled == (not choice.path.name.endswith(".py"))


@pytest.mark.skipif(
    os.environ.get("CROUPIER_REQUIRE_COMPILED") != "1",
    reason="only where the install must have compiled the kernel (CI sets "
    "CROUPIER_REQUIRE_COMPILED=1; a machine without a C compiler runs the source)",
)
def test_ci_runs_the_compiled_kernel() -> None:
    (choice,) = compiled.status()
    assert choice.compiled, choice.reason


def _simulate(args: list[str], *, pure: bool) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_ENV}
    if pure:
        env[compiled.PURE_ENV] = "1"
    probe = (
        "import runpy, sys; "
        "sys.argv = ['croupier', 'simulate', *sys.argv[1:]]; "
        "import controller.play.kernel as k; print(k.__file__, file=sys.stderr); "
        "runpy.run_module('controller.cli', run_name='__main__')"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe, *args, "--json", "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    loaded = run.stderr.strip().splitlines()[0]
    if pure:
        assert loaded.endswith("kernel.py"), loaded
    data: dict[str, Any] = json.loads(run.stdout)
    data.pop("performance")
    return data


@pytest.mark.parametrize("variant", VARIANT_IDS)
def test_the_compiled_kernel_plays_the_sources_rounds_to_the_last_count(variant: str) -> None:
    # one box with the cut card, and five boxes shuffled every round: every count, the
    # dealer's final hands and the net to the cent alike
    for args in (
        [variant, "--rounds", "30000", "--seed", "7"],
        [variant, "--rounds", "4000", "--seed", "11", "--boxes", "5", "--shuffle", "each-round"],
    ):
        assert _simulate(args, pure=False) == _simulate(args, pure=True)


def test_the_finder_gives_python_the_file_it_chose(package: tuple[Path, dict[str, str]]) -> None:
    root, entry = package
    finder = compiled._Finder(root, {"controller.play.kernel": entry}, pure=False)
    spec = finder.find_spec("controller.play.kernel", None)
    assert spec is not None
    assert spec.origin == str(root / "play" / entry["file"])
    assert type(spec.loader).__name__ == "ExtensionFileLoader"
    (root / "play" / "kernel.py").write_text("X = 3\n", encoding="utf-8")  # edited since
    spec = finder.find_spec("controller.play.kernel", None)
    assert spec is not None
    assert spec.origin == str(root / "play" / "kernel.py")
    assert type(spec.loader).__name__ == "SourceFileLoader"
    assert not finder.chosen["controller.play.kernel"].compiled
    # any other module is Python's own business
    assert finder.find_spec("controller.play.simulate", None) is None
