"""The JSON report of ``croupier scenario run --json``, as typed data.

``ScenarioReport.to_json_dict()`` produces exactly the field names and nesting of
``scenarios.md`` (a contract outside tests rely on). Money is integer cents throughout;
``net_cents`` at the top is always the sum of the rounds' (it is computed, so the two can never
disagree).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from drivers.tbl21.cards import Card


class ScriptedAction(Protocol):
    """Anything that can show itself as the action the file wrote (``Action.as_dict``)."""

    def as_dict(self) -> dict[str, dict[str, Any]]: ...


def _check_cents(owner: str, name: str, value: object) -> None:
    """Money is integer cents: refuse float, bool and anything else at construction."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{owner}.{name} must be integer cents, got {value!r}")


def _frozen_net(owner: str, net: Mapping[str, int]) -> Mapping[str, int]:
    for player, cents in net.items():
        _check_cents(owner, f"net_cents[{player!r}]", cents)
    return MappingProxyType(dict(net))


@dataclass(frozen=True, slots=True)
class DealerReport:
    cards: tuple[Card, ...]
    total: int
    bust: bool
    natural: bool

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "cards": [str(c) for c in self.cards],
            "total": self.total,
            "bust": self.bust,
            "natural": self.natural,
        }


@dataclass(frozen=True, slots=True)
class WagerReport:
    player: str
    amount_cents: int

    def __post_init__(self) -> None:
        _check_cents("WagerReport", "amount_cents", self.amount_cents)

    def to_json_dict(self) -> dict[str, Any]:
        return {"player": self.player, "amount_cents": self.amount_cents}


@dataclass(frozen=True, slots=True)
class HandReport:
    """One hand of a box (several after a split). ``outcome`` is the settlement's word for it
    (``win``, ``lose``, ``push``...)."""

    cards: tuple[Card, ...]
    total: int
    doubled: bool
    outcome: str

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "cards": [str(c) for c in self.cards],
            "total": self.total,
            "doubled": self.doubled,
            "outcome": self.outcome,
        }


@dataclass(frozen=True, slots=True)
class BoxReport:
    box: int
    wagers: tuple[WagerReport, ...]
    hands: tuple[HandReport, ...]

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "wagers": [w.to_json_dict() for w in self.wagers],
            "hands": [h.to_json_dict() for h in self.hands],
        }


@dataclass(frozen=True, slots=True)
class PromptRecord:
    """A prompt the dealer saw. Only ``code`` is always present; ``None`` fields are omitted.

    ``code`` is a prompt code (``OFFER_INSURANCE``, ``PAY``...; a ``StrEnum`` member works).
    """

    code: str
    box: int | None = None
    hand: int | None = None
    player: str | None = None
    amount_cents: int | None = None
    odds: str | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if self.amount_cents is not None:
            _check_cents("PromptRecord", "amount_cents", self.amount_cents)

    def to_json_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": str(self.code)}
        for name, value in (
            ("box", self.box),
            ("hand", self.hand),
            ("player", self.player),
            ("amount_cents", self.amount_cents),
            ("odds", self.odds),
            ("text", self.text),
        ):
            if value is not None:
                out[name] = value
        return out


@dataclass(frozen=True, slots=True)
class LedgerRecord:
    """A settlement entry. All six fields are always present; ``odds`` is ``null`` when the
    entry has none (a collected wager, a returned stake)."""

    box: int
    player: str
    kind: str
    amount_cents: int
    odds: str | None
    reason: str

    def __post_init__(self) -> None:
        _check_cents("LedgerRecord", "amount_cents", self.amount_cents)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "box": self.box,
            "player": self.player,
            "kind": str(self.kind),
            "amount_cents": self.amount_cents,
            "odds": self.odds,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class RoundReport:
    round: int
    dealer: DealerReport
    boxes: tuple[BoxReport, ...]
    prompts: tuple[PromptRecord, ...]
    ledger: tuple[LedgerRecord, ...]
    net_cents: Mapping[str, int]

    def __post_init__(self) -> None:
        object.__setattr__(self, "net_cents", _frozen_net("RoundReport", self.net_cents))

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "dealer": self.dealer.to_json_dict(),
            "boxes": [b.to_json_dict() for b in self.boxes],
            "prompts": [p.to_json_dict() for p in self.prompts],
            "ledger": [e.to_json_dict() for e in self.ledger],
            "net_cents": dict(self.net_cents),
        }


@dataclass(frozen=True, slots=True)
class Rejection:
    """A scripted action the controller refused; the run went on with the next one."""

    round: int
    action: ScriptedAction
    reason: str

    def to_json_dict(self) -> dict[str, Any]:
        return {"round": self.round, "action": self.action.as_dict(), "reason": self.reason}


def sum_net_cents(per_round: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """Each player's total over the rounds, players in order of first appearance."""
    total: dict[str, int] = {}
    for net in per_round:
        for player, cents in net.items():
            total[player] = total.get(player, 0) + cents
    return total


@dataclass(frozen=True, slots=True)
class ScenarioReport:
    spec: int
    variant: str
    rounds: tuple[RoundReport, ...]
    rejected: tuple[Rejection, ...] = field(default=())

    @property
    def net_cents(self) -> dict[str, int]:
        return sum_net_cents(r.net_cents for r in self.rounds)

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec,
            "variant": self.variant,
            "rounds": [r.to_json_dict() for r in self.rounds],
            "rejected": [r.to_json_dict() for r in self.rejected],
            "net_cents": self.net_cents,
        }
