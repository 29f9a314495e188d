"""What the table makes of the shoe's reports: draw numbers, unreadable cards, pushbacks, reloads,
and how many of each card the shoe has given.

Each card comes with the shoe's draw number: one more than the last applied (plus one per
unreadable card). Within one boot of one unit, an old number is a repeat and is not applied
again. A jump means cards left the shoe unseen, and the table locks up for a supervisor's check
instead of guessing (the card itself then waits, as a card nobody asked for). A number that does
not follow on after the shoe restarted (another boot_count) or from another unit (another serial)
is no repeat: the shoe lost its count, so the table locks up the same way and every card from
then on waits for the supervisor (protocol.md, "Recovery after a reboot or reconnect"). A card
the shoe pushed back after the table applied it stays dealt: the table holds until it is drawn
again, and does not apply it twice. A new shoe nobody asked for in the middle of a round locks
the table up.

The table counts the cards of the current shoe itself, whatever the shoe says of its own
inventory: a card of which the variant's decks hold no more than have come out already (a
seventh ace of spades from six decks) is kept out of the round; a supervisor burns it or voids
the round. The count starts afresh with each new shoe loaded, and is rebuilt with the rest of
the table when the journal is replayed.

When a shoe ends (the shoe loads the next one: a shuffle asked for with SHF, or a shoe changed
that nobody asked for) the table writes its *receipt* (:class:`ShoeReceipt`, a ``shoe_receipt``
row): the cards that came out of it, counted against the declared decks, the cards that must be
left in it by rank and suit, and any shortfall or surplus against what the shoe itself reports.

:class:`ShoeWatch` keeps the numbers and says what to do as *steps*: notes for the journal and
inputs for the round, which the table carries out in order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from controller.game.holds import HoldCause, HoldKind
from controller.game.words import count_words
from controller.round.inputs import DrawnCard, Hold, Input, Resume, Shuffle
from drivers.tbl21.cards import Card, DeckType, deck
from drivers.tbl21.events import CardDrawn, DeviceIdentity, FaultRaised
from drivers.tbl21.faults import FaultCode, Severity


@dataclass(frozen=True, slots=True)
class Note:
    """Something worth a journal note that changes nothing in the round."""

    text: str


@dataclass(frozen=True, slots=True)
class ShoeReceipt:
    """The account of one shoe at its end (``docs/floor.md``, "Dealer performance and shoe
    receipts"): ``reason`` ``shuffle`` (SHF asked for the next shoe) or ``changed`` (the shoe
    loaded another nobody asked for); ``declared`` the cards of the declared decks; ``dealt``
    the cards that came out of the shoe and were counted (read by the shoe, or keyed in for one
    it could not read: ``keyed``); ``left`` the cards the decks must still hold, by card
    (``"AS": 6``), ``cards_left`` their sum; ``loaded`` the cards the shoe counted when it was
    loaded (None: not known, e.g. the shoe a table starts on); ``shoe_left`` the cards the shoe
    holds by its own word: what it said were left at its last draw (or counted at its loading),
    less the unreadable cards since (None: no word); ``kept_out`` the cards over the decks'
    count (a seventh ace of spades from six decks), each a card too many; ``shortfall`` the
    cards the decks must still hold that the shoe does not (``cards_left`` less ``shoe_left``);
    ``surplus`` the cards it holds beyond them, and the ``kept_out`` ones (and keyed-in ones
    beyond the count); ``cut_card`` whether the cut card had come out; ``round`` the round last
    opened on it; ``set_aside`` the cards of rows a supervisor set aside (a void at a halted
    start: which cards is not known, so ``left`` still counts them; the shortfall and surplus
    do not)."""

    reason: str
    decks: int
    deck: str  # "52" or "48" (DeckType)
    declared: int
    dealt: int
    keyed: int
    cards_left: int
    left: dict[str, int]
    loaded: int | None
    shoe_left: int | None
    kept_out: tuple[str, ...]
    shortfall: int
    surplus: int
    cut_card: bool
    round: int
    set_aside: int = 0


Step = Note | Input | ShoeReceipt


def committed_cut(decks: int, deck_size: int, reserve: int) -> int:
    """Where the table commits the cut card of every shoe, before its first card: after
    ``decks x deck_size - reserve`` cards (``shoe.cut_card_reserve``). A ``new_shoe`` order carries
    it (journal format 14 on), and the ``config`` row of a start for the shoe already loaded."""
    return decks * deck_size - reserve


def cut_tolerance(deck_size: int, virtual: bool) -> int:
    """How far (in cards) the cut card may come out from the committed position. protocol.md
    gives no tolerance: a virtual cut is the shoe's own count, so it must be exact; a physical
    cut card is placed by hand, so a quarter of a deck either way (13 cards of 52, 12 of 48)."""
    return 0 if virtual else deck_size // 4


DRAW_RESET = "DRAW_RESET"  # the technical code of the lockup for a draw count that went back
OVER_COUNT = "is one more than"  # how the hold for a card over the shoe's count says it


class ShoeWatch:
    """The shoe's position as the table has applied it. ``decks``: how many decks the variant's
    shoe holds (each card that many times)."""

    def __init__(self, decks: int = 8, deck_type: DeckType = DeckType.STANDARD_52) -> None:
        self.decks = decks
        self.deck_type = deck_type
        self.last_draw_no: int | None = None  # the shoe's last draw number applied
        self.last_boot: int | None = None  # ... the boot_count it came with
        self.last_unit: str | None = None  # ... and the unit (model and serial) it came from
        self.unit: str | None = None  # the unit the shoe identified as last
        self.counts: Counter[Card] = Counter()  # the cards of the current shoe so far
        self.unread_draws = 0  # unreadable cards since then (each leaves a gap of one)
        self.last_card: Card | None = None  # the last card from the shoe the table applied
        self.pushed_back: Card | None = None  # applied, then pushed back into the shoe (0x12)
        self.shuffle_requested = False  # SHF pressed: the shoe was told to load a new shoe
        # The account of the current shoe, for its receipt (:meth:`receipt`):
        self.loaded_cards: int | None = None  # the cards the shoe counted at its loading
        self.shoe_left: int | None = None  # the cards the shoe said were left at its last draw
        self.kept_out: Counter[Card] = Counter()  # cards over the decks' count
        self.keyed: Counter[Card] = Counter()  # cards the dealer keyed in for unreadable ones
        self.cut_seen = False  # the cut card came out of this shoe
        self.set_aside = 0  # cards of rows a supervisor set aside (which ones is not known)

    def drawn(self, event: CardDrawn) -> list[Step]:
        """What to do with a card the shoe reports (the last step, if any, is the card)."""
        last = self.last_draw_no
        if last is not None and event.draw_no <= last and not self._same_boot(event):
            # The shoe restarted or was swapped, and its count went back: no repeat, but a
            # card the record cannot place. The card waits for the supervisor, as do the next.
            why = (
                f"was replaced by {self.unit}"
                if self.unit != self.last_unit
                else f"restarted (boot {event.boot})"
            )
            self._take(event)
            return [
                Hold(
                    HoldKind.LOCKUP,
                    f"{DRAW_RESET}: the shoe {why} and its draw number went back from {last} "
                    f"to {event.draw_no}: the cards since cannot be matched to the record; "
                    "supervisor verification",
                    "shoe",
                    HoldCause.DRAW_RESET,
                ),
                self._card(event.card),
            ]
        if last is not None and event.draw_no <= last:
            return [
                Note(
                    f"card {event.card} of draw {event.draw_no} seen "
                    f"before (last draw {last}): not applied again"
                )
            ]
        if self.pushed_back is not None and event.card == self.pushed_back:
            # The card the shoe pushed back comes out again: it was dealt already, so it goes
            # where it went the first time and is not applied a second time.
            self._take(event)
            self.pushed_back = None
            return [
                Note(
                    f"card {event.card} drawn again after its pushback (draw {event.draw_no}): "
                    "already dealt, not applied again"
                ),
                Resume(HoldKind.REDRAW, "shoe"),
            ]
        steps: list[Step] = []
        if last is not None and event.draw_no > last + 1 + self.unread_draws:
            missing = event.draw_no - last - 1 - self.unread_draws
            steps.append(
                Hold(
                    HoldKind.LOCKUP,
                    f"DRAW_GAP: {missing} card{'' if missing == 1 else 's'} left the shoe unseen "
                    f"before draw {event.draw_no}; supervisor verification",
                    "shoe",
                    HoldCause.DRAW_GAP,
                )
            )
        self._take(event)
        steps.append(self._card(event.card))
        return steps

    def identified(self, identity: DeviceIdentity) -> None:
        """The shoe identified itself (at a start, or again after a reboot or a reconnect)."""
        self.unit = f"{identity.model} {identity.serial}"

    def _same_boot(self, event: CardDrawn) -> bool:
        """The card comes from the boot of the unit the last applied one came from (as far as
        the table knows: an event without a boot_count, or a table that never saw the shoe
        identify, is taken as the same)."""
        same_unit = self.last_unit is None or self.unit is None or self.unit == self.last_unit
        same_boot = self.last_boot is None or event.boot is None or event.boot == self.last_boot
        return same_unit and same_boot

    def _take(self, event: CardDrawn) -> None:
        """The shoe's position is now this draw."""
        self.last_draw_no = event.draw_no
        self.last_boot = event.boot if event.boot is not None else self.last_boot
        self.last_unit = self.unit if self.unit is not None else self.last_unit
        self.unread_draws = 0
        self.shoe_left = event.remaining

    def _card(self, card: Card) -> DrawnCard:
        """The card for the round, counted against the decks of the shoe: one more than they
        hold is kept out of the round."""
        if self.counts[card] >= self.decks:
            self.kept_out[card] += 1
            return DrawnCard(
                card,
                kept_out=f"{OVER_COUNT} this game's shoe holds ({count_words(self.decks)}, "
                "all out already)",
            )
        self.counts[card] += 1
        return DrawnCard(card)

    def skip_to(self, draw_no: int) -> None:
        """Cards left the shoe that the table set aside (a supervisor's void at a halted start):
        the shoe's position is the last of them, and nothing is pushed back."""
        self.last_draw_no = draw_no
        self.unread_draws = 0
        self.pushed_back = None
        self.last_card = None

    def applied(self, card: Card, accepted: bool) -> None:
        """The round took (or refused) the card of the last :meth:`drawn`."""
        self.last_card = card if accepted else None

    def keyed_in(self, card: Card) -> None:
        """The dealer keyed in a card the shoe could not read: it came out of this shoe."""
        self.keyed[card] += 1

    def cut_card(self) -> None:
        self.cut_seen = True

    def receipt(self, reason: str, round_number: int) -> ShoeReceipt | None:
        """The current shoe's account (None: nothing is known of it, no card came out of a
        shoe the table never saw loaded)."""
        dealt = self.counts + self.keyed
        if self.loaded_cards is None and not dealt and not self.kept_out and not self.set_aside:
            return None
        left: dict[str, int] = {}
        for card in deck(self.deck_type):
            left[str(card)] = max(0, self.decks - dealt[card])
        cards_left = sum(left.values())
        over = sum(max(0, dealt[card] - self.decks) for card in dealt)  # keyed beyond the count
        if self.shoe_left is not None:  # the shoe's word at its last draw, less unread since
            shoe_word: int | None = max(0, self.shoe_left - self.unread_draws)
        elif self.loaded_cards is not None:
            shoe_word = max(0, self.loaded_cards - self.unread_draws)
        else:
            shoe_word = None
        expected = cards_left - self.set_aside  # what the shoe should hold
        missing = 0 if shoe_word is None else max(0, expected - shoe_word)
        extra = 0 if shoe_word is None else max(0, shoe_word - expected)
        kept = tuple(str(c) for c in sorted(self.kept_out.elements(), key=str))
        return ShoeReceipt(
            reason=reason,
            decks=self.decks,
            deck=self.deck_type.value,
            declared=self.decks * len(left),
            dealt=sum(dealt.values()),
            keyed=sum(self.keyed.values()),
            cards_left=cards_left,
            left=left,
            loaded=self.loaded_cards,
            shoe_left=shoe_word,
            kept_out=kept,
            shortfall=missing,
            surplus=extra + len(kept) + over,
            cut_card=self.cut_seen,
            round=round_number,
            set_aside=self.set_aside,
        )

    def loaded(
        self, round_open: bool, round_number: int, cards_detected: int | None = None
    ) -> list[Step]:
        """The shoe reports a new shoe: the old one's receipt, then what the shuffle asked for,
        or an irregularity."""
        requested = self.shuffle_requested
        receipt = self.receipt("shuffle" if requested else "changed", round_number)
        steps: list[Step] = [] if receipt is None else [receipt]
        self.last_draw_no, self.unread_draws = 0, 0
        self.counts = Counter()
        self.kept_out, self.keyed = Counter(), Counter()
        self.loaded_cards, self.shoe_left, self.cut_seen = cards_detected, None, False
        self.set_aside = 0
        if self.shuffle_requested:
            self.shuffle_requested = False
            return [*steps, Shuffle()]
        if round_open:
            # Nobody asked for it and a round is open: its cards so far came from the old
            # shoe, the next from the new one. A supervisor checks before play goes on.
            return [
                *steps,
                Hold(
                    HoldKind.LOCKUP,
                    "SHOE_RELOADED: the shoe loaded a new shoe in the middle of "
                    f"round {round_number}; supervisor verification",
                    "shoe",
                    HoldCause.SHOE_RELOADED,
                ),
            ]
        return steps

    def fault(self, event: FaultRaised, device: str) -> list[Step]:
        """A device fault: an unreadable card to key in, a lockup, a card pushed back."""
        if event.code == FaultCode.CARD_UNREADABLE:
            self.unread_draws += 1
            return [
                Hold(HoldKind.UNREADABLE_CARD, "the shoe could not read a card: key it in", device)
            ]
        if event.severity is not Severity.LOCKUP:
            return []
        pushed = self.last_card if event.code == FaultCode.CARD_PUSHBACK else None
        steps: list[Step] = [
            Hold(
                HoldKind.LOCKUP,
                f"{device} lockup {event.name}"
                + ("" if pushed is None else f": {pushed} went back into the shoe"),
                device,
                HoldCause.DEVICE_FAULT,
                event.name,
                pushed,
            )
        ]
        if pushed is not None and self.pushed_back is None:
            # The card was applied before the shoe pushed it back: it stays dealt, and the
            # table holds until it is drawn again (or the round is voided).
            self.pushed_back = pushed
            steps.append(
                Hold(
                    HoldKind.REDRAW,
                    f"draw {pushed} again: it is dealt already and goes where it went the "
                    "first time",
                    device,
                )
            )
        return steps

    def redraw_abandoned(self) -> None:
        """The round was voided: the pushed-back card comes out as a new one."""
        self.pushed_back = None
