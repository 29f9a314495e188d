"""The dealer's screen at 1024x600 and 1280x800 in a real Chromium, for a round of each variant.

One round per variant is played on the table (the dealer's hands on the emulated devices, the
decisions pressed as the panel would) with a page of each size open on it; at the states that
show the most (the insurance and surrender windows, a doubled box, a split box, a hold, the
settlement) both pages are checked: no scrollbar, every lit key and live control inside the
viewport, unobscured and at least 48x48 CSS px, the keys where they were in every other state,
no text wider than its box, and the money shown per box and in total the ledger of the step,
each amount's chips adding up to it. A screenshot of each state and size goes to artifacts/;
axe-core (vendored: axe.min.js) checks the dealer's page.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
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

from .conftest import WAIT_S, Table, running_table, screenshot, table_config

SIZES = ((1024, 600), (1280, 800))
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
    decisions: dict[tuple[int, int], list[str]] = field(default_factory=dict)  # (box, hand)
    hold_at: tuple[int, int] = (3, 1)  # unplug the shoe when this hand's turn comes


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
PLANS = {
    "nz-pontoon": NZ,
    "pa-blackjack": PA,
    "uk-pontoon": FACE_DOWN,
    "pontoon-blackjack": FACE_DOWN,
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
        """Play the round, yielding at each state to look at (its name)."""
        table, plan = self.table, self.plan
        shown: set[str] = set()
        while self.state() != "settling":
            for name in self._sights():
                if name not in shown:
                    shown.add(name)
                    yield name
            state = self.state()
            if state in ("burn", "dealing", "card_due", "dealer"):
                self.act(table.draw)
            elif state == "betting":
                yield "open"
                boxes = table.service.config.boxes[:3]
                for box, player in zip(boxes, ("ann", "bob", "cat"), strict=False):
                    assert table.service.submit(Bet(box, player, 1000)).result(WAIT_S).accepted
                yield "bets"
                self.press("DEA")
            elif state in ("offers", "insurance", "surrender"):
                for key in plan.offers.get(state, []):
                    self.press(key)
                yield state
                self.press("OK_")
            elif state == "peek":
                assert plan.hole is not None
                self.act(lambda: self._peek(plan.hole))
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
        keys = self.plan.decisions.get(where, ["STD"])
        self.decided[where] = done + 1
        self.press(keys[done] if done < len(keys) else "STD")


# --- what every state must pass, at every size ---------------------------------------------

# the page-side checks: layout() and money() (tests/display/screen_checks.js)
CHECKS = (Path(__file__).resolve().parent / "screen_checks.js").read_text()
LAYOUT = f"() => {CHECKS}.layout()"
MONEY = f"() => {CHECKS}.money()"


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


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[list[Page]]:
    """One page of each size, for the module (tables come and go under them)."""
    contexts = [
        browser.new_context(viewport={"width": w, "height": h}, bypass_csp=True) for w, h in SIZES
    ]
    try:
        out = []
        for context in contexts:
            context.set_default_timeout(WAIT_S * 1000)
            out.append(context.new_page())
        yield out
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("variant", list(PLANS))
def test_every_state_of_a_round_fits_both_screens_with_the_keys_in_place_and_the_money_right(
    pages: list[Page], variant: str
) -> None:
    plan = PLANS[variant]
    with running_table(table_config(variant, boxes=[1, 2, 3, 4, 5, 6, 7]), plan.cards) as table:
        for page in pages:
            page.goto(table.url)
        dealer = Dealer(table, plan)
        keys: dict[int, Any] = {}
        seen = []
        for name in dealer.play():
            seen.append(name)
            wait_rendered(table, pages)
            for (width, height), page in zip(SIZES, pages, strict=True):
                label = f"{variant} {name} at {width}"
                layout = page.evaluate(LAYOUT)
                assert not layout["problems"], f"{label}: {layout['problems']}"
                assert layout["lit"] == sorted(table.state()["lit"]), label
                assert layout["labels"] == {b.value: t for b, t in KEY_LABELS.items()}, label
                assert keys.setdefault(width, layout["keys"]) == layout["keys"], label
                check_money(page, dealer, label)
                doc = DOC_SHOTS.get((variant, name)) if width == SIZES[0][0] else None
                screenshot(page, f"screen-{variant}-{name}-{width}x{height}", doc)
            if name in ("offers", "insurance", "settled", "hold") and variant in (
                "nz-pontoon",
                "pa-blackjack",
            ):
                assert axe_problems(pages[0]) == [], f"{variant} {name}"
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
        dealer = Dealer(t, Plan("", offers={"offers": []}))
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
