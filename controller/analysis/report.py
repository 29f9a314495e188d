"""The par sheet as a page (HTML with its plots inline) and as a PDF a regulator can file.

Plots are drawn with matplotlib (the Agg backend: no display needed): the distribution of the
round's net, the house edge against the number of decks, each rule's contribution.
"""

from __future__ import annotations

import html
import io
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

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


def pct(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{100 * x:+.{digits}f} %"


def plain_pct(x: float, digits: int = 4) -> str:
    return f"{100 * x:.{digits}f} %"


# --- plots ------------------------------------------------------------------------------------


def fig_outcomes(sheet: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    items = sorted((float(k), v) for k, v in sheet["net_distribution"].items())
    xs = [f"{x:g}" for x, _ in items]
    ys = [v for _, v in items]
    colours = ["#c0392b" if x < 0 else ("#7f8c8d" if x == 0 else "#27ae60") for x, _ in items]
    ax.bar(xs, ys, color=colours)
    ax.set_yscale("log")
    ax.set_xlabel("net of the round (units of the initial wager)")
    ax.set_ylabel("probability (log scale)")
    ax.set_title("Outcome distribution")
    ax.tick_params(axis="x", labelrotation=90, labelsize=7)
    fig.tight_layout()
    return fig


def fig_decks(sheet: dict[str, Any]) -> Figure | None:
    rows = [r for r in sheet["edge_by_decks"] if "house_edge" in r]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 2.8), dpi=100)
    ax.plot([r["decks"] for r in rows], [100 * r["house_edge"] for r in rows], "o-")
    ax.axvline(sheet["shoe"]["decks"], color="#999", linestyle=":")
    ax.set_xlabel("decks in the shoe")
    ax.set_ylabel("house edge (%)")
    ax.set_title("House edge against the number of decks")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def fig_contributions(sheet: dict[str, Any]) -> Figure | None:
    rows = [r for r in sheet["contributions"] if "change" in r]
    if not rows:
        return None
    rows.sort(key=lambda r: r["change"])
    fig, ax = plt.subplots(figsize=(6.4, 0.32 * len(rows) + 1.2), dpi=100)
    ax.barh(
        [r["rule"] for r in rows],
        [100 * r["change"] for r in rows],
        color=["#27ae60" if r["change"] < 0 else "#c0392b" for r in rows],
    )
    ax.axvline(0, color="#333", linewidth=0.8)
    ax.set_xlabel("change in house edge (percentage points; <0 helps the player)")
    ax.set_title("Each rule changed alone")
    ax.tick_params(axis="y", labelsize=7)
    fig.tight_layout()
    return fig


def svg(fig: Figure) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


# --- the page -----------------------------------------------------------------------------------


def summary_rows(sheet: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [
        ("Variant", f"{sheet['name']} ({sheet['variant']})"),
        ("Rule changes", ", ".join(f"{k} = {v}" for k, v in sheet["overrides"].items()) or "none"),
        ("Shoe", f"{sheet['shoe']['decks']} x {sheet['shoe']['deck']}-card decks"),
        ("Strategy", sheet["strategy"]),
        ("House edge", pct(sheet["house_edge"])),
    ]
    if sheet.get("super_bonus"):
        rows.append(
            ("House edge without the Super Bonus", pct(sheet["house_edge_without_super_bonus"]))
        )
    if sheet.get("house_edge_composition_dependent_optimum") is not None:
        rows.append(
            (
                "Composition-dependent optimum",
                pct(sheet["house_edge_composition_dependent_optimum"]),
            )
        )
    hf = sheet["hit_frequency"]
    rows += [
        ("Variance per round", f"{sheet['variance']:.4f} units squared"),
        ("Standard deviation per round", f"{sheet['standard_deviation']:.4f} units"),
        (
            "Rounds won / pushed / lost",
            f"{plain_pct(hf['round_won'], 3)} / "
            f"{plain_pct(hf['round_pushed'], 3)} / {plain_pct(hf['round_lost'], 3)}",
        ),
    ]
    if sheet.get("super_bonus"):
        rows.append(("Wager the Super Bonus is figured at", f"${sheet['wager_cents'] / 100:,.2f}"))
    rows.append(("Rules hash", sheet.get("rules_hash", "")[:16]))
    return rows


def _table(headers: list[str], rows: list[list[str]], cls: str = "") -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def dealer_rows(sheet: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    cols = [
        c for c in DEALER_COLUMNS if any(c in e["before_check"] for e in sheet["dealer"].values())
    ]
    rows = []
    for up, entry in sheet["dealer"].items():
        row = entry["before_check"]
        rows.append([up, *[f"{row.get(c, 0.0):.6f}" for c in cols]])
        if "after_check" in entry:
            after = entry["after_check"]
            rows.append([f"{up} (after the check)", *[f"{after.get(c, 0.0):.6f}" for c in cols]])
    return ["first card", *cols], rows


def strategy_html(sheet: dict[str, Any]) -> str:
    parts = []
    for section, rows in sheet["strategy_tables"].items():
        cells = []
        for row, codes in rows.items():
            tds = "".join(
                f'<td style="background:{CODE_COLOURS.get(c, "#fff")}">{html.escape(c)}</td>'
                for c in codes.split()
            )
            cells.append(f"<tr><th>{html.escape(row)}</th>{tds}</tr>")
        width = max((len(c.split()) for c in rows.values()), default=0)
        labels = {10: "2 3 4 5 6 7 8 9 T A", 4: "2 3 4 5+"}.get(width, "")
        if labels:
            head = "".join(f"<th>{c}</th>" for c in labels.split())
            what = "dealer" if width == 10 else "cards"
            cells.insert(0, f"<tr><th>{what}</th>{head}</tr>")
        parts.append(
            f"<h3>[{html.escape(section)}]</h3><table class='strategy'>{''.join(cells)}</table>"
        )
    return "".join(parts)


STYLE = """
body { font-family: sans-serif; margin: 1.2em; max-width: 1000px; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.4em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0; }
td, th { border: 1px solid #ccc; padding: 2px 6px; text-align: right; }
th { background: #f0f0f0; } td:first-child, th:first-child { text-align: left; }
table.strategy td { text-align: center; min-width: 2.2em; }
.plots svg { max-width: 100%; height: auto; }
.note { color: #555; font-size: 0.85em; }
"""


def render_html(sheet: dict[str, Any]) -> str:
    events = [[k, f"{v:.8f}"] for k, v in sheet["events"].items()]
    wins = [[k, f"{v:.8f}"] for k, v in sheet["wins_by_odds"].items()]
    contributions = [
        [
            r["rule"],
            pct(r.get("house_edge")),
            pct(r.get("change")),
            r.get("strategy", r.get("error", "")),
        ]
        for r in sheet["contributions"]
    ]
    decks = [[str(r["decks"]), pct(r.get("house_edge"))] for r in sheet["edge_by_decks"]]
    dh, drows = dealer_rows(sheet)
    plots = [svg(fig_outcomes(sheet))]
    for make in (fig_decks, fig_contributions):
        fig = make(sheet)
        if fig is not None:
            plots.append(svg(fig))
    sb_html = ""
    sb = sheet.get("super_bonus")
    if sb:
        band_rows = [
            [
                f"${b['wager_cents'] / 100:,.2f}",
                f"${b['amount_cents'] / 100:,.0f}",
                pct(b["cost_per_wager"], 5),
            ]
            for b in sb["bands"]
        ]
        sb_html = (
            "<h2>Super Bonus</h2>"
            f"<p>A suited 7-7-7 against a dealer 7: probability {sb['probability_per_box']:.3e} "
            + (
                f"per box (one in {sb['one_in']:,.0f}). "
                if sb["one_in"]
                else "per box: this strategy never makes it (see its 7-7 row). "
            )
            + "Its cost to the house per wager, at each band's smallest and largest wager:</p>"
            + _table(["wager", "Super Bonus", "cost (share of the wager)"], band_rows)
            + f"<p>Every other wager of the round receives ${sb['table_bonus_cents'] / 100:,.0f}: "
            f"{sb['table_bonus_cost_per_other_wager_cents']:.4f} cents per other wager and "
            "round.</p>"
        )
    method = sheet["method"]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Par sheet: {html.escape(sheet["name"])}</title>
<style>{STYLE}</style></head><body>
<h1>Par sheet: {html.escape(sheet["name"])}</h1>
{_table(["figure", "value"], [list(r) for r in summary_rows(sheet)], "summary")}
<div class="plots">{"".join(plots)}</div>
<h2>Probability of every outcome (per initial hand)</h2>
{_table(["event", "probability"], events)}
<h2>Winning hands by what they are paid at</h2>
{_table(["paid as", "probability"], wins)}
{sb_html}
<h2>Each rule changed alone</h2>
{_table(["rule", "house edge", "change", "strategy"], contributions)}
<h2>House edge against the number of decks</h2>
{_table(["decks", "house edge"], decks)}
<h2>The dealer's final hand per first card</h2>
<p class="note">From the full shoe less the first card; where the dealer checks for a natural,
also after the check.</p>
{_table(dh, drows, "dealer")}
<h2>Strategy</h2>
<p class="note">{html.escape(sheet["strategy"])}</p>
{strategy_html(sheet)}
<h2>Method</h2>
<ul class="note">
<li>{html.escape(method["exact"])}</li>
<li>Splits: {html.escape(method["splits"])}</li>
<li>{html.escape(method["split_distribution"])}</li>
<li>Computed in {method["cpu_seconds"]} CPU seconds (engine {method["engine_version"]}).</li>
</ul>
</body></html>
"""


# --- the PDF ------------------------------------------------------------------------------------


def _text_page(pdf: PdfPages, title: str, lines: list[str], size: float = 8.5) -> None:
    per_page = 62
    for start in range(0, max(len(lines), 1), per_page):
        fig = plt.figure(figsize=(8.27, 11.69))
        fig.text(0.06, 0.965, title, fontsize=13, weight="bold")
        fig.text(
            0.06,
            0.94,
            "\n".join(lines[start : start + per_page]),
            fontsize=size,
            family="monospace",
            va="top",
        )
        pdf.savefig(fig)  # type: ignore[no-untyped-call]
        plt.close(fig)


def render_pdf(sheet: dict[str, Any], path: Path) -> None:
    with PdfPages(path) as pdf:
        lines = [f"{k:<36} {v}" for k, v in summary_rows(sheet)]
        lines += ["", "Probability of every outcome (per initial hand)"]
        lines += [f"  {k:<34} {v:.8f}" for k, v in sheet["events"].items()]
        lines += ["", "Winning hands by what they are paid at"]
        lines += [f"  {k:<34} {v:.8f}" for k, v in sheet["wins_by_odds"].items()]
        sb = sheet.get("super_bonus")
        if sb:
            lines += ["", f"Super Bonus: probability {sb['probability_per_box']:.3e} per box"]
            lines += [
                f"  wager ${b['wager_cents'] / 100:>9,.2f}: ${b['amount_cents'] / 100:,.0f}"
                f" costs {100 * b['cost_per_wager']:.5f} % of the wager"
                for b in sb["bands"]
            ]
        _text_page(pdf, f"Par sheet: {sheet['name']}", lines)
        for make in (fig_outcomes, fig_decks, fig_contributions):
            fig = make(sheet)
            if fig is not None:
                fig.set_size_inches(8.27, max(fig.get_size_inches()[1], 4))
                pdf.savefig(fig)
                plt.close(fig)
        c_lines = [
            f"{r['rule']:<48} {pct(r.get('house_edge')):>12} {pct(r.get('change')):>12}"
            for r in sheet["contributions"]
        ]
        c_lines += ["", "House edge against the number of decks"]
        c_lines += [
            f"  {r['decks']} decks: {pct(r.get('house_edge'))}" for r in sheet["edge_by_decks"]
        ]
        dh, drows = dealer_rows(sheet)
        c_lines += ["", "Dealer's final hand per first card (* after the check for a natural)"]
        c_lines.append(f"{'first':<6}" + " ".join(f"{h:>9}" for h in dh[1:]))
        for row in drows:
            label = row[0].replace(" (after the check)", "*")
            c_lines.append(f"{label:<6}" + " ".join(f"{c:>9}" for c in row[1:]))
        _text_page(pdf, "Rules, decks and the dealer", c_lines, size=7)
        s_lines = []
        for section, rows in sheet["strategy_tables"].items():
            s_lines += ["", f"[{section}]"] + [f"  {r:>3}  {codes}" for r, codes in rows.items()]
        _text_page(pdf, f"Strategy: {sheet['strategy']}", s_lines, size=7.5)
