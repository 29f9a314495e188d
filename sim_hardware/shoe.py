"""The emulated card-reading shoe (protocol.md, "Shoe (S)").

Physical model: the shoe holds an ordered stack of cards (a seeded shuffle of ``decks`` decks of
``deck_type``, or an explicit list). ``draw()`` is the dealer pulling the top card past the
reader. Choices where protocol.md is silent:

- The shoe powers up loaded with its first shoe (no ``l`` until the host sends ``L``); the gate
  powers up unlocked. The gate is also locked while the device is OFFLINE or DISABLED.
- ``L decks;deck_type;cut_index`` loads the next shoe: the one given to ``prepare_next_shoe``,
  else the explicit list again, else the next seeded shuffle (one ``random.Random(seed)``
  shuffles every shoe in turn). ``l`` reports the number of cards. ``cut_index`` 0 means the
  physical cut card (the ``cut`` given to the constructor; no cut card if None), otherwise a
  virtual cut after that many cards.
- ``x draw_no;P|V`` is sent right after the ``c`` of the last card before the cut; ``e
  draw_no`` right after the ``c`` of the last card.
- Inventory: a card outside the deck type (a ten in a 48-card shoe) raises 0x13; more copies of
  a card than decks raises 0x14.
- 0x10 (misread) and 0x15 (drawn with the gate locked) are reported for every occurrence; 0x10
  clears at the next good read, 0x15 when the gate is unlocked. Lockups (0x12, 0x13, 0x14) stay
  until ``clear_fault``.
- After a reboot the shoe keeps its cards, draw_no and remaining (they are physical or kept in
  non-volatile memory); the gate goes back to unlocked; an open lid is reported again. A reboot
  with ``forget_draw_no`` (a shoe that does not keep its numbers, or a replacement unit) keeps
  the cards but starts the draw number at 0 again.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Unpack

from drivers.tbl21.cards import Card, DeckType, Rank, shoe_cards
from drivers.tbl21.events import DeviceState
from drivers.tbl21.faults import FaultCode, Severity
from drivers.tbl21.framing import Frame
from sim_hardware.cardlist import parse_card_list, read_card_file
from sim_hardware.device import DeviceCore, DeviceOptions, Flag, action
from sim_hardware.errors import ShoeEmptyError, SimActionError, SimConfigError
from sim_hardware.faults import (
    COMMON_FAULTS,
    DuplicateCard,
    FaultSpec,
    ForeignCard,
    LidOpen,
    Misread,
    Pushback,
)

CARD_UNREADABLE = FaultCode.CARD_UNREADABLE
CARD_PUSHBACK = FaultCode.CARD_PUSHBACK
CARD_UNEXPECTED = FaultCode.CARD_UNEXPECTED
CARD_OVER_INVENTORY = FaultCode.CARD_OVER_INVENTORY
DRAW_OUT_OF_PHASE = FaultCode.DRAW_OUT_OF_PHASE
LID_OPEN = FaultCode.LID_OPEN
MAX_DECKS = 8


@dataclass(frozen=True, slots=True)
class Draw:
    """What one pull of the dealer did. ``card`` is what the host was told (None: misread);
    ``physical`` is the card that really left the shoe."""

    draw_no: int
    card: Card | None
    physical: Card
    remaining: int


def _deck_type(value: DeckType | str | int) -> DeckType:
    try:
        return DeckType(str(value))
    except ValueError:
        raise SimConfigError(f"deck_type must be 52 or 48, got {value!r}") from None


class EmulatedShoe(DeviceCore):
    """A card-reading shoe. See the module docstring for its behaviour."""

    dev_code = "S"
    model = "SIM-SHOE"
    accepted_faults = (*COMMON_FAULTS, Misread, ForeignCard, DuplicateCard, Pushback, LidOpen)

    def __init__(
        self,
        *,
        decks: int = 6,
        deck_type: DeckType | str | int = DeckType.STANDARD_52,
        seed: int | None = 0,
        cards: Sequence[Card | str] | str | None = None,
        cut: int | None = None,
        **kwargs: Unpack[DeviceOptions],
    ) -> None:
        if not 1 <= decks <= MAX_DECKS:
            raise SimConfigError(f"decks must be 1..{MAX_DECKS}, got {decks}")
        self.decks = decks
        self.deck_type = _deck_type(deck_type)
        self._shuffler = random.Random(seed)
        self._quality = random.Random(seed)
        self._explicit = parse_card_list(cards) if cards is not None else None
        first = self._explicit if self._explicit is not None else self._shuffled()
        if cut is not None and not 1 <= cut <= len(first):
            raise SimConfigError(f"cut must be 1..{len(first)} (cards before the cut), got {cut}")
        self.cut = cut
        self._next_shoe: list[Card] | None = None
        self._cards: deque[Card] = deque()
        self._draw_no = 0
        self._seen: Counter[Card] = Counter()
        self._cut_at: int | None = None
        self._cut_kind = "P"
        self._cut_sent = False
        self._last_card: Card | None = None
        self._lid_open = False
        self._gate_locked = False
        self._fill(first, cut_index=0)
        super().__init__(seed=seed, **kwargs)

    @classmethod
    def from_file(
        cls,
        path: str | Path,
        *,
        decks: int = 6,
        deck_type: DeckType | str | int = DeckType.STANDARD_52,
        cut: int | None = None,
        seed: int | None = 0,
        **kwargs: Unpack[DeviceOptions],
    ) -> EmulatedShoe:
        """A shoe whose order is read from a text file of cards (``AS KH 7C ...``)."""
        return cls(
            cards=read_card_file(path),
            decks=decks,
            deck_type=deck_type,
            cut=cut,
            seed=seed,
            **kwargs,
        )

    # ---- what tests and people look at ----------------------------------------------------

    @property
    def draw_no(self) -> int:
        return self._draw_no

    @property
    def remaining(self) -> int:
        return len(self._cards)

    @property
    def cards_left(self) -> list[Card]:
        """The stack still in the shoe, top first (the test's view, not the host's)."""
        with self.lock:
            return list(self._cards)

    @property
    def gate_locked(self) -> bool:
        """The gate as it is now: locked by the host, or because offline or disabled."""
        return self._gate_locked or self._offline or not self._enabled

    @property
    def lid_open(self) -> bool:
        return self._lid_open

    # ---- the dealer's hands -----------------------------------------------------------------

    def skip(self, count: int) -> None:
        """Take ``count`` cards off the top without reporting them: a restarted table's shoe
        goes on where its journal left it, and those cards were reported in the shoe's last
        life (told again, the table would only note each as seen before)."""
        with self.lock:
            for _ in range(min(count, len(self._cards))):
                card = self._last_card = self._cards.popleft()
                self._seen[card] += 1
                self._draw_no += 1
            if self._cut_at is not None and self._draw_no >= self._cut_at:
                self._cut_sent = True  # (reported in that life too)

    @action
    def draw(self) -> Draw:
        """The dealer pulls the top card: ``c`` (or a misread), then ``x``/``e`` if due."""
        if not self._cards:
            raise ShoeEmptyError(
                f"the shoe is empty after draw {self._draw_no}; the host must load a new shoe (L)"
            )
        physical = self._cards.popleft()
        self._draw_no += 1
        draw_no = self._draw_no
        spec = self._take_draw_spec(draw_no)
        told: Card | None = physical
        if isinstance(spec, Misread):
            told = None
            self._raise(CARD_UNREADABLE, repeat=True)
        else:
            if isinstance(spec, ForeignCard):
                physical = told = Card.parse(spec.card)
            elif isinstance(spec, DuplicateCard):
                copy = Card.parse(spec.card) if spec.card else self._last_card
                assert copy is not None  # DuplicateCard refuses draw 1 without a card
                physical = told = copy
            self._read(physical, draw_no, spec)
        if isinstance(spec, Pushback):
            self._raise(CARD_PUSHBACK)
            self._cards.appendleft(physical)
            self._seen[physical] -= 1  # back in the shoe: it will be read again
        self._last_card = physical
        if self._cut_at is not None and not self._cut_sent and draw_no >= self._cut_at:
            self._cut_sent = True
            self._emit("x", f"{draw_no:04d};{self._cut_kind}")
        if not self._cards:
            self._emit("e", f"{draw_no:04d}")
        self._fire_at_draw(draw_no)
        return Draw(draw_no=draw_no, card=told, physical=physical, remaining=len(self._cards))

    def _read(self, card: Card, draw_no: int, spec: FaultSpec | None) -> None:
        quality = self._quality.randint(90, 99)
        self._emit("c", f"{card};{draw_no:04d};{len(self._cards):04d};{quality:02d}")
        self._clear(CARD_UNREADABLE)
        self._seen[card] += 1
        if isinstance(spec, ForeignCard):
            self._raise(CARD_UNEXPECTED)
        elif self.deck_type is DeckType.SPANISH_48 and card.rank is Rank.TEN:
            self._raise(CARD_UNEXPECTED, text=f"CARD_UNEXPECTED {card}")
        elif self._seen[card] > self.decks or (
            isinstance(spec, DuplicateCard) and spec.force_fault
        ):
            self._raise(CARD_OVER_INVENTORY, text=f"CARD_OVER_INVENTORY {card}")
        if self.gate_locked:
            self._raise(DRAW_OUT_OF_PHASE, repeat=True)

    def _take_draw_spec(self, draw_no: int) -> FaultSpec | None:
        for spec in self._injections:
            if isinstance(spec, (Misread, ForeignCard, DuplicateCard, Pushback)) and (
                spec.draw == draw_no
            ):
                self._injections.remove(spec)
                return spec
        return None

    @action
    def open_lid(self) -> None:
        """Open the lid: ``o LID;O`` and fault 0x40 (lockup while dealing)."""
        if self._lid_open:
            raise SimActionError("the shoe lid is already open")
        self._open_lid()

    def _open_lid(self) -> None:
        self._lid_open = True
        self._door("LID", True)
        dealing = self._draw_no > 0 and not self.gate_locked
        self._raise(LID_OPEN, Severity.LOCKUP if dealing else Severity.WARNING)

    @action
    def close_lid(self) -> None:
        """Close the lid: ``o LID;C`` and fault 0x40 cleared."""
        if not self._lid_open:
            raise SimActionError("the shoe lid is already closed")
        self._close_lid()

    def _close_lid(self) -> None:
        self._lid_open = False
        self._door("LID", False)
        self._clear(LID_OPEN)

    @action
    def prepare_next_shoe(self, cards: Sequence[Card | str] | str) -> None:
        """The order the next ``L`` (new shoe) loads."""
        self._next_shoe = parse_card_list(cards, source="next shoe")

    # ---- internals ----------------------------------------------------------------------------

    def _shuffled(self) -> list[Card]:
        cards = shoe_cards(self.deck_type, self.decks)
        self._shuffler.shuffle(cards)
        return cards

    def _fill(self, cards: list[Card], cut_index: int) -> None:
        self._cards = deque(cards)
        self._draw_no = 0
        self._seen.clear()
        self._cut_sent = False
        self._last_card = None
        if cut_index:
            self._cut_at, self._cut_kind = cut_index, "V"
        else:
            self._cut_at, self._cut_kind = self.cut, "P"

    def _device_command(self, frame: Frame, now: float) -> bool | str | None:
        if frame.kind == "G":
            if frame.payload not in ("L", "U"):
                return "BAD_ARG"
            self._gate_locked = frame.payload == "L"
            if not self._gate_locked:
                self._clear(DRAW_OUT_OF_PHASE)
            return True
        if frame.kind == "L":
            return self._new_shoe(frame.fields)
        return None

    def _new_shoe(self, fields: list[str]) -> bool | str:
        if len(fields) != 3 or not all(f.isdigit() for f in fields):
            return "BAD_ARG"
        decks, deck_type, cut_index = int(fields[0]), fields[1], int(fields[2])
        if not 1 <= decks <= MAX_DECKS or deck_type not in ("52", "48"):
            return "BAD_ARG"
        self.decks, self.deck_type = decks, DeckType(deck_type)
        if self._next_shoe is not None:
            cards, self._next_shoe = self._next_shoe, None
        elif self._explicit is not None:
            cards = list(self._explicit)
        else:
            cards = self._shuffled()
        if cut_index > len(cards):
            return "BAD_ARG"
        self._fill(cards, cut_index)
        self._emit("l", str(len(cards)))
        return True

    def _identity_extra(self) -> str:
        return f";{self.deck_type.value}"  # the decks the shoe says it holds

    def _device_specific(self) -> str:
        gate = "L" if self.gate_locked else "U"
        return f"{self._draw_no:04d};{len(self._cards):04d};{gate}"

    def _device_flags(self) -> int:
        return int(Flag.GATE_LOCKED) if self.gate_locked else 0

    def _device_fire(self, spec: FaultSpec, now: float) -> None:
        if isinstance(spec, LidOpen):
            if not self._lid_open:
                self._open_lid()
            if spec.close_after_s is not None:
                self._schedule(now + spec.close_after_s, lambda _at: self._lid_closed_by_timer())
            return
        super()._device_fire(spec, now)

    def _lid_closed_by_timer(self) -> None:
        if self._lid_open:
            self._close_lid()

    def _device_reboot(self) -> None:
        self._gate_locked = False

    def _device_forget_draw_no(self) -> None:
        if self._cut_at is not None:
            self._cut_at -= self._draw_no  # the cut card stays where it is among the cards
        self._draw_no = 0

    def _device_after_boot(self) -> None:
        if self._lid_open:
            self._door("LID", True)
            self._raise(LID_OPEN)

    def describe(self) -> str:
        """One line for a person watching the emulator."""
        state = self.state
        extra = " lid OPEN" if self._lid_open else ""
        gate = "locked" if self.gate_locked else "unlocked"
        offline = " (offline)" if state is DeviceState.OFFLINE else ""
        return (
            f"shoe {state.value}{offline}: draw {self._draw_no}, {self.remaining} left, "
            f"gate {gate}{extra}"
        )
