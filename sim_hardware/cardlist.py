"""Explicit card orders for the emulated shoe: parsing with errors that name card and place."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from drivers.tbl21.cards import Card
from drivers.tbl21.errors import CardNotationError
from sim_hardware.errors import CardListError


def parse_card_list(cards: Sequence[Card | str] | str, *, source: str = "card list") -> list[Card]:
    """Parse a card order: Card objects, two-character strings, or one string of them
    separated by spaces, commas or new lines (``#`` starts a comment to the end of the line).

    A bad entry is refused with its 1-based position, e.g.
    ``card list: card 3 '1H': rank '1' is not one of A23456789TJQK (write ten as 'T')``.
    """
    if isinstance(cards, str):
        words: list[Card | str] = []
        for line in cards.splitlines():
            words.extend(line.split("#", 1)[0].replace(",", " ").split())
        entries: Sequence[Card | str] = words
    else:
        entries = cards
    parsed: list[Card] = []
    for position, entry in enumerate(entries, start=1):
        if isinstance(entry, Card):
            parsed.append(entry)
            continue
        try:
            parsed.append(Card.parse(entry))
        except CardNotationError as exc:
            raise CardListError(f"{source}: card {position} {entry!r}: {_reason(exc)}") from exc
    if not parsed:
        raise CardListError(f"{source}: no cards in it; a shoe needs at least one card")
    return parsed


def read_card_file(path: str | Path) -> list[Card]:
    """Read a card order from a text file (format as :func:`parse_card_list`)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise CardListError(f"{file}: cannot read the card list: {exc.strerror}") from exc
    return parse_card_list(text, source=str(file))


def _reason(exc: CardNotationError) -> str:
    text = str(exc)
    # Card.parse starts its message with "card 'XX': "; the position replaces that prefix.
    prefix, sep, rest = text.partition(": ")
    return rest if sep and prefix.startswith("card ") else text
