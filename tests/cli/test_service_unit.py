"""The systemd unit shipped for a table computer starts `croupier run` with a table file,
restarts it after a crash, and leaves it stopped where a person must look first."""

from __future__ import annotations

import configparser
import shlex
import subprocess
import sys

from controller.cli.commands import SERVICE_UNIT
from controller.cli.main import build_parser
from controller.cli.run import (
    EXIT_DISAGREES,
    EXIT_IN_USE,
    EXIT_JOURNAL,
    EXIT_USAGE,
    run,
)


def _unit() -> configparser.ConfigParser:
    unit = configparser.ConfigParser(interpolation=None, strict=True)
    unit.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys keep case
    unit.read_string(SERVICE_UNIT.read_text())
    return unit


def test_run_help_names_the_shipped_unit_of_this_installation() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "controller.cli", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"\n  {SERVICE_UNIT}\n" in shown
    assert SERVICE_UNIT.is_file()


def test_the_unit_starts_croupier_run_with_the_instance_s_table_file() -> None:
    argv = shlex.split(_unit()["Service"]["ExecStart"])
    assert argv[0].endswith("/croupier")
    args = build_parser().parse_args(argv[1:])
    assert args.handler.implementation() is run
    assert args.config == "/etc/croupier/%i.toml"
    assert not args.demo


def test_a_crash_restarts_the_table_but_a_stop_that_needs_a_person_does_not() -> None:
    service = _unit()["Service"]
    assert service["Restart"] == "on-failure"
    prevented = {int(code) for code in service["RestartPreventExitStatus"].split()}
    assert prevented == {EXIT_USAGE, EXIT_IN_USE, EXIT_JOURNAL, EXIT_DISAGREES}
    assert service["KillSignal"] == "SIGTERM"  # croupier run's clean, journalled stop
    # a device missing at start (status 1) is tried again for as long as it takes
    assert _unit()["Unit"]["StartLimitIntervalSec"] == "0"
    assert int(service["RestartSec"]) >= 1


def test_the_table_runs_ahead_of_ordinary_processes_for_the_cpu() -> None:
    assert -20 <= int(_unit()["Service"]["Nice"]) < 0
