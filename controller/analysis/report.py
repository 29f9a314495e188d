"""The par sheet as a document: what it says, in sections of notes, tables with headers and plots
(:func:`document`), and that document as a page (:func:`render_html`, plots inline as SVG).
:mod:`controller.analysis.pdf` lays the same document out as the PDF a regulator files.

Plots are drawn with matplotlib figures of their own (no pyplot state, no display needed): the
distribution of the round's net, the house edge against the number of decks, each rule's
contribution.

The par sheet's JSON is the contract: nothing here changes it, every figure shown is read from it.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from matplotlib.figure import Figure

from controller import __version__
from controller.analysis.parsheet import toggles
from controller.game.errors import ConfigError
from controller.game.rules import NaturalPolicy, Variant, load_variant

DEALER_COLUMNS = ("17", "18", "19", "20", "21", "under 17", "five-card", "bust", "natural")
CODE_COLOURS = {
    "H": "#f4f4f4",
    "S": "#f7d774",
    "Dh": "#8fd18f",
    "Ds": "#5fb85f",
    "P": "#8fb8e8",
    "Ph": "#b5cff0",
    "Rh": "#e89a8f",
    "Rs": "#e07a6d",
    "Rp": "#d9a0c9",
    "R": "#e89a8f",
}
# What each code of a strategy table tells the player to do (controller.play.strategy's codes).
CODE_WORDS = {
    "H": "hit",
    "S": "stand",
    "Dh": "double if allowed, else hit",
    "Ds": "double if allowed, else stand",
    "P": "split",
    "Ph": "split if doubling after a split is allowed, else hit",
    "Rh": "surrender if allowed, else hit",
    "Rs": "surrender if allowed, else stand",
    "Rp": "surrender if allowed, else split",
    "R": "rescue: take back the double, forfeiting the original wager",
}
RESCUE_KEEP = "in the rescue table: keep the doubled hand"
COLUMN_WORDS = {
    10: ("the dealer's first card", ("2", "3", "4", "5", "6", "7", "8", "9", "10", "A")),
    4: ("cards in the player's hand", ("2", "3", "4", "5+")),
    1: ("", ("two cards",)),
}


def pct(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{100 * x:+.{digits}f} %"


def plain_pct(x: float, digits: int = 4) -> str:
    return f"{100 * x:.{digits}f} %"


def one_in(p: float) -> str:
    if p <= 0:
        return "never"
    n = 1 / p
    return f"{n:,.1f}" if n < 10 else f"{n:,.0f}"


def money(cents: float) -> str:
    return f"${cents / 100:,.2f}"


# --- what the document says -----------------------------------------------------------------


Align = Literal["figures", "text", "codes"]


@dataclass(frozen=True)
class Table:
    """A table with its column headers. ``group`` heads every column but the first (what the
    columns are: the dealer's first card...); ``fills`` colours the cells after the first of
    each row; ``wrap`` is the column that takes the width left and wraps its text."""

    head: tuple[str, ...]
    rows: list[list[str]]
    caption: str = ""
    group: str = ""
    fills: list[list[str]] | None = None
    align: Align = "figures"
    wrap: int | None = None


@dataclass(frozen=True)
class Plot:
    figure: Figure
    caption: str


@dataclass(frozen=True)
class Note:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: list[str]


Part = Note | Table | Plot | Bullets


@dataclass(frozen=True)
class Section:
    heading: str
    parts: list[Part] = field(default_factory=list)


@dataclass(frozen=True)
class Document:
    title: str
    fields: list[tuple[str, str]]  # the title page: what the sheet is for, by whom, when
    hash_note: str
    key_figures: Table
    sections: list[Section]
    footer: str  # beside the page number on every page


# --- plots ------------------------------------------------------------------------------------


def fig_outcomes(sheet: dict[str, Any]) -> Figure:
    fig = Figure(figsize=(6.7, 3.3), dpi=100)
    ax = fig.subplots()
    items = sorted((float(k), v) for k, v in sheet["net_distribution"].items())
    xs = [f"{x:g}" for x, _ in items]
    ys = [v for _, v in items]
    colours = ["#c0392b" if x < 0 else ("#7f8c8d" if x == 0 else "#27ae60") for x, _ in items]
    ax.bar(xs, ys, color=colours)
    ax.set_yscale("log")
    ax.set_xlabel("net of the round (units of the initial wager)")
    ax.set_ylabel("probability (log scale)")
    ax.tick_params(axis="x", labelrotation=90, labelsize=8)
    fig.tight_layout()
    return fig


def fig_decks(sheet: dict[str, Any]) -> Figure | None:
    rows = [r for r in sheet["edge_by_decks"] if "house_edge" in r]
    if not rows:
        return None
    fig = Figure(figsize=(6.7, 2.8), dpi=100)
    ax = fig.subplots()
    ax.plot([r["decks"] for r in rows], [100 * r["house_edge"] for r in rows], "o-")
    ax.axvline(sheet["shoe"]["decks"], color="#999", linestyle=":")
    ax.set_xlabel("decks in the shoe (dotted: this game's)")
    ax.set_ylabel("house edge (%)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def fig_contributions(sheet: dict[str, Any]) -> Figure | None:
    rows = [r for r in sheet["contributions"] if "change" in r]
    if not rows:
        return None
    rows.sort(key=lambda r: r["change"])
    fig = Figure(figsize=(6.7, 0.25 * len(rows) + 1.0), dpi=100)
    ax = fig.subplots()
    ax.barh(
        [r["rule"] for r in rows],
        [100 * r["change"] for r in rows],
        color=["#27ae60" if r["change"] < 0 else "#c0392b" for r in rows],
    )
    ax.axvline(0, color="#333", linewidth=0.8)
    ax.set_xlabel("change in house edge (points; below 0 helps the player)")
    ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    return fig


def svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    text = buf.getvalue()
    return text[text.index("<svg") :]


def png(fig: Figure, dpi: int = 200) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


# --- the sections -------------------------------------------------------------------------------


def is_quick(sheet: dict[str, Any]) -> bool:
    """A sheet made with ``--quick``: no rule toggles and no decks curve."""
    return not sheet["contributions"] and not sheet["edge_by_decks"]


def _setting(value: object) -> str:
    """A rule change's value as ``--set`` takes it (TOML: ``true``, not Python's ``True``)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def change_words(sheet: dict[str, Any]) -> str:
    """The sheet's rule changes in words, each with the ``--set`` that makes it (so that it can
    be made again): 'dealer stands on soft 17 (dealer.hits_soft_17 = false)'. A change the
    par sheet has no words for is said as its setting alone."""
    overrides: dict[str, Any] = sheet["overrides"]
    try:
        named = toggles(load_variant(sheet["variant"])) if overrides else []
    except ConfigError:
        named = []
    said: list[str] = []
    done: set[str] = set()
    for key, value in overrides.items():
        if key in done:
            continue
        words, setting = f"{key} = {_setting(value)}", {key: value}
        if key == "shoe.decks":
            words = f"{value} deck" + ("" if value == 1 else "s")
        for toggle, changes in named:
            if key in changes and all(overrides.get(k, ...) == v for k, v in changes.items()):
                words, setting = toggle, changes
                break
        sets = ", ".join(f"{k} = {_setting(v)}" for k, v in setting.items())
        said.append(words if words == sets else f"{words} ({sets})")
        done.update(setting)
    return "; ".join(said)


def title_fields(sheet: dict[str, Any], produced: datetime) -> list[tuple[str, str]]:
    method = sheet["method"]
    changes = change_words(sheet)
    shoe = sheet["shoe"]
    rows = [
        ("Game", f"{sheet['name']} ({sheet['variant']})"),
        ("Rule changes", changes or "none: the variant as configured"),
        ("Shoe", f"{shoe['decks']} x {shoe['deck']}-card decks ({shoe['cards']} cards)"),
        ("Strategy", sheet["strategy"]),
    ]
    if sheet.get("strategy_warning"):
        rows.append(("Strategy warning", sheet["strategy_warning"]))
    if sheet.get("super_bonus"):
        rows.append(("Super Bonus figured at", f"a wager of {money(sheet['wager_cents'])}"))
    rows += [
        ("Rules hash (SHA-256)", sheet.get("rules_hash", "")),
        ("Software", f"croupier {__version__}, analysis engine {method['engine_version']}"),
        ("Produced", produced.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")),
        ("Computed in", f"{method['cpu_seconds']} CPU seconds"),
    ]
    if is_quick(sheet):
        rows.append(
            ("Left out", "each rule changed alone and the decks curve (a quick sheet: --quick)")
        )
    return rows


def key_figures(sheet: dict[str, Any]) -> Table:
    rows = [["House edge", pct(sheet["house_edge"])]]
    if sheet.get("super_bonus"):
        rows.append(
            ["House edge without the Super Bonus", pct(sheet["house_edge_without_super_bonus"])]
        )
    if sheet.get("house_edge_composition_dependent_optimum") is not None:
        rows.append(
            [
                "House edge, composition-dependent optimum",
                pct(sheet["house_edge_composition_dependent_optimum"]),
            ]
        )
    hf = sheet["hit_frequency"]
    rows += [
        ["Variance per round", f"{sheet['variance']:.4f} units squared"],
        ["Standard deviation per round", f"{sheet['standard_deviation']:.4f} units"],
        ["Rounds won", plain_pct(hf["round_won"], 3)],
        ["Rounds pushed", plain_pct(hf["round_pushed"], 3)],
        ["Rounds lost", plain_pct(hf["round_lost"], 3)],
    ]
    return Table(("figure", "value"), rows)


def _probabilities(items: dict[str, float], what: str) -> Table:
    return Table(
        (what, "probability", "about one in"),
        [[k, f"{v:.8f}", one_in(v)] for k, v in items.items()],
    )


# a hand paid at 1:1 is "even money", as on the floor's report ("win" is the house's result)
PAID_AS = {"win": "even money"}


def outcomes_section(sheet: dict[str, Any]) -> Section:
    return Section(
        "Outcomes",
        [
            Note(
                "The probability of every outcome and bonus per initial hand (one box, one "
                "round); a split box counts each of its hands."
            ),
            _probabilities(sheet["events"], "event"),
            Plot(
                fig_outcomes(sheet),
                "The distribution of the round's net, in units of the initial wager (red: the "
                "player loses, grey: a push, green: the player wins).",
            ),
            Note("Winning hands by what they are paid at:"),
            _probabilities(
                {PAID_AS.get(k, k): v for k, v in sheet["wins_by_odds"].items()}, "paid as"
            ),
        ],
    )


def super_bonus_section(sheet: dict[str, Any]) -> Section | None:
    sb = sheet.get("super_bonus")
    if not sb:
        return None
    chance = "A suited 7-7-7 against a dealer 7: " + (
        f"probability {sb['probability_per_box']:.3e} per box (about one in {sb['one_in']:,.0f})."
        if sb["one_in"]
        else "this strategy never makes it (see its 7-7 row)."
    )
    bands = [
        [money(b["wager_cents"]), money(b["amount_cents"]), pct(b["cost_per_wager"], 5)]
        for b in sb["bands"]
    ]
    return Section(
        "Super Bonus",
        [
            Note(
                chance + " Its cost to the house per wager, at each band's smallest and largest "
                "wager:"
            ),
            Table(("wager", "Super Bonus paid", "cost (share of the wager)"), bands),
            Note(
                f"Every other wager of the round receives {money(sb['table_bonus_cents'])}: "
                f"{sb['table_bonus_cost_per_other_wager_cents']:.4f} cents per other wager and "
                "round."
            ),
        ],
    )


def insurance_section(sheet: dict[str, Any]) -> Section | None:
    ins = sheet.get("insurance")
    if not ins:
        return None
    return Section(
        "Insurance",
        [
            Note(
                f"The house's edge on insurance: {pct(ins['edge_per_unit_insured'])} of the "
                f"amount insured ({ins['note']})."
            )
        ],
    )


def contributions_section(sheet: dict[str, Any]) -> Section:
    parts: list[Part] = []
    if sheet["contributions"]:
        generated = bool(sheet.get("generated_strategy_toml"))
        rows = []
        for r in sheet["contributions"]:
            chart = r.get("strategy", "")
            if generated or chart == sheet["strategy"]:
                chart = ""
            rows.append(
                [
                    r["rule"],
                    pct(r.get("house_edge")),
                    pct(r.get("change")),
                    f"not possible: {r['error']}" if "error" in r else chart,
                ]
            )
        if generated:
            how = "Every row plays the par sheet's generated strategy as it is."
        elif any(row[3] for row in rows):
            how = (
                "A row plays the shipped chart validated for its rules; the last column names "
                f"the chart only where it is not the par sheet's own ({sheet['strategy']})."
            )
        else:
            how = f"Every row plays the par sheet's own chart: {sheet['strategy']}."
        parts.append(Note(f"Each rule of the game changed alone, everything else as it is. {how}"))
        fig = fig_contributions(sheet)
        if fig is not None:
            parts.append(Plot(fig, "Each rule changed alone: the change in the house edge."))
        head: tuple[str, ...] = ("rule changed alone", "house edge", "change", "chart played")
        if not any(row[3] for row in rows):
            head, rows = head[:3], [row[:3] for row in rows]
        parts.append(Table(head, rows, wrap=3 if len(head) == 4 else None))
    else:
        parts.append(Note("Left out of this quick sheet (croupier analyze --quick)."))
    return Section("Each rule changed alone", parts)


def decks_section(sheet: dict[str, Any]) -> Section:
    parts: list[Part] = []
    rows = sheet["edge_by_decks"]
    if rows:
        parts.append(
            Note(
                "The game at each number of decks, everything else as it is, each played with "
                "the shipped chart for its rules."
            )
        )
        fig = fig_decks(sheet)
        if fig is not None:
            parts.append(Plot(fig, "The house edge against the number of decks."))
        if any("error" in r for r in rows):
            parts.append(
                Table(
                    ("decks", "house edge", "why not"),
                    [[str(r["decks"]), pct(r.get("house_edge")), r.get("error", "")] for r in rows],
                    wrap=2,
                )
            )
        else:
            parts.append(
                Table(
                    ("decks", "house edge"), [[str(r["decks"]), pct(r["house_edge"])] for r in rows]
                )
            )
    else:
        parts.append(Note("Left out of this quick sheet (croupier analyze --quick)."))
    return Section("House edge against the number of decks", parts)


def _rank(rank: str) -> str:
    """A rank as a person reads it: the whole '10' for the JSON's 'T' (any ten-value card)."""
    return "10" if rank == "T" else rank


def dealer_table(sheet: dict[str, Any]) -> Table:
    cols = [
        c for c in DEALER_COLUMNS if any(c in e["before_check"] for e in sheet["dealer"].values())
    ]
    rows = []
    for up, entry in sheet["dealer"].items():
        row = entry["before_check"]
        rows.append([_rank(up), *[f"{row.get(c, 0.0):.6f}" for c in cols]])
        if "after_check" in entry:
            after = entry["after_check"]
            rows.append(
                [f"{_rank(up)}, after the check", *[f"{after.get(c, 0.0):.6f}" for c in cols]]
            )
    return Table(("first card", *cols), rows, group="the dealer's final hand")


def dealer_section(sheet: dict[str, Any]) -> Section:
    return Section(
        "The dealer's final hand per first card",
        [
            Note(
                "From the full shoe less the first card; where the dealer checks for a "
                "natural, also after the check. 10 is any ten-value card (10, J, Q or K)."
            ),
            dealer_table(sheet),
        ],
    )


def strategy_heading(section: str) -> str:
    """A strategy file's section name in words: ``hard-from-4-cards`` is "Hard totals, hands of
    four or more cards"."""
    named = {
        "hard": "Hard totals",
        "soft": "Soft totals (an ace counted as 11)",
        "pairs": "Pairs",
        "rescue": "Rescue, after the double card",
    }
    if section in named:
        return named[section]
    m = re.fullmatch(r"(hard|soft)-from-(\d+)-cards", section)
    if m:
        kind = "Hard" if m.group(1) == "hard" else "Soft"
        return f"{kind} totals, hands of {m.group(2)} or more cards (these rows replace the above)"
    return section


def strategy_tables(sheet: dict[str, Any]) -> list[Table]:
    tables = []
    for section, rows in sheet["strategy_tables"].items():
        width = max((len(c.split()) for c in rows.values()), default=0)
        group, labels = COLUMN_WORDS.get(width, ("", tuple(str(i + 1) for i in range(width))))
        first = {"pairs": "pair", "rescue": "total after the double"}.get(section, "total")
        body, fills = [], []
        for row, codes in rows.items():
            label = (
                f"{_rank(row[0])}-{_rank(row[1])}" if section == "pairs" and len(row) == 2 else row
            )
            body.append([label, *codes.split()])
            fills.append([CODE_COLOURS.get(c, "#ffffff") for c in codes.split()])
        tables.append(
            Table(
                (first, *labels),
                body,
                caption=strategy_heading(section),
                group=group,
                fills=fills,
                align="codes",
            )
        )
    return tables


def strategy_legend(sheet: dict[str, Any]) -> Table:
    used = {
        c for rows in sheet["strategy_tables"].values() for v in rows.values() for c in v.split()
    }
    rescue = "rescue" in sheet["strategy_tables"]
    rows, fills = [], []
    for code, words in CODE_WORDS.items():
        if code in used:
            rows.append([code, f"{words} ({RESCUE_KEEP})" if code == "S" and rescue else words])
            fills.append([CODE_COLOURS[code]])
    return Table(("code", "the player's play"), rows, fills=fills, align="text", wrap=1)


def strategy_section(sheet: dict[str, Any]) -> Section:
    return Section(
        "Strategy",
        [
            Note(
                f"The strategy played: {sheet['strategy']}. 10 is any ten-value card (10, J, Q "
                "or K)."
            ),
            strategy_legend(sheet),
            *strategy_tables(sheet),
        ],
    )


def method_section(sheet: dict[str, Any], rules: Variant) -> Section:
    method = sheet["method"]
    items = [
        f"Exact, no sampling: {method['exact']}. Every rule and payout is the table's own code "
        "(the round model's checks, its settlement, the strategy's decisions).",
        f"Splits, an approximation: {method['splits']}. Checked against that publisher's "
        "whole-game figures, the analysis agrees to 0.0003 % and better; the approximation's own "
        "error against a fully exact split is of the order of 0.001 % of the wager for 6-8 decks.",
        f"An approximation: {method['split_distribution']}.",
        "One box at the table, a freshly shuffled shoe, the full wager doubled (doubling for less "
        "is never better than the full double or none).",
    ]
    if (
        not rules.has_hole_card
        and rules.dealer_natural.against_splits is NaturalPolicy.ORIGINAL_ONLY
    ):
        items.append(
            "An approximation: a dealer's natural takes the original bets only, per box; the "
            "analysis settles each split hand as a box of its own, overstating the loss on split "
            "boxes against a dealer natural by the order of 0.001 % of the wager."
        )
    if rules.split.allowed and rules.split.split_aces_one_card:
        items.append(
            "Split aces take one card, so a split ace's hand ends at its second card and is "
            "never resplit (the round model's rule, which the analysis follows)."
        )
    if sheet.get("super_bonus"):
        items.append(
            "The Super Bonus is a fixed amount, so its cost is a share of the wager: figured at "
            f"a wager of {money(sheet['wager_cents'])} in the house edge, and at each band's "
            "smallest and largest wager in its table."
        )
    if sheet.get("generated_strategy_kind") == "basic":
        items.append(
            "The generated basic strategy is total-dependent: one play per total (hard, soft or "
            "a pair) and dealer's card, whatever cards make the total. Each cell takes the play "
            "whose value, with the chart played after it and summed over the hands the chart "
            "reaches in the cell, is highest, round after round until the chart stays the same. "
            "Three starts are improved so (stand on 17, the shipped chart that fits the rules, "
            "the composition-dependent optimum's play per cell) and the best chart is kept: "
            "improving stops where no single cell improves, which need not be the best chart. "
            "Its exact value is the house edge."
        )
    elif sheet.get("generated_strategy_toml"):
        items.append(
            "The generated strategy is the composition-dependent optimum written per cell of "
            "the strategy file (total, soft, cards, dealer's card); its own exact value is the "
            "house edge, the optimum's is shown beside it."
        )
    items += [
        "Checks: every variant against brute force over tiny shoes played through the table's "
        "own round controller (to 1e-12), the Wizard of Odds' published dealer tables and "
        "single-hand values, and the simulator (croupier simulate); docs/analysis.md.",
        f"Computed in {method['cpu_seconds']} CPU seconds ({method['wall_seconds']} s on the "
        f"clock), analysis engine {method['engine_version']}.",
    ]
    return Section("Method and approximations", [Bullets(items)])


def document(sheet: dict[str, Any], rules: Variant, produced: datetime | None = None) -> Document:
    """The par sheet as a document: ``rules`` are the rules it was made for (the variant with
    its rule changes), ``produced`` the time it is made (now)."""
    when = produced or datetime.now(UTC)
    sections = [
        outcomes_section(sheet),
        super_bonus_section(sheet),
        insurance_section(sheet),
        contributions_section(sheet),
        decks_section(sheet),
        dealer_section(sheet),
        strategy_section(sheet),
        method_section(sheet, rules),
    ]
    return Document(
        title=f"Par sheet: {sheet['name']}",
        fields=title_fields(sheet, when),
        hash_note="The rules hash is the SHA-256 of the validated rules, the strategy, the wager, "
        "whether the sheet is quick and the analysis engine's version: the same hash, the same "
        "figures.",
        key_figures=key_figures(sheet),
        sections=[s for s in sections if s is not None],
        footer=f"Par sheet · {sheet['variant']} · rules {sheet.get('rules_hash', '')[:16]}",
    )


# --- the page -----------------------------------------------------------------------------------


STYLE = """
body { font-family: sans-serif; margin: 1.2em; max-width: 1000px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.4em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; margin: 1em 0 0.2em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
table.text td, table.text th { text-align: left; }
table.codes td, table.codes thead th { text-align: center; min-width: 2.2em; }
table.fields th { text-align: left; } table.fields td { text-align: left; }
code, .hash { font-family: monospace; overflow-wrap: anywhere; }
figure { margin: 0.6em 0; } figure svg { max-width: 100%; height: auto; }
figcaption, .note { color: #555; font-size: 0.85em; }
"""


def _html_table(t: Table) -> str:
    e = html.escape
    caption = f"<h3>{e(t.caption)}</h3>" if t.caption else ""
    head = ""
    if t.group:
        head += f'<tr><th></th><th colspan="{len(t.head) - 1}">{e(t.group)}</th></tr>'
    head += "<tr>" + "".join(f"<th>{e(h)}</th>" for h in t.head) + "</tr>"
    body = []
    for i, row in enumerate(t.rows):
        fills = t.fills[i] if t.fills else []
        cells = []
        for j, cell in enumerate(row):
            at = j if t.align == "text" else j - 1  # a legend colours its code, a grid its cells
            fill = fills[at] if 0 <= at < len(fills) else ""
            style = f' style="background:{fill}"' if fill else ""
            tag = "th" if j == 0 and t.align == "codes" else "td"
            cells.append(f"<{tag}{style}>{e(cell)}</{tag}>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'{caption}<table class="{t.align}"><thead>{head}</thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _html_part(part: Part) -> str:
    if isinstance(part, Note):
        return f'<p class="note">{html.escape(part.text)}</p>'
    if isinstance(part, Bullets):
        return "<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in part.items) + "</ul>"
    if isinstance(part, Plot):
        caption = html.escape(part.caption)
        return f"<figure>{svg(part.figure)}<figcaption>{caption}</figcaption></figure>"
    return _html_table(part)


def render_html(sheet: dict[str, Any], rules: Variant, produced: datetime | None = None) -> str:
    doc = document(sheet, rules, produced)
    e = html.escape
    fields = "".join(
        f"<tr><th>{e(k)}</th><td{' class=hash' if 'hash' in k else ''}>{e(v)}</td></tr>"
        for k, v in doc.fields
    )
    sections = "".join(
        f"<h2>{e(s.heading)}</h2>" + "".join(_html_part(p) for p in s.parts) for s in doc.sections
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{e(doc.title)}</title>
<style>{STYLE}</style></head><body>
<h1>{e(doc.title)}</h1>
<table class="fields"><tbody>{fields}</tbody></table>
<p class="note">{e(doc.hash_note)}</p>
<h2>Key figures</h2>
{_html_table(doc.key_figures)}
{sections}
</body></html>
"""
