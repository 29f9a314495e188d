"""``croupier watch``: prints what devices send, as a person checking emulated ptys sees it."""

from __future__ import annotations

import argparse
import io
from collections.abc import Iterator

import pytest
import structlog

from drivers.watch import register, watch
from sim_hardware import EmulatedPanel, EmulatedPeekReader, EmulatedShoe, serve


@pytest.fixture
def parser() -> Iterator[argparse.ArgumentParser]:
    top = argparse.ArgumentParser(prog="croupier")
    register(top.add_subparsers(dest="command"))
    yield top
    structlog.reset_defaults()  # run_watch configures logging for the command line


def test_watch_prints_cards_peeks_and_buttons_as_they_arrive() -> None:
    shoe, reader, panel = EmulatedShoe(cards="AS KH"), EmulatedPeekReader(), EmulatedPanel()
    shoe.draw()
    reader.insert_hole_card("QS")
    panel.tap("INS")
    out = io.StringIO()
    with serve(shoe, "w-shoe") as s, serve(reader, "w-peek") as p, serve(panel, "w-panel") as b:
        status = watch(shoe=s.url, peek=p.url, panel=b.url, seconds=1.0, out=out)
    text = out.getvalue()
    assert status == 0
    assert "shoe  CardDrawn         AS draw 0001 remaining 0001" in text
    assert "peek  CardSensed        motion=INSERTED" in text
    assert "panel ButtonPressed     INS (INSURANCE)" in text
    assert text.count("DeviceIdentified") == 3


def test_watch_without_any_port_is_a_usage_error(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parser.parse_args(["watch", "--seconds", "1"])
    assert args.handler(args) == 2
    assert "at least one of --shoe, --peek, --panel" in capsys.readouterr().err


def test_watch_reports_a_port_it_cannot_open(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parser.parse_args(["watch", "--shoe", "sim://nothing-there", "--seconds", "1"])
    assert args.handler(args) == 1
    assert "cannot open sim://nothing-there" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0", "-1", "soon"])
def test_watch_refuses_a_bad_duration(
    parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str], bad: str
) -> None:
    with pytest.raises(SystemExit):
        parser.parse_args(["watch", "--shoe", "loop://", "--seconds", bad])
    assert "seconds" in capsys.readouterr().err
