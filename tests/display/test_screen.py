"""The dealer's screen at 1024x600 and 1280x800 in a real Chromium, for rounds of each variant.

Two rounds per variant are played on the table (the dealer's hands on the emulated devices, the
decisions pressed as the panel would) with a page of each size open on it: three boxes of $10,
and a crowded one (every box of seven in play, the longest player names, $4,995 wagers, a long
table name). At every state the round passes through and every hand's turn, both pages are
checked: no scrollbar, every key that may be pressed and every live control inside the viewport,
unobscured and at least 48x48 CSS px, the keys where they were in every other state, lit only
the keys the rules want now, no text cut (screen_checks.js ``clipped``: wider or taller than a
box that clips it, or outside the window), the prompt's cards as tall as its lines and the boxes'
cards as large as each box allows (``glance``), and the money shown per box and in total the
ledger of the step, each amount's chips adding up to it. A screenshot of the states that show
the most (the offers, a doubled box, a split box, a hold, the settlement) at each size goes to
artifacts/; axe-core (vendored: axe.min.js) checks the dealer's page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from controller.display.words import KEY_LABELS
from controller.game.prompts import money
from controller.game.settlement import EntryKind, LedgerEntry
from controller.round.inputs import Bet
from controller.service.service import Press
from drivers.tbl21.events import Button

from .conftest import (
    SIZES,
    VIEW_TOKEN,
    VIEW_TOKEN_HASH,
    WAIT_S,
    Table,
    running_table,
    screenshot,
    table_config,
)

# the README's screenshots (1024x600), written by CROUPIER_DOC_SCREENSHOTS=1 pytest
DOC_SHOTS = {
    ("nz-pontoon", "settled"): "display-settled",
    ("nz-pontoon", "split"): "display-split",
    ("pa-blackjack", "insurance"): "display-hole-card",
    ("pa-blackjack", "hold"): "display-link-lost",
}
AXE = Path(__file__).resolve().parent / "axe.min.js"


@dataclass
class Plan:
    """A round: the shoe (top first), the bets, the offers taken, each hand's decisions."""

    cards: str
    hole: str | None = None  # put in the reader at the peek
    offers: dict[str, list[str]] = field(default_factory=dict)  # window -> keys before OK
    # (box, hand) -> its keys, one a turn; a hand without: STAND if it may, else HIT
    decisions: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    hold_at: tuple[int, int] = (3, 1)  # unplug the shoe when this hand's turn comes
    bets: tuple[tuple[int, str, int], ...] = ((1, "ann", 1000), (2, "bob", 1000), (3, "cat", 1000))


# burn; boxes 1-3 get 5 8 9 and the dealer an ace, then 6 8 7: box 1 doubles on 11 (a ten),
# box 2 splits its eights (K, Q), box 3 stands on 16. NZ: no tens (Spanish decks), the dealer's
# second card comes last.
NZ = Plan(
    "2C 5H 8C 9H AH 6D 8D 7S JC KC QH 9C 3S 4S 5S 6S",
    offers={"offers": ["B3_", "INS"]},
    decisions={(1, 1): ["DBL"], (2, 1): ["SPL", "STD"], (2, 2): ["STD"], (3, 1): ["STD"]},
)
# PA: the same boxes against an ace with the 5 of diamonds in the hole; box 2 insures, box 3
# surrenders; the dealer's A 5 draws a 2 (soft 18).
PA = Plan(
    "2C 5H 8C 9H AS 6D 8D 7S 5D TC KC QH 2H 3S 4S 5S 6S",
    hole="5D",
    offers={"insurance": ["B2_", "INS"], "surrender": ["B3_", "SUR"]},
    decisions={(1, 1): ["DBL"], (2, 1): ["SPL", "STD"], (2, 2): ["STD"]},
    hold_at=(2, 2),
)
# Both dealer cards face down (7 and 9: no peek); box 3 stands on 16, the dealer draws a 2.
FACE_DOWN = Plan(
    "2C 5H 8C 9H 7S 6D 8D 7C 9D TC KC QH 2H 3S 4S 5S 6S",
    decisions={(1, 1): ["DBL", "STD"], (2, 1): ["SPL", "STD"], (2, 2): ["STD"], (3, 1): ["STD"]},
)
# The crowded rounds: every box in play, the longest names a player may have, $4,995 wagers (a
# natural pays $7,492.50: six kinds of chips) on a table of the longest id. Box 1 a natural,
# box 2 doubles 5 6 on a 9, box 3 splits its eights (K, Q), box 4 9 7, box 5 J 6 hits 2 and 3,
# box 6 Q 9, box 7 7 7 hits a K (bust).
NAMES = (
    "Maximilian-Smyth",
    "Bartholomew-Kent",
    "Evangeline-Moore",
    "Christopher-Hale",
    "Anastasia-Fields",
    "Jacqueline-Brown",
    "Constantine-West",
)
WAGER = 499_500
CROWD_BETS = tuple((n, NAMES[n - 1], WAGER) for n in range(1, 8))
CROWD_DECISIONS = {
    (2, 1): ["DBL", "STD"],
    (3, 1): ["SPL", "STD"],
    (3, 2): ["STD"],
    (5, 1): ["HIT", "HIT"],
    (7, 1): ["HIT"],
}
# NZ: three players on box 4 and two on box 6 (at most three wagers a box); the dealer's ace
# takes box 6's insurance; his second card, a 9, comes last (soft 20).
NZ_CROWD = Plan(
    "2C AS 5H 8C 9H JD QC 7S AH KD 6D 8D 7C 6C 9C 7D 9S KC QH 2H 3H KH 9D 4S 5S 6S",
    offers={"offers": ["B6_", "INS"]},
    decisions=CROWD_DECISIONS,
    hold_at=(5, 1),
    bets=(*CROWD_BETS, (4, NAMES[0], WAGER), (4, NAMES[6], WAGER), (6, NAMES[2], WAGER)),
)
# PA: the dealer's ace with the 5 of diamonds in the hole draws a 2 (soft 18); box 6 insures,
# box 4 surrenders.
PA_CROWD = Plan(
    "2C AS 5H 8C 9H JD QC 7S AH KD 6D 8D 7C 6C 9C 7D 5D 9S KC QH 2H 3H KH 2S 4S 5S 6S",
    hole="5D",
    offers={"insurance": ["B6_", "INS"], "surrender": ["B4_", "SUR"]},
    decisions=CROWD_DECISIONS,
    hold_at=(5, 1),
    bets=CROWD_BETS,
)
# Both dealer cards face down (7 and 9): he draws a 2 (18).
FACE_DOWN_CROWD = Plan(
    "2C AS 5H 8C 9H JD QC 7S 7H KD 6D 8D 7C 6C 9C 7D 9D 9S KC QH 2H 3H KH 2S 4S 5S 6S",
    decisions=CROWD_DECISIONS,
    hold_at=(5, 1),
    bets=CROWD_BETS,
)
PLANS = {
    ("nz-pontoon", "three"): NZ,
    ("pa-blackjack", "three"): PA,
    ("uk-pontoon", "three"): FACE_DOWN,
    ("pontoon-blackjack", "three"): FACE_DOWN,
    ("nz-pontoon", "crowded"): NZ_CROWD,
    ("pa-blackjack", "crowded"): PA_CROWD,
    ("uk-pontoon", "crowded"): FACE_DOWN_CROWD,
    ("pontoon-blackjack", "crowded"): FACE_DOWN_CROWD,
}
# the crowded rounds' screenshots (the others are checked, not photographed)
CROWD_SHOTS = {"bets", "split", "hold", "settled"}
# a table of the longest id (32 characters) and high limits, for the crowded rounds
CROWD_TABLE = {
    "table_id": "high-limit-salon-privee-table-12",
    "limits": {"min_cents": 2_500, "max_cents": 500_000, "increment_cents": 100},
}


class Dealer:
    """Plays a plan on the table and keeps the ledger entries of each step (from the input that
    last moved the round to another state), as the screen must show them."""

    def __init__(self, table: Table, plan: Plan) -> None:
        self.table = table
        self.plan = plan
        self.step_from = 0  # ledger length when the step began
        self.decided: dict[tuple[int, int], int] = {}
        self.held = False

    @property
    def ledger(self) -> list[LedgerEntry]:
        app = self.table.service.app
        assert app is not None
        return list(app.controller.round.ledger)

    def state(self) -> str:
        app = self.table.service.app
        assert app is not None
        return app.controller.state.value

    def act(self, what: Any) -> None:
        """Carry out one input; a move to another state starts a new step."""
        before, mark = self.state(), len(self.ledger)
        what()
        if self.state() not in (before, "hold") and before != "hold":
            self.step_from = mark

    def press(self, key: str) -> None:
        def pressed() -> None:
            reply = self.table.service.submit(Press(Button(key))).result(WAIT_S)
            assert reply.accepted, f"{key}: {reply.reason}"

        self.act(pressed)

    def step(self) -> list[LedgerEntry]:
        return self.ledger[self.step_from :]

    def play(self) -> Iterator[str]:
        """Play the round, yielding at every state it passes through and at every hand's turn:
        the name of a state to photograph (once each), ``step`` for the others (a run of cards
        dealt in one state is looked at once, when the next state shows them all)."""
        table, plan = self.table, self.plan
        shown: set[str] = set()
        last: tuple[Any, ...] = ()
        while self.state() != "settling":
            for name in self._sights():
                if name not in shown:
                    shown.add(name)
                    yield name
            app = table.service.app
            assert app is not None
            where = (self.state(), app.controller.round.turn, app.controller.round.card_for)
            if where != last:
                last = where
                yield "step"
            state = self.state()
            if state in ("burn", "dealing", "card_due", "dealer"):
                self.act(table.draw)
            elif state == "betting":
                yield "open"
                for box, player, cents in plan.bets:
                    reply = table.service.submit(Bet(box, player, cents)).result(WAIT_S)
                    assert reply.accepted, reply.reason
                yield "bets"
                self.press("DEA")
            elif state in ("offers", "insurance", "surrender"):
                for key in plan.offers.get(state, []):
                    self.press(key)
                yield state
                self.press("OK_")
            elif state == "peek":
                assert plan.hole is not None
                self.act(partial(self._peek, plan.hole))
            elif state == "rescue":
                yield "rescue"
                self.press("OK_")
            elif state == "playing":
                yield from self._decide()
            elif state == "reveal":
                self.press("OK_")
            else:
                pytest.fail(f"the plan has no move for {state}: {table.state()['holds']}")
        yield "settled"

    def _peek(self, hole: str) -> None:
        self.table.reader.insert_hole_card(hole)
        self.table.wait_for(lambda s: s["state"] != "peek", "the peek answered")
        self.table.reader.remove_hole_card()

    def _sights(self) -> list[str]:
        """A doubled hand with its card, a split box with its first hand's card: once each."""
        app = self.table.service.app
        assert app is not None
        out = []
        for box in app.controller.round.boxes.values():
            if any(h.doubles and len(h.cards) > h.cards_at_double for h in box.hands):
                out.append("doubled")
            if len(box.hands) > 1 and len(box.hands[0].cards) >= 2:
                out.append("split")
        return out

    def _decide(self) -> Iterator[str]:
        app = self.table.service.app
        assert app is not None
        turn = app.controller.round.turn
        assert turn is not None
        where = (turn[0], turn[1] + 1)
        if where == self.plan.hold_at and not self.held:
            self.held = True
            self.table.shoe.unplug()
            self.table.wait_for(lambda s: s["state"] == "hold", "the hold")
            yield "hold"
            self.table.shoe.replug()
            self.table.wait_for(lambda s: s["state"] == "playing", "play again")
        done = self.decided.get(where, 0)
        keys = self.plan.decisions.get(where, [])
        self.decided[where] = done + 1
        if done < len(keys):
            self.press(keys[done])
        else:
            self.press("STD" if Button.STAND in app.lit else "HIT")


# --- what every state must pass, at every size ---------------------------------------------

# the page-side checks: layout() and money() (tests/display/screen_checks.js)
CHECKS = (Path(__file__).resolve().parent / "screen_checks.js").read_text()
LAYOUT = f"() => {CHECKS}.layout()"
MONEY = f"() => {CHECKS}.money()"
CLIPPED = f"() => {CHECKS}.clipped()"


def expected_money(entries: list[LedgerEntry]) -> dict[str, dict[str, int]]:
    """Per box: what the ledger of the step says to pay, collect and return."""
    out: dict[str, dict[str, int]] = {}
    for e in entries:
        box = out.setdefault(str(e.box), {"pay": 0, "collect": 0, "return": 0})
        if e.kind is EntryKind.RETURN:
            box["return"] += e.stake_cents
        elif e.amount_cents > 0:
            box["pay"] += e.amount_cents
        else:
            box["collect"] -= e.amount_cents
    return out


def check_money(page: Page, dealer: Dealer, label: str) -> None:
    shown = page.evaluate(MONEY)
    expected = expected_money(dealer.step())
    totals = {"pay": 0, "collect": 0, "return": 0}
    for number, box in shown["boxes"].items():
        want = expected.get(number, {"pay": 0, "collect": 0, "return": 0})
        for kind in ("pay", "collect", "return"):
            totals[kind] += want[kind]
            side = box[kind]
            got = 0 if side is None else side["cents"]
            assert got == want[kind], f"{label}: box {number} {kind} {got}, the ledger {want}"
            if side is not None:
                assert side["text"] == money(want[kind]), label
                assert side["chips"] == want[kind], f"{label}: box {number} {kind} chips"
    assert shown["total"] == totals, f"{label}: total {shown['total']}, the ledger {totals}"
    app = dealer.table.service.app
    assert app is not None
    for number, box in app.controller.round.boxes.items():  # a doubled or split box: all of it
        full = sum(s.base_cents + s.double_cents for h in box.hands for s in h.stakes)
        if not box.hands:  # bets placed, no card yet
            full = sum(w.amount_cents for w in box.wagers)
        assert shown["boxes"][str(number)]["stake"] == full, f"{label}: box {number} stake"


def wait_rendered(table: Table, pages: list[Page]) -> None:
    """Once the table's last pass is published, until every page shows it."""
    app = table.service.app
    assert app is not None
    table.wait_for(
        lambda s: (
            s["state"] == app.controller.state.value
            and s["lit"] == sorted(b.value for b in app.lit)
            and s["entry"] == list(app.entry.keys)
            and sum(len(b["wagers"]) for b in s["boxes"])
            == sum(len(b.wagers) for b in app.controller.round.boxes.values())
        ),
        "the last pass published",
    )
    version = table.display.hub.message()[0]
    for page in pages:
        page.wait_for_function("v => Number(document.body.dataset.version || 0) >= v", arg=version)


def axe_problems(page: Page) -> list[str]:
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} - {[n['target'] for n in v['nodes'][:3]]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize(("variant", "crowd"), list(PLANS))
def test_every_state_of_a_round_fits_both_screens_nothing_cut_the_keys_in_place_the_money_right(
    pages: list[Page], variant: str, crowd: str
) -> None:
    plan = PLANS[variant, crowd]
    extra: dict[str, Any] = dict(CROWD_TABLE) if crowd == "crowded" else {}
    if crowd == "crowded":  # the pit's page of the crowded round too, at the small screen
        extra["display"] = {"view_token_hash": VIEW_TOKEN_HASH}
    loaded = table_config(variant, boxes=[1, 2, 3, 4, 5, 6, 7], **extra)
    with running_table(loaded, plan.cards) as table:
        for page in pages:
            page.goto(table.url)
        pit = pages[0].context.new_page() if crowd == "crowded" else None
        if pit is not None:
            pit.goto(f"{table.url}view?token={VIEW_TOKEN}")
        dealer = Dealer(table, plan)
        keys: dict[int, Any] = {}
        seen = []
        for name in dealer.play():
            seen.append(name)
            wait_rendered(table, pages if pit is None else [*pages, pit])
            if pit is not None:  # seven boxes of cards on half a 1024x600 screen: nothing cut
                clipped = pit.evaluate(CLIPPED)
                if clipped:
                    screenshot(pit, f"failed-pit-{variant}-{crowd}")
                assert clipped == [], f"the pit's page, {variant} {name}: {clipped}"
            for (width, height), page in zip(SIZES, pages, strict=True):
                label = f"{variant} {crowd} {name} ({table.state()['state']}) at {width}"
                layout = page.evaluate(LAYOUT)
                if layout["problems"]:
                    screenshot(page, f"failed-{variant}-{crowd}-{width}x{height}")
                assert not layout["problems"], f"{label}: {layout['problems']}"
                shown = table.state()
                assert layout["enabled"] == sorted(shown["lit"]), label
                assert layout["lit"] == sorted(shown["wanted"]), label
                assert set(layout["ready"]) == set(shown["lit"]) - set(shown["wanted"]), label
                assert layout["labels"] == {b.value: t for b, t in KEY_LABELS.items()}, label
                assert keys.setdefault(width, layout["keys"]) == layout["keys"], label
                check_money(page, dealer, label)
                if name == "step" or (crowd == "crowded" and name not in CROWD_SHOTS):
                    continue
                doc = DOC_SHOTS.get((variant, name)) if width == SIZES[0][0] else None
                doc = doc if crowd == "three" else None
                screenshot(page, f"screen-{variant}-{crowd}-{name}-{width}x{height}", doc)
            if name in ("offers", "insurance", "settled", "hold") and (variant, crowd) in (
                ("nz-pontoon", "three"),
                ("pa-blackjack", "crowded"),
            ):
                assert axe_problems(pages[0]) == [], f"{variant} {name}"
        if pit is not None:
            pit.close()
        wanted = {"open", "bets", "doubled", "split", "hold", "settled"}
        wanted |= set(plan.offers)
        assert wanted <= set(seen), seen


def test_the_step_money_is_said_once_a_natural_paid_at_once_moves_to_done_earlier(
    pages: list[Page],
) -> None:
    # burn; box 1 A K (a pontoon, paid at once), box 2 9 7 against the dealer's ace
    loaded = table_config("nz-pontoon", boxes=[1, 2])
    with running_table(loaded, "2C AS 9H AH KD 7S 9C 3S") as t:
        page = pages[0]
        page.goto(t.url)
        dealer = Dealer(
            t, Plan("", offers={"offers": []}, bets=((1, "ann", 1000), (2, "bob", 1000)))
        )
        for name in dealer.play():
            wait_rendered(t, [page])
            check_money(page, dealer, name)
            box1 = json.loads(json.dumps(t.state()["boxes"][0]))
            if name == "offers":
                assert box1["step"]["pay"]["text"] == "$15"
                assert box1["step"]["pay"]["odds"] == ["3:2"]
                assert page.locator("#box-1-step .amount.pay .odds").text_content() == "at 3:2"
            if name == "settled":
                assert box1["step"] is None
                assert page.locator("#box-1-step .earlier").text_content() == (
                    "done earlier: Pay $15"
                )
