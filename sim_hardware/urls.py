"""Emulated devices chosen by URL, like any other port: ``sim://shoe?seed=7``.

A table file names each device by a pyserial URL. ``sim://shoe``, ``sim://peek`` and
``sim://panel`` ask for an emulated device of that kind, made in this process; options go in
the query:

=========  ======================  ==========================================================
device     option                  meaning
=========  ======================  ==========================================================
shoe       ``seed=7``              a seeded shuffle of the shoe (the default, seed 7)
shoe       ``cards=2C,AS,KH``      exactly these cards in this order (instead of a shuffle)
shoe       ``cut=60``              the cut card comes out after this many cards
shoe       ``decks=6``, ``deck=48``  the shoe's make-up (default: the table's variant)
peek       ``seed=3``              the reader's quality dice
panel      ``seed=3``              the panel's
=========  ======================  ==========================================================

:func:`parse_device_url` reads such a URL (None for any other URL); :func:`make_device` makes
the device. Whoever makes it serves it under a name of its own (:func:`sim_hardware.serve`) and
opens that, so two tables in one process never share a device.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

from drivers.tbl21.cards import DeckType
from sim_hardware.device import DeviceCore
from sim_hardware.errors import SimConfigError
from sim_hardware.inprocess import SCHEME
from sim_hardware.panel import EmulatedPanel
from sim_hardware.peek import EmulatedPeekReader
from sim_hardware.shoe import EmulatedShoe

DEFAULT_SEED = 7
ROLES = ("shoe", "peek", "panel")
OPTIONS = {
    "shoe": ("seed", "cards", "cut", "decks", "deck"),
    "peek": ("seed",),
    "panel": ("seed",),
}


@dataclass(frozen=True, slots=True)
class DeviceUrl:
    """A ``sim://<role>?...`` URL, read."""

    url: str
    role: str
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)


@dataclass(frozen=True, slots=True)
class ShoeMakeUp:
    """What the table's game deals from: the defaults of an emulated shoe."""

    decks: int
    deck: DeckType
    cut: int | None = None  # cards before the cut card, None for no cut card


def parse_device_url(url: str) -> DeviceUrl | None:
    """``sim://shoe?seed=7`` read; None if ``url`` is not a ``sim://`` URL of a device kind
    (a real port, or the ``sim://<name>`` of a device served already). Raises
    :class:`SimConfigError` for an option the device does not take."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != SCHEME or parts.netloc not in ROLES or parts.path not in ("", "/"):
        return None
    role = parts.netloc
    try:
        pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        pairs = [] if not parts.query else [("", parts.query)]
    allowed = OPTIONS[role]
    for key, _ in pairs:
        if key not in allowed:
            raise SimConfigError(
                f"{url}: the emulated {role} takes no option {key!r}; allowed: {', '.join(allowed)}"
            )
    seen = [k for k, _ in pairs]
    twice = sorted({k for k in seen if seen.count(k) > 1})
    if twice:
        raise SimConfigError(f"{url}: option {twice[0]!r} given twice")
    return DeviceUrl(url, role, tuple(pairs))


def make_device(
    spec: DeviceUrl, make_up: ShoeMakeUp, *, boot_count: int = 1, drawn: int = 0
) -> DeviceCore:
    """The emulated device ``spec`` asks for. A shoe is of ``make_up`` unless the URL says
    otherwise; ``drawn`` cards are drawn from it at once (a restarted table's shoe goes on
    where the journal left it); ``boot_count`` goes on from the journal's."""
    seed = _int(spec, "seed", DEFAULT_SEED, low=0)
    if spec.role == "peek":
        return EmulatedPeekReader(seed=seed, boot_count=boot_count)
    if spec.role == "panel":
        return EmulatedPanel(seed=seed, boot_count=boot_count)
    decks = _int(spec, "decks", make_up.decks, low=1)
    deck_text = spec.option("deck")
    try:
        deck = make_up.deck if deck_text is None else DeckType(deck_text)
    except ValueError:
        raise SimConfigError(f"{spec.url}: deck must be 52 or 48, got {deck_text!r}") from None
    cards = spec.option("cards")
    cut_text = spec.option("cut")
    cut = make_up.cut if cut_text is None else _int(spec, "cut", 0, low=1)
    if cards is not None:
        shoe = EmulatedShoe(
            cards=cards.replace(",", " "),
            decks=decks,
            deck_type=deck,
            cut=cut if cut_text is not None else None,
            boot_count=boot_count,
        )
    else:
        shoe = EmulatedShoe(seed=seed, decks=decks, deck_type=deck, cut=cut, boot_count=boot_count)
    shoe.skip(drawn)
    return shoe


def _int(spec: DeviceUrl, name: str, default: int, *, low: int) -> int:
    text = spec.option(name)
    if text is None:
        return default
    if not text.isdigit() or int(text) < low:
        raise SimConfigError(f"{spec.url}: {name} must be a whole number >= {low}, got {text!r}")
    return int(text)
