"""``croupier analyze``: the exact par sheet of a variant.

``croupier analyze VARIANT [--set KEY=VALUE ...] [--strategy FILE|basic|optimal] [--wager X]
[--json] [--out DIR] [--no-cache] [--quick]``

Prints the house edge, variance and the main frequencies (or the whole par sheet as JSON with
``--json``); ``--out DIR`` also writes ``VARIANT.json``, ``VARIANT.html`` (the report page with
its plots), ``VARIANT.pdf`` (the par sheet as a document) and, with ``--strategy optimal`` or
``basic``, the generated strategy file ``VARIANT-optimal.toml`` or ``VARIANT-basic.toml``, and
nothing else (each 0600, a new DIR 0700). Results are cached by the hash of the rules under the
user's cache directory.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.cli.simulate import parse_override, wager_cents
from controller.game.errors import CroupierError
from controller.game.rules import Variant, load_variant
from controller.table.private import (
    PrivateFileError,
    check_private,
    make_folders,
    write_private,
)


def run(args: argparse.Namespace) -> int:
    from controller.analysis.parsheet import (  # noqa: PLC0415 (numpy: lazy)
        Request,
        no_figure_notes,
        par_sheet,
        shipped_strategy,
    )
    from controller.play.strategy import (  # noqa: PLC0415
        Strategy,
        has_twenty_one_row,
        load_strategy,
    )

    try:
        overrides: dict[str, Any] = {}
        for text in args.overrides:
            key, value = parse_override(text)
            overrides[key] = value
        # a bad variant or --set stops here; the analysis takes rules no table deals yet
        rules = load_variant(args.variant, overrides or None, analysis=True)
        inert = no_figure_notes(overrides)
        if inert:  # a what-if the par sheet cannot answer is refused, never silently taken
            raise CroupierError("; ".join(f"{note}, so it is refused" for note in inert))
        strategy = args.strategy
        chart: Strategy | None = None
        if strategy not in ("shipped", "optimal", "basic"):
            path = Path(strategy)
            if not path.is_file():
                raise CroupierError(
                    f"--strategy {strategy!r}: no such file; give a strategy file "
                    "(config/strategies/*.toml format), 'basic' or 'optimal'"
                )
            chart = load_strategy(path, rules)
            strategy = str(path.resolve())
        elif strategy == "shipped" and not rules.hands.twenty_one_ends_hand:
            chart = shipped_strategy(rules, load_variant(args.variant))[0]
        if (
            chart is not None
            and not rules.hands.twenty_one_ends_hand
            and not has_twenty_one_row(chart)
        ):
            raise CroupierError(
                "--set hands.twenty_one_ends_hand=false changes no figure with "
                f"{Path(chart.path).name} (it has no row for 21 and stands on it), so it "
                "is refused with it; a chart with a row 21 (such as pontoon-blackjack's "
                "pontoon-blackjack-online.toml), --strategy basic or --strategy optimal "
                "plays it"
            )
        request = Request(
            args.variant, overrides, strategy, wager_cents(args.wager), not args.quick
        )
        out_dir = Path(args.out) if args.out else None
        if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
            raise CroupierError(f"--out {args.out!r} is a file; give a directory")

        def progress(message: str) -> None:
            if sys.stderr.isatty():
                print(f"  {message}", file=sys.stderr, flush=True)

        sheet, cached = par_sheet(request, progress, use_cache=not args.no_cache)
    except PrivateFileError as exc:  # the cache file: a link or a file not ours in its place
        print(f"croupier analyze: {exc}", file=sys.stderr)
        return 1
    except CroupierError as exc:  # a bad variant, --set or strategy file (ConfigError too)
        print(f"croupier analyze: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"croupier analyze: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 1
    if out_dir is not None:
        try:
            write_files(sheet, rules, out_dir)
        except PrivateFileError as exc:  # a link or a file not ours in the way: says which
            print(f"croupier analyze: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"croupier analyze: cannot write {exc.filename}: {exc.strerror}", file=sys.stderr)
            return 1
    if args.json:
        print(json.dumps(sheet, indent=1))
    else:
        print(summary(sheet, cached, out_dir))
    return 0


def write_files(
    sheet: dict[str, Any], rules: Variant, out_dir: Path, produced: datetime | None = None
) -> None:
    """The par sheet's files in ``out_dir``: its JSON, page and PDF (and the generated strategy
    file), each 0600; ``rules`` are the rules it was made for, ``produced`` the date the
    documents give (now)."""
    from controller.analysis.pdf import render_pdf  # noqa: PLC0415 (matplotlib, reportlab: lazy)
    from controller.analysis.report import document, render_html  # noqa: PLC0415

    stem = sheet["variant"]
    names = [f"{stem}.json", f"{stem}.html", f"{stem}.pdf"]
    if sheet.get("generated_strategy_toml"):
        names.append(f"{stem}-{sheet.get('generated_strategy_kind', 'optimal')}.toml")
    what = "the par sheet's file"
    for name in names:  # a link or a file not ours in the way: refused before any is written
        check_private(out_dir / name, what)
    files = [
        json.dumps(sheet, indent=1).encode(),
        render_html(sheet, rules, produced).encode(),
        render_pdf(document(sheet, rules, produced)),
    ]
    if sheet.get("generated_strategy_toml"):
        files.append(sheet["generated_strategy_toml"].encode())
    make_folders(out_dir)
    for name, data in zip(names, files, strict=True):
        write_private(out_dir / name, data, what)


def summary(sheet: dict[str, Any], cached: bool, out_dir: Path | None) -> str:
    def pct(x: float) -> str:
        return f"{100 * x:+.4f} %"

    lines = [
        f"{sheet['name']} ({sheet['variant']})"
        + (
            f", with {', '.join(f'{k}={v}' for k, v in sheet['overrides'].items())}"
            if sheet["overrides"]
            else ""
        ),
        f"  shoe: {sheet['shoe']['decks']} x {sheet['shoe']['deck']} cards; "
        f"strategy: {sheet['strategy']}",
        *([f"  NOTE: {sheet['strategy_warning']}"] if sheet.get("strategy_warning") else []),
        f"  house edge: {pct(sheet['house_edge'])}"
        + (
            f" (without the Super Bonus {pct(sheet['house_edge_without_super_bonus'])}, "
            f"figured at a ${sheet['wager_cents'] / 100:,.2f} wager)"
            if sheet.get("super_bonus")
            else ""
        ),
    ]
    if sheet.get("house_edge_composition_dependent_optimum") is not None:
        lines.append(
            "  composition-dependent optimum: "
            f"{pct(sheet['house_edge_composition_dependent_optimum'])}"
        )
    hf = sheet["hit_frequency"]
    lines.append(
        f"  variance {sheet['variance']:.4f}, standard deviation {sheet['standard_deviation']:.4f}"
        f" per round; rounds won {100 * hf['round_won']:.3f} %, pushed "
        f"{100 * hf['round_pushed']:.3f} %, lost {100 * hf['round_lost']:.3f} %"
    )
    ev = sheet["events"]
    for key in (
        "player natural",
        "dealer natural (checked)",
        "five-card trick",
        "super bonus",
        "surrender",
        "rescue",
        "double",
        "split",
    ):
        if ev.get(key):
            lines.append(f"  {key}: {100 * ev[key]:.5f} %")
    for row in sheet["contributions"]:
        if "change" in row:
            lines.append(f"  rule: {row['rule']:<44} {100 * row['change']:+.4f} points")
    lines.append(
        f"  {'from the cache' if cached else 'computed'} ({sheet['method']['cpu_seconds']} CPU s)"
        + (f"; files in {out_dir}" if out_dir else "; --out DIR writes the page and the PDF")
    )
    return "\n".join(lines)
