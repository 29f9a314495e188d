"""One error base per package, all under CroupierError, which the command line says without a
traceback (``controller.cli.main``; issue 23)."""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil

import pytest

import controller
from controller.cli import verify
from controller.cli.main import main
from controller.game.errors import CroupierError
from controller.play.errors import KernelError
from controller.table.errors import TableError

# Exceptions that never leave their module: control flow inside a loop, not errors.
INTERNAL = {"controller.play.kernel.ShoeEnded", "controller.round.errors.Refusal"}


def _error_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for info in pkgutil.walk_packages(controller.__path__, "controller."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("controller."):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return [cls for name, cls in sorted(found.items()) if name not in INTERNAL]


def test_every_error_the_controller_raises_on_purpose_is_a_croupier_error() -> None:
    errors = _error_classes()
    assert len(errors) > 20  # (the walk found them)
    assert [
        f"{e.__module__}.{e.__qualname__}" for e in errors if not issubclass(e, CroupierError)
    ] == []


def test_the_command_line_says_a_mistake_in_one_line_and_lets_a_bug_out_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def mistake(_: argparse.Namespace) -> int:
        raise TableError("table.toml: boxes = 9: at most 7")

    def bug(_: argparse.Namespace) -> int:
        raise KernelError("the kernel and the rules disagree")

    monkeypatch.setattr(verify, "run", mistake)
    assert main(["verify"]) == 1
    assert capsys.readouterr().err == "croupier verify: table.toml: boxes = 9: at most 7\n"
    monkeypatch.setattr(verify, "run", bug)
    with pytest.raises(KernelError):
        main(["verify"])
