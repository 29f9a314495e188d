"""The par sheet of a variant: everything :mod:`engine` and :mod:`outcomes` can say, as one JSON
document, cached by the hash of the rules it was made for."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.analysis.dealer import CATEGORIES, NATURAL_INDEX, category_label
from controller.analysis.engine import Analysis, payoffs_shared
from controller.analysis.optimal import Generator, basic_strategy, to_toml
from controller.analysis.outcomes import Outcomes
from controller.analysis.reprice import Reach
from controller.analysis.shoe import VALUES, Shoe, add
from controller.collector import collector_paused
from controller.game.errors import ConfigError
from controller.game.rules import Variant, load_variant
from controller.play.strategy import Strategy, load_strategy, strategy_for, strategy_from_mapping
from controller.table.private import make_folders, write_private

ENGINE_VERSION = "2"  # 2: issue 28 (refused what-ifs, the chart warning, basic)
# How --strategy basic searches (in the cache key of a basic sheet only, so that no other
# sheet's figures or hash move): 2 improves three starts, not "stand on 17" alone.
BASIC_SEARCH = "basic search 2"
DECKS_CURVE = (1, 2, 4, 6, 8)
Progress = Callable[[str], None]


@dataclass(frozen=True)
class Request:
    variant: str
    overrides: Mapping[str, Any]
    strategy: str  # "shipped", "optimal", "basic" or a path
    wager_cents: int = 1000
    contributions: bool = True


def rules_hash(rules: Variant, request: Request, strategy_text: str) -> str:
    payload = {
        "engine": ENGINE_VERSION,
        "rules": rules.model_dump(mode="json"),
        "strategy": request.strategy,
        "strategy_text": strategy_text,
        "wager_cents": request.wager_cents,
        "contributions": request.contributions,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "croupier" / "analysis"


def load_rules(request: Request) -> Variant:
    return load_variant(request.variant, dict(request.overrides) or None, analysis=True)


def shipped_strategy(rules: Variant, fallback: Variant | None = None) -> tuple[Strategy, str]:
    """The shipped chart for these rules; where none validates (a what-if the chart was not made
    for), the chart of ``fallback`` played under these rules."""
    try:
        strategy = strategy_for(rules)
        return strategy, f"{Path(strategy.path).name} (validated for these rules)"
    except ConfigError:
        if fallback is None:
            raise
        strategy = strategy_for(fallback)
        return strategy, f"{Path(strategy.path).name} (the shipped rules' chart, played as is)"


# The variant keys no par sheet figure depends on, and why: a --set of one is said, not
# silently taken (issue 28). Every other key changes some figure of some variant
# (tests/analysis/test_whatif.py holds the list and where each is shown).
NO_FIGURE: dict[str, str] = {
    "id": "it names the game",
    "name": "it names the game",
    "sources": "it names the rules' sources",
    "table.": "the par sheet is figured for one box with one wager, doubled in full",
    "shoe.burn_cards": "each round is figured from a freshly shuffled shoe",
    "shoe.cut_card_reserve": "each round is figured from a freshly shuffled shoe",
    "shoe.cut_card_reserve_per_deck": "each round is figured from a freshly shuffled shoe",
    "surrender.settles": "it says when a surrendered half is taken, not how much",
    "payouts.natural_paid_at_once": "it says when a natural is paid, not how much",
    "insurance.max_fraction": "the strategies never insure; insurance is figured per unit",
    "insurance.natural_boxes_may_insure": "the strategies never insure",
    "insurance.up_cards": "the strategies never insure; insurance is figured against an ace",
}


def no_figure_notes(overrides: Mapping[str, Any]) -> list[str]:
    """A sentence for each override no figure of the par sheet depends on."""
    out = []
    for key, value in overrides.items():
        for prefix, why in NO_FIGURE.items():
            if key == prefix or (prefix.endswith(".") and key.startswith(prefix)):
                out.append(f"--set {key}={value} changes no figure of the par sheet: {why}")
                break
    return out


def chart_warning(rules: Variant, shipped: Variant) -> str | None:
    """What to tell the user where no shipped chart fits the rules and the shipped rules' chart
    is played as it is (None where one fits)."""
    try:
        strategy_for(rules)
    except ConfigError as exc:
        chart = Path(strategy_for(shipped).path).name
        more = len(exc.problems) - 1
        why = exc.problems[0] + (f", and {more} more" if more else "")
        return (
            f"No shipped chart fits these rules ({why}), so the figures are those of {chart}, "
            f"the chart of {shipped.id} as shipped, played as it is: not the best play for the "
            "changed rules. --strategy basic generates the basic strategy for these rules."
        )
    return None


EdgeKey = tuple[object, ...]


def edge_key(rules: Variant, strategy: Strategy | None, wager: int) -> EdgeKey:
    """What a house edge depends on: the rules but the cut card (the analysis shuffles before
    every round), the strategy's decisions (its lookup tables), the wager."""
    dump = rules.model_dump(mode="json")
    dump["shoe"].pop("cut_card_reserve", None)
    play = None if strategy is None else strategy.decisions
    return (json.dumps(dump, sort_keys=True), play, wager)


@dataclass(frozen=True)
class Priced:
    """The par sheet's own game: its analysis (walked), house edge and reach, to re-price
    changed rules under which every hand is played the same (:mod:`reprice`)."""

    analysis: Analysis
    edge: float
    reach: Reach


def _edge(
    rules: Variant,
    strategy: Strategy | None,
    wager: int,
    known: dict[EdgeKey, float],
    priced: Priced | None = None,
) -> float:
    """The house edge, from ``known`` where the par sheet met the same game before (the decks
    curve at the shipped count, a toggle that is the curve's other count...); re-priced from
    ``priced`` where the rules change only what the hands are paid (ties, natural odds, bonus
    rows...); else walked, with the values of ``priced``'s hands that the change leaves alone
    (:meth:`Analysis.reuse`: the unsplit hands under a rule of the splits...)."""
    key = edge_key(rules, strategy, wager)
    got = known.get(key)
    if got is None:
        analysis = Analysis(rules, Shoe.of_variant(rules), wager, strategy)
        if priced is not None and analysis.plays_as(priced.analysis):
            got = priced.edge - priced.reach.delta(priced.analysis, analysis)
        else:
            if priced is not None:  # the hands the change leaves alone keep their values
                analysis.reuse(priced.analysis)
            got = analysis.house_edge()
        known[key] = got
    return got


def toggles(rules: Variant) -> list[tuple[str, dict[str, Any]]]:
    """Each rule of the variant changed alone: (what, overrides)."""
    d, h, p, dbl, sp = rules.dealer, rules.hands, rules.payouts, rules.double, rules.split
    out: list[tuple[str, dict[str, Any]]] = [
        (
            f"dealer {'stands on' if d.hits_soft_17 else 'hits'} soft 17",
            {"dealer.hits_soft_17": not d.hits_soft_17},
        ),
        (
            f"{8 if rules.shoe.decks != 8 else 6} decks instead of {rules.shoe.decks}",
            {"shoe.decks": 8 if rules.shoe.decks != 8 else 6},
        ),
        (
            f"ties {'push' if h.ties.value == 'dealer-wins' else 'to the dealer'}",
            {"hands.ties": "push" if h.ties.value == "dealer-wins" else "dealer-wins"},
        ),
        (
            f"natural pays {'3:2' if p.natural != 1.5 else '2:1'}",
            {"payouts.natural": "3:2" if p.natural != 1.5 else "2:1"},
        ),
    ]
    if d.stands_on_five_cards:
        out.append(("dealer draws past five cards", {"dealer.stands_on_five_cards": False}))
    if h.dealer_five_card_trick:
        out.append(("no dealer five-card trick", {"hands.dealer_five_card_trick": False}))
    if h.five_card_trick:
        out.append(("no five-card trick", {"hands.five_card_trick": False}))
    out.append(
        (
            f"{'no ' if h.natural_after_split else ''}natural after a split",
            {"hands.natural_after_split": not h.natural_after_split},
        )
    )
    if h.stand_minimum:
        out.append(("no stand minimum", {"hands.stand_minimum": 0}))
    if h.max_cards:
        out.append(("no card limit", {"hands.max_cards": 0}))
    if p.twenty_one_paid_at_once:
        out.append(("21 not paid at once", {"payouts.twenty_one_paid_at_once": False}))
    if p.bonus:
        out.append(("no bonus table", {"payouts.bonus": []}))
    if rules.super_bonus.enabled:
        out.append(("no Super Bonus", {"super_bonus.enabled": False}))
    if dbl.allowed:
        if dbl.rescue:
            out.append(("no rescue", {"double.rescue": False}))
        out.append(
            (
                f"one card after a double: {'any' if dbl.cards_after.value == 'one' else 'one'}",
                {"double.cards_after": "any" if dbl.cards_after.value == "one" else "one"},
            )
        )
        out.append(
            (
                f"{'no ' if dbl.after_split else ''}double after split",
                {"double.after_split": not dbl.after_split},
            )
        )
        if dbl.initial_aces_count_one:
            out.append(
                (
                    "initial aces count normally on a double",
                    {"double.initial_aces_count_one": False},
                )
            )
        if dbl.max_cards != 2:
            out.append(("double on two cards only", {"double.max_cards": 2}))
    if sp.allowed:
        if sp.max_hands > 2:
            out.append(("split once only", {"split.max_hands": 2}))
        if not sp.split_aces_one_card:  # one-card split aces are never resplit (the round)
            out.append(
                (
                    f"{'no ' if sp.resplit_aces else ''}resplit aces",
                    {"split.resplit_aces": not sp.resplit_aces},
                )
            )
        one_card: dict[str, Any] = {"split.split_aces_one_card": not sp.split_aces_one_card}
        if not sp.split_aces_one_card and sp.resplit_aces:
            one_card["split.resplit_aces"] = False  # what one card each already means
        if not sp.split_aces_one_card and dbl.on_split_aces:
            one_card["double.on_split_aces"] = False  # (the same)
        out.append(
            (f"split aces {'draw on' if sp.split_aces_one_card else 'take one card'}", one_card)
        )
    if rules.surrender.allowed:
        out.append(("no surrender", {"surrender.allowed": False}))
    if rules.dealer_natural.against_doubles.value == "original-only":
        out.append(
            (
                "dealer natural takes doubles and splits too",
                {"dealer_natural.against_doubles": "all", "dealer_natural.against_splits": "all"},
            )
        )
    return out


def dealer_tables(rules: Variant) -> dict[str, Any]:
    """The dealer's final hand per first card, from the full shoe less that card (and where
    the dealer checks for a natural, also after the check)."""
    a = Analysis(rules, Shoe.of_variant(rules))
    out: dict[str, Any] = {}
    for v in VALUES:
        if not a.shoe.counts[v - 1]:
            continue
        dist = a.tables[v].distribution(add(a.shoe.counts, v, -1), exclude_natural=False)
        row = _labelled(dist)
        nat = float(dist[NATURAL_INDEX])
        entry: dict[str, Any] = {"before_check": row}
        if a._peeks[v] and nat > 0:
            after = dist.copy()
            after[NATURAL_INDEX] = 0.0
            entry["after_check"] = _labelled(after / after.sum())
        out["A" if v == 1 else ("T" if v == 10 else str(v))] = entry
    return out


def _labelled(dist: Any) -> dict[str, float]:
    row: dict[str, float] = {}
    for i, p in enumerate(dist):
        if p <= 0:
            continue
        label = category_label(CATEGORIES[i])
        if label not in ("bust", "natural", "five-card", "17", "18", "19", "20", "21"):
            label = "under 17"
        row[label] = row.get(label, 0.0) + float(p)
    return row


def build(request: Request, progress: Progress | None = None) -> dict[str, Any]:
    """Compute the par sheet (no cache), the cycle collector paused (:func:`collector_paused`)
    and its analyses sharing their payoffs (:func:`~.engine.payoffs_shared`)."""
    with collector_paused(), payoffs_shared():
        return _build(request, progress)


def _build(request: Request, progress: Progress | None = None) -> dict[str, Any]:
    say = progress or (lambda _m: None)
    started = time.process_time()
    wall = time.monotonic()
    rules = load_rules(request)
    shipped = load_variant(request.variant)
    wager = request.wager_cents
    generated_toml: str | None = None
    warning: str | None = None
    if request.strategy == "optimal":
        say("optimal play: every composition")
        optimum = Analysis(rules, Shoe.of_variant(rules), wager, None)
        generator = Generator(optimum)
        data = generator.run()
        generated_toml = to_toml(data)
        strategy = strategy_from_mapping(data, "generated optimal strategy", rules)
        strategy_note = (
            "generated optimal strategy (the best play per cell of the strategy file: total, "
            "cards and dealer's card; validated)"
        )
        cd_edge: float | None = optimum.house_edge()
        del optimum, generator  # its walk's memo is done with (a million hands: the memory)
    elif request.strategy == "basic":
        say("basic strategy: the best play of each total")
        basic = basic_strategy(rules, Shoe.of_variant(rules), wager)
        strategy = basic.strategy
        generated_toml = to_toml(basic.data, "basic")
        strategy_note = (
            "generated basic strategy (total-dependent: by total, soft or hard, pair and "
            f"dealer's card; the best of its starts: {basic.rounds} rounds of improvement "
            f"from {basic.start}; validated)"
        )
        cd_edge = None
    elif request.strategy == "shipped":
        strategy, strategy_note = shipped_strategy(rules, shipped)
        warning = chart_warning(rules, shipped)
        cd_edge = None
    else:
        strategy = load_strategy(request.strategy, rules)
        strategy_note = f"{request.strategy} (validated for these rules)"
        cd_edge = None
    say("the strategy's exact value")
    analysis = Analysis(rules, Shoe.of_variant(rules), wager, strategy)
    edge = analysis.house_edge()
    known = {edge_key(rules, strategy, wager): edge}
    say("outcomes")
    reach = Reach()
    tally = Outcomes(analysis, reach=reach).run()
    priced = Priced(analysis, edge, reach)
    net = dict(sorted(tally.net.items()))
    mass = sum(net.values())
    mean = sum(x * p for x, p in net.items())
    second = sum(x * x * p for x, p in net.items())
    variance = second - mean * mean
    sb: dict[str, Any] | None = None
    edge_without_sb = edge
    if rules.super_bonus.enabled:
        no_sb = load_variant(
            request.variant, {**request.overrides, "super_bonus.enabled": False}, analysis=True
        )
        edge_without_sb = _edge(no_sb, strategy, wager, known, priced)
        p_sb = tally.events.get("super bonus", 0.0)
        bands = []
        for band in rules.super_bonus.bands:
            for at in (band.min_cents, band.max_cents):
                if at is None:
                    continue
                bands.append(
                    {
                        "band_min_cents": band.min_cents,
                        "band_max_cents": band.max_cents,
                        "amount_cents": band.amount_cents,
                        "wager_cents": at,
                        "cost_per_wager": p_sb * band.amount_cents / at,
                    }
                )
        sb = {
            "probability_per_box": p_sb,
            "one_in": (1 / p_sb) if p_sb else None,
            "cost_at_wager": edge_without_sb - edge,
            "bands": bands,
            "table_bonus_cents": rules.super_bonus.other_wagers_cents,
            "table_bonus_cost_per_other_wager_cents": p_sb * rules.super_bonus.other_wagers_cents,
        }
    contributions: list[dict[str, Any]] = []
    if request.contributions:
        for what, overrides in toggles(rules):
            say(f"rule: {what}")
            try:
                changed = load_variant(
                    request.variant, {**request.overrides, **overrides}, analysis=True
                )
                chart, note = shipped_strategy(changed, shipped)
                e = _edge(
                    changed,
                    chart if request.strategy != "optimal" else strategy,
                    wager,
                    known,
                    priced,
                )
            except (ConfigError, ValueError) as exc:
                contributions.append({"rule": what, "overrides": overrides, "error": str(exc)})
                continue
            contributions.append(
                {
                    "rule": what,
                    "overrides": overrides,
                    "house_edge": e,
                    "change": e - edge,
                    "strategy": note,
                }
            )
    decks: list[dict[str, Any]] = []
    if request.contributions:
        for n in DECKS_CURVE:
            say(f"{n} deck" + ("" if n == 1 else "s"))
            size = n * rules.shoe.deck.size
            over = {
                **request.overrides,
                "shoe.decks": n,
                "shoe.cut_card_reserve": min(rules.shoe.cut_card_reserve, size // 2),
            }
            try:
                changed = load_variant(request.variant, over, analysis=True)
                chart, _note = shipped_strategy(changed, shipped)
                e = _edge(changed, chart, wager, known, priced)
                decks.append({"decks": n, "house_edge": e})
            except (ConfigError, ValueError) as exc:
                decks.append({"decks": n, "error": str(exc)})
    insurance = None
    if rules.insurance.allowed:
        shoe = Shoe.of_variant(rules).counts
        after = add(shoe, 1, -1)
        p_ten = after[9] / sum(after)
        pays = float(rules.insurance.pays)
        insurance = {
            "edge_per_unit_insured": -(p_ten * pays - (1 - p_ten)),
            "note": "against an ace, from the shoe less the ace (the player's cards "
            "shift it a little); the strategies never insure",
        }
    hands_total = 1.0
    events = {k: v / hands_total for k, v in sorted(tally.events.items())}
    sheet: dict[str, Any] = {
        "variant": rules.id,
        "name": rules.name,
        "overrides": dict(request.overrides),
        "shoe": {
            "deck": rules.shoe.deck.value,
            "decks": rules.shoe.decks,
            "cards": rules.shoe.decks * rules.shoe.deck.size,
        },
        "wager_cents": wager,
        "strategy": strategy_note,
        "house_edge": edge,
        "house_edge_without_super_bonus": edge_without_sb,
        "house_edge_composition_dependent_optimum": cd_edge,
        "variance": variance,
        "standard_deviation": variance**0.5,
        "outcome_mass": mass,
        "net_distribution": {f"{x:g}": p for x, p in net.items()},
        "hit_frequency": {
            "round_won": sum(p for x, p in net.items() if x > 0),
            "round_pushed": sum(p for x, p in net.items() if x == 0),
            "round_lost": sum(p for x, p in net.items() if x < 0),
        },
        "events": events,
        "wins_by_odds": dict(sorted(tally.wins_by.items())),
        "super_bonus": sb,
        "insurance": insurance,
        "contributions": contributions,
        "edge_by_decks": decks,
        "dealer": dealer_tables(rules),
        "strategy_tables": {
            k: {r: " ".join(c) for r, c in v.items()} for k, v in strategy.tables.items()
        },
        "generated_strategy_toml": generated_toml,
        **({"generated_strategy_kind": "basic"} if request.strategy == "basic" else {}),
        **({"strategy_warning": warning} if warning else {}),
        "method": {
            "engine_version": ENGINE_VERSION,
            "exact": "every composition of the player's hand and the dealer's hand from the "
            "finite shoe (one box, shoe shuffled before the round)",
            "splits": "Wizard of Odds appendix 9 method: each split hand is played exactly "
            "from the shoe less the dealer's first card and the pair cards split so far, the "
            "other split hands' cards ignored",
            "split_distribution": "the net distribution of split boxes takes their hands as "
            "independent given the dealer's final hand (the mean is the exact split value)",
            "cpu_seconds": None,
            "wall_seconds": None,
        },
    }
    sheet["method"]["cpu_seconds"] = round(time.process_time() - started, 1)
    sheet["method"]["wall_seconds"] = round(time.monotonic() - wall, 1)
    return sheet


def par_sheet(
    request: Request,
    progress: Progress | None = None,
    use_cache: bool = True,
) -> tuple[dict[str, Any], bool]:
    """The par sheet, from the cache (:func:`cache_dir`) when the same rules were analysed
    before. Returns the sheet and whether it came from the cache."""
    rules = load_rules(request)
    strategy_text = BASIC_SEARCH if request.strategy == "basic" else ""
    if request.strategy not in ("shipped", "optimal", "basic"):
        strategy_text = Path(request.strategy).read_text(encoding="utf-8")
    key = rules_hash(rules, request, strategy_text)
    where = cache_dir() / f"{rules.id}-{key[:16]}.json"
    if use_cache and where.exists():
        try:
            return json.loads(where.read_text(encoding="utf-8")), True
        except (OSError, json.JSONDecodeError):
            pass
    sheet = build(request, progress)
    sheet["rules_hash"] = key
    make_folders(where.parent)
    write_private(where, json.dumps(sheet, indent=1).encode(), "the par sheet's cache file")
    return sheet, False
