"""Every ``croupier`` command starts by importing ``controller.cli.main`` and building the parser:
that loads none of the heavy libraries nor croupier's engines, which a command's own module
imports when it runs. (Its speed is measured by ``bench/startup.py --commands``, not here.)"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# Libraries that cost tenths of a second to import, and croupier's own engines.
HEAVY = (
    "numpy",
    "scipy",
    "matplotlib",
    "pygal",
    "starlette",
    "uvicorn",
    "websockets",
    "psycopg",
    "transitions",
    "pydantic",
    "structlog",
    "yaml",
    "serial",
    "sqlite3",
    "controller.analysis",
    "controller.display",
    "controller.floor",
    "controller.journal.store",
    "controller.play.simulate",
    "controller.play.kernel",
    "controller.round",
    "controller.service",
    "controller.table.config",
    "controller.game.rules",
    "drivers.device",
    "sim_hardware.device",
)


def loaded_after(code: str) -> set[str]:
    """The modules a new Python process holds after running ``code``."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY))


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["rules"], ["simulate", "--help"], ["floor", "report", "--help"], ["watch", "-h"]],
    ids=" ".join,
)
def test_the_command_line_and_a_commands_help_import_nothing_heavy(argv: list[str]) -> None:
    code = (
        "import contextlib, io\n"
        "from controller.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({argv!r})"
    )
    assert heavy(loaded_after(code)) == []


def test_the_heavy_list_would_catch_a_command_that_imports_its_engines() -> None:
    """The check can fail: a command that reads a variant loads the rules' validators."""
    code = (
        "import contextlib, io\n"
        "from controller.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['rules', 'nz-pontoon'])"
    )
    assert {"pydantic", "controller.game.rules"} <= set(heavy(loaded_after(code)))


def test_a_kernel_simulation_imports_neither_the_round_controller_nor_its_logging() -> None:
    """``croupier simulate`` on the kernel plays without the round controller's module (the
    controller engine and the kernel's trace mode import it) and without a process pool."""
    code = (
        "import contextlib, io\n"
        "from controller.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['simulate', 'pa-blackjack', '--rounds', '300', '--no-cache'])"
    )
    loaded = loaded_after(code)
    assert "controller.play.kernel" in loaded
    unwanted = ("controller.round.controller", "structlog", "transitions", "concurrent.futures.p")
    assert sorted(m for m in loaded if m.startswith(unwanted)) == []


def test_a_command_that_reads_a_variant_looks_for_no_pydantic_plugin() -> None:
    code = (
        "import contextlib, io, os\n"
        "os.environ.pop('PYDANTIC_DISABLE_PLUGINS', None)\n"
        "from controller.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['rules', 'nz-pontoon'])\n"
        "from pydantic.plugin import _loader\n"
        "assert _loader._plugins is None, _loader._plugins\n"
        "assert os.environ['PYDANTIC_DISABLE_PLUGINS'] == '__all__'"
    )
    assert "controller.game.rules" in loaded_after(code)
