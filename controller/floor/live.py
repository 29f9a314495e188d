"""What the pit sees of each table, folded from its journal rows as they reach the floor.

:class:`TableView` takes one table's rows in seq order (:meth:`TableView.feed`) and keeps what
the floor page shows: the game and limits (from the shipper's word), the round and its state, the
hold and lockup reasons, each device's link and faults, who is signed in, the rounds and the
table's house win this shift, and the chain check (:mod:`controller.floor.chain`).
:meth:`alerts` names what needs a supervisor: a lockup, a chain break, journal trouble, shipping
lag or silence, a changed identity, a shoe that ended short of cards (its ``shoe_receipt`` row),
a dealer sign-in locked by wrong PINs in a row (the sign-in ``call`` rows, counted as the table
counts them: :class:`controller.table.people.People`).

Everything here is plain and synchronous; :mod:`controller.floor.watch` feeds it from
PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controller.floor.chain import ChainBreak, ChainCheck
from controller.floor.dealers import DealerTally
from controller.floor.rounds import RoundFold, clock, summarize, summed
from controller.floor.shipper import rows_behind
from controller.game.prompts import money
from controller.journal.errors import RecordError
from controller.journal.records import from_record
from controller.journal.store import Row, parse_ts
from controller.table.identity import CHANGE_WORDS
from controller.table.people import DealerSignIn, People
from drivers.tbl21.faults import fault_name

LAG_ALERT_S = 10.0  # the shipper's oldest unshipped row older than this
SILENT_ALERT_S = 30.0  # no word from a table's shipper for this long
SEVERITIES = {"I": "info", "W": "warning", "L": "lockup"}
RECENT_ROUNDS = 30  # a table's last rounds kept for its card on the floor page
# the rows of the live round the floor page shows (its cards, bets, settlements, prompt)
IDENTITIES_KEPT = 20  # a table's last starts' identities kept in memory (the floor has them all)
# a start's identity, from its config row: the software and the files that set the rules
IDENTITY_KEYS = (
    "software",
    "software_sha256",
    "software_recorded",
    "variant",
    "variant_sha256",
    "strategy_sha256",
    "table_sha256",
    "changed",
)
_LIVE_KINDS = frozenset({"prompt", "input", "ledger", "supervisor", "round_start", "round_end"})
DEVICE_STATUS = {
    "DeviceIdentified": "connected",
    "LinkRestored": "connected",
    "LinkLost": "lost",
    "DeviceRefused": "refused",
}


def shortfall_words(receipt: dict[str, Any]) -> str | None:
    """A shoe receipt's shortfall for the pit (None: the shoe was not short)."""
    short = receipt.get("shortfall")
    if not isinstance(short, int) or short <= 0:
        return None
    cards = "card" if short == 1 else "cards"
    return (
        f"a shoe ended {short} {cards} short (round {receipt.get('round')}, "
        f"{receipt.get('reason')}): the decks must still hold {receipt.get('cards_left')}, "
        f"the shoe had {receipt.get('shoe_left')}"
    )


@dataclass(frozen=True, slots=True)
class Ack:
    """Who acknowledged an alert on the floor page, and when (``croupier.alert_acks``)."""

    by: str
    at: datetime

    def as_json(self, zone: Any) -> dict[str, Any]:
        return {
            "by": self.by,
            "at": self.at.isoformat(),
            "time": f"{self.at.astimezone(zone):%H:%M:%S}",
        }


@dataclass(frozen=True, slots=True)
class Alert:
    table_id: str
    kind: str  # lockup, chain, journal, shipping, lag, silent, identity, shoe, dealer_lockout
    text: str
    since: str  # ISO time (UTC): when the table raised it (a lockup), or the floor saw it
    acked: Ack | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        """What an acknowledgement names: this alert, raised then."""
        return (self.kind, self.text, self.since)

    def as_json(self, zone: Any = None) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "kind": self.kind,
            "text": self.text,
            "since": self.since,
            "since_time": f"{parse_ts(self.since).astimezone(zone):%H:%M:%S}",
            "acked": None if self.acked is None else self.acked.as_json(zone),
        }


@dataclass
class ShipperWord:
    """The latest row of ``croupier.shippers`` for a table."""

    reported_at: datetime
    local_seq: int
    backlog_rows: int
    oldest_age_s: float
    status: str
    problem: str
    about: dict[str, Any]


@dataclass
class Device:
    status: str = "connecting"
    identity: str = ""
    faults: dict[str, str] = field(default_factory=dict)


@dataclass
class TableView:
    table_id: str
    shift_start: datetime
    chain: ChainCheck = field(init=False)
    breaks: list[ChainBreak] = field(default_factory=list)
    variant: str = ""
    round: int | None = None
    state: str = ""
    hold: list[str] = field(default_factory=list)
    lockup: str = ""
    lockup_since: str = ""  # the time the table raised the lockup (its row's)
    devices: dict[str, Device] = field(default_factory=dict)
    signed_in: dict[str, str] = field(default_factory=dict)
    round_ends: list[tuple[str, int]] = field(default_factory=list)  # (ts, players' net) in shift
    first_ts_in_shift: str | None = None
    last_ts: str | None = None
    last_seq: int = 0
    notice: str = ""
    stopped: bool = False  # the last row is the table's clean stop: its silence is expected
    shipper: ShipperWord | None = None
    alert_since: dict[tuple[str, str], str] = field(default_factory=dict)
    acks: dict[tuple[str, str, str], Ack] = field(default_factory=dict)
    live_round: int | None = None  # the round the table is at (or finished last)
    live_fold: RoundFold = field(default_factory=RoundFold)  # its rows folded
    recent: dict[int, dict[str, Any]] = field(default_factory=dict)  # the last rounds, by number
    # what the table ran at each start (its config rows), and the starts that changed it
    identities: list[dict[str, Any]] = field(default_factory=list)
    identity_changes: list[tuple[str, str]] = field(default_factory=list)  # (ts, words)
    # the shoes that ended short of cards (their receipts' shortfall): (ts, words)
    shoe_shortfalls: list[tuple[str, str]] = field(default_factory=list)
    # who deals (staff number, name) and the rated players seated (box: name), from the
    # ``people`` rows; the dealers' figures this shift (controller.floor.dealers)
    dealer: tuple[str, str] | None = None
    seated: dict[int, str] = field(default_factory=dict)
    dealing: DealerTally = field(init=False)
    # the dealer sign-ins' wrong-PIN count and lock, as the table keeps them; the lockouts this
    # shift: (ts, words)
    sign_ins: People = field(default_factory=People)
    dealer_lockouts: list[tuple[str, str]] = field(default_factory=list)
    # the live round and the last rounds as shown, each worked out again only when a row changed
    # it or the zone changed (the view is shown every second and after every look at the rows:
    # at 1,000 tables reading the live round's rows again each time was most of the watcher's
    # work, issue 26); what is shown is read only
    _live_version: int = field(default=0, repr=False, compare=False)
    _live_shown: tuple[tuple[int, Any], dict[str, Any] | None] | None = field(
        default=None, repr=False, compare=False
    )
    _recent_shown: dict[int, tuple[Any, dict[str, Any]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    _recent_list: tuple[Any, list[dict[str, Any]]] | None = field(
        default=None, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        self.chain = ChainCheck(self.table_id)
        self.dealing = DealerTally(self.shift_start)

    @property
    def zone(self) -> Any:
        """The casino's time zone (the shift's)."""
        return self.shift_start.tzinfo

    # --- rows -------------------------------------------------------------------------------

    def feed(self, row: Row) -> ChainBreak | None:
        found = self.chain.feed(row)
        if found is not None:
            self.breaks.append(found)
            del self.breaks[:-20]
        self.last_seq = max(self.last_seq, row.seq)
        self.last_ts = row.ts
        p = row.payload
        if row.round_id is not None:
            self.round = row.round_id
            self._live(row)
            self.dealing.feed(row)
        kind = row.kind
        if kind == "config":
            self.variant = str(p.get("variant", self.variant))
            self._identity(row)
        elif kind == "state":
            dest = str(p.get("dest", ""))
            if dest != "hold":
                self.hold.clear()
                self.lockup = ""
                self.lockup_since = ""
            self.state = dest
        elif kind == "prompt":
            code = p.get("code")
            if code in ("HOLD", "LOCKUP"):
                text = str(p.get("text", ""))
                self.hold.append(text)
                del self.hold[:-4]
                if code == "LOCKUP":
                    self.lockup = text
                    self.lockup_since = row.ts
        elif kind == "device_event":
            self._device(p)
        elif kind == "access":
            self._access(p)
        elif kind == "round_end":
            at = parse_ts(row.ts)
            if at >= self.shift_start:
                net = p.get("net_cents")
                self.round_ends.append((row.ts, net if isinstance(net, int) else 0))
        elif kind == "shoe_receipt":
            self._receipt(row)
        elif kind == "people":
            self._people(p)
        elif kind == "call" and p.get("type") == DealerSignIn.__name__:
            self._dealer_sign_in(row)
        elif kind == "recovery":
            self.notice = str(p.get("text", "recovered after a restart"))
        if self.first_ts_in_shift is None and parse_ts(row.ts) >= self.shift_start:
            self.first_ts_in_shift = row.ts
        self.stopped = kind == "stop"  # a start writes rows again, so only the last row counts
        return found

    def _identity(self, row: Row) -> None:
        """A start's identity (the software and the rules files it ran); a change is an alert."""
        p = row.payload
        shown = {"seq": row.seq, "ts": row.ts, "time": clock(row.ts, self.zone)}
        shown |= {k: p.get(k) for k in IDENTITY_KEYS if k in p}
        self.identities.append(shown)
        del self.identities[:-IDENTITIES_KEPT]
        changed = [str(c) for c in p.get("changed", []) if isinstance(c, str)]
        if changed:
            what = ", ".join(dict.fromkeys(CHANGE_WORDS.get(c, c) for c in changed))
            version = p.get("software")
            text = f"changed since its last start: {what} (now croupier {version})"
            self.identity_changes.append((row.ts, text))
            del self.identity_changes[:-IDENTITIES_KEPT]

    def _people(self, p: dict[str, Any]) -> None:
        """The dealer signed in and the rated players seated."""
        if not p.get("accepted"):
            return
        event, box = p.get("event"), p.get("box")
        if event == "dealer_in":
            self.dealer = (str(p.get("staff_id", "")), str(p.get("name", "")))
        elif event == "dealer_out":
            self.dealer = None
        elif event == "sit_down" and isinstance(box, int):
            self.seated[box] = str(p.get("player", ""))
        elif event == "walk_away" and isinstance(box, int):
            self.seated.pop(box, None)

    def _dealer_sign_in(self, row: Row) -> None:
        """A dealer's sign-in attempt (its outcome and the limits in force, never the PIN),
        counted as the table counts them: the attempt that locks dealer sign-in is an alert
        (kept for the shift)."""
        try:
            call = from_record(row.payload, DealerSignIn)
        except RecordError:
            return
        before = self.sign_ins.dealer_locked_until
        self.sign_ins, _events = self.sign_ins.apply(call, 0)
        until = self.sign_ins.dealer_locked_until
        if until is None or until == before or parse_ts(row.ts) < self.shift_start:
            return
        who = "an unknown staff number" if call.staff_id == "unknown" else call.staff_id
        when = datetime.fromtimestamp(until, UTC).astimezone(self.zone).strftime("%H:%M:%S")
        text = (
            f"dealer sign-in locked until {when} after {call.max_wrong_pins} wrong staff "
            f"numbers or PINs in a row (the last for {who})"
        )
        self.dealer_lockouts.append((row.ts, text))
        del self.dealer_lockouts[:-IDENTITIES_KEPT]

    def _receipt(self, row: Row) -> None:
        """A shoe's receipt: one with a shortfall is an alert (kept for the shift)."""
        text = shortfall_words(row.payload)
        if text is None or parse_ts(row.ts) < self.shift_start:
            return
        self.shoe_shortfalls.append((row.ts, text))
        del self.shoe_shortfalls[:-IDENTITIES_KEPT]

    def _live(self, row: Row) -> None:
        """The live round's rows, and the last rounds' summaries."""
        number = row.round_id
        assert number is not None
        if number != self.live_round:
            self.live_round = number
            self.live_fold = RoundFold()
            self._live_version += 1
        if row.kind in _LIVE_KINDS or (
            row.kind == "device_event" and row.payload.get("type") == "CardDrawn"
        ):
            self.live_fold.feed(row)
            self._live_version += 1
        if summarize(self.recent, row):
            self._recent_shown.pop(number, None)
            for old in sorted(self.recent)[:-RECENT_ROUNDS]:
                del self.recent[old]
                self._recent_shown.pop(old, None)
            self._recent_list = None

    def _device(self, p: dict[str, Any]) -> None:
        ref = p.get("device")
        role = ref.get("type") if isinstance(ref, dict) else None
        if not isinstance(role, str) or ref is None or ref.get("port") == "display":
            return
        device = self.devices.setdefault(role, Device())
        kind = p.get("type")
        if kind in DEVICE_STATUS:
            device.status = DEVICE_STATUS[str(kind)]
        if kind == "DeviceIdentified":
            ident = p.get("identity")
            if isinstance(ident, dict):
                device.identity = f"{ident.get('model', '')} {ident.get('serial', '')}".strip()
        elif kind in ("FaultRaised", "FaultCleared"):
            code = p.get("code")
            name = fault_name(code) if isinstance(code, int) else "?"
            if kind == "FaultRaised":
                device.faults[name] = SEVERITIES.get(str(p.get("severity")), "?")
            else:
                device.faults.pop(name, None)

    def _access(self, p: dict[str, Any]) -> None:
        role = p.get("role")
        if not isinstance(role, str) or not p.get("accepted"):
            return
        if p.get("event") == "signed_in":
            self.signed_in[role] = str(p.get("text", role))
        elif p.get("event") == "signed_out":
            self.signed_in.pop(role, None)

    # --- the shift ----------------------------------------------------------------------------

    def new_shift(self, start: datetime) -> None:
        self.shift_start = start
        self.round_ends = [(ts, net) for ts, net in self.round_ends if parse_ts(ts) >= start]
        self.first_ts_in_shift = self.round_ends[0][0] if self.round_ends else None
        self.shoe_shortfalls = [(ts, t) for ts, t in self.shoe_shortfalls if parse_ts(ts) >= start]
        self.dealer_lockouts = [(ts, t) for ts, t in self.dealer_lockouts if parse_ts(ts) >= start]
        self.dealing.new_period(start)

    def house_win_cents(self) -> int:
        """The table's house win this shift: what the players lost, integer cents."""
        return -sum(net for _, net in self.round_ends)

    def rounds_per_hour(self, now: datetime) -> float:
        if not self.round_ends or self.first_ts_in_shift is None:
            return 0.0
        hours = (now - parse_ts(self.first_ts_in_shift)).total_seconds() / 3600
        return len(self.round_ends) / hours if hours > 0 else 0.0

    # --- alerts ---------------------------------------------------------------------------------

    def alerts(
        self, now: datetime, *, lag_s: float = LAG_ALERT_S, silent_s: float = SILENT_ALERT_S
    ) -> list[Alert]:
        found: list[tuple[str, str]] = []
        raised: dict[tuple[str, str], str] = {}  # since when, where the rows say
        if self.state == "hold" and self.lockup:
            found.append(("lockup", self.lockup))
            raised[("lockup", self.lockup)] = self.lockup_since
        found += [("chain", b.describe()) for b in self.breaks]
        for ts, text in self.identity_changes:
            found.append(("identity", text))
            raised[("identity", text)] = ts
        for ts, text in self.shoe_shortfalls:
            found.append(("shoe", text))
            raised[("shoe", text)] = ts
        for ts, text in self.dealer_lockouts:
            found.append(("dealer_lockout", text))
            raised[("dealer_lockout", text)] = ts
        word = self.shipper
        if word is not None:
            if (
                word.problem.startswith("cannot read the journal")
                or "journal" in word.problem.split(":")[0]
            ):
                found.append(("journal", word.problem))
            elif word.status == "refused":
                found.append(("shipping", f"the floor refused its rows: {word.problem}"))
            silent = (now - word.reported_at).total_seconds()
            if silent > silent_s:
                if not self.stopped:  # a table stopped cleanly says nothing more, on purpose
                    found.append(
                        ("silent", f"no word from this table's shipper for {silent:,.0f} s")
                    )
            elif word.backlog_rows and word.oldest_age_s > lag_s:
                found.append(
                    (
                        "lag",
                        f"{rows_behind(word.backlog_rows)}, oldest {word.oldest_age_s:,.0f} s",
                    )
                )
        stamp = now.isoformat(timespec="seconds")
        keys = set(found)
        for key in list(self.alert_since):
            if key not in keys:
                del self.alert_since[key]
        out = []
        for kind, text in found:
            since = raised.get((kind, text)) or self.alert_since.setdefault((kind, text), stamp)
            out.append(Alert(self.table_id, kind, text, since, self.acks.get((kind, text, since))))
        return out

    def live(self) -> dict[str, Any] | None:
        """The round the table is at (or finished last) as the floor page shows it."""
        key = (self._live_version, self.zone)
        if self._live_shown is None or self._live_shown[0] != key:
            self._live_shown = (key, self._make_live())
        return self._live_shown[1]

    def _make_live(self) -> dict[str, Any] | None:
        if self.live_round is None:
            return None
        detail = self.live_fold.detail(self.zone)
        keep = (
            "round",
            "in_play",
            "prompt",
            "prompt_parts",
            "cards",
            "bets",
            "ledger",
            "net",
            "void",
        )
        shown = {k: detail[k] for k in keep}
        shown["round"] = self.live_round
        shown["start_time"] = detail["start_time"]
        shown["end_time"] = detail["end_time"]
        return shown

    def recent_rounds(self) -> list[dict[str, Any]]:
        """The last rounds, newest first, with their times (each round's worked out again only
        when one of its rows came)."""
        zone = self.zone
        if self._recent_list is None or self._recent_list[0] != zone:
            shown = self._recent_shown
            out = []
            for n in sorted(self.recent, reverse=True):
                got = shown.get(n)
                if got is None or got[0] != zone:
                    got = shown[n] = (zone, summed(dict(self.recent[n]), zone))
                out.append(got[1])
            self._recent_list = (zone, out)
        return self._recent_list[1]

    def as_json(self, now: datetime, **alert_args: float) -> dict[str, Any]:
        word = self.shipper
        about = word.about if word is not None else {}
        limits = about.get("limits") if isinstance(about.get("limits"), dict) else {}
        house_win = self.house_win_cents()
        return {
            "table_id": self.table_id,
            "variant": self.variant or str(about.get("variant", "")),
            "game": str(about.get("game", "")),
            "limits": (
                f"{money(int(limits['min_cents']))}-{money(int(limits['max_cents']))}"
                if isinstance(limits, dict) and "min_cents" in limits and "max_cents" in limits
                else ""
            ),
            "round": self.round,
            "state": self.state,
            "stopped": self.stopped,
            "hold": list(self.hold),
            "lockup": self.lockup,
            "devices": [
                {"role": role, "status": d.status, "identity": d.identity, "faults": d.faults}
                for role, d in sorted(self.devices.items())
            ],
            "signed_in": sorted(self.signed_in.values()),
            "dealer": None
            if self.dealer is None
            else {"staff_id": self.dealer[0], "name": self.dealer[1]},
            "seated": [{"box": b, "player": n} for b, n in sorted(self.seated.items())],
            "rounds": len(self.round_ends),
            "rounds_per_hour": round(self.rounds_per_hour(now), 1),
            "house_win_cents": house_win,
            "house_win": money(house_win),
            "last_seq": self.last_seq,
            "last_ts": self.last_ts,
            "rows_checked": self.chain.rows_checked,
            "notice": self.notice,
            "live": self.live(),
            "recent": self.recent_rounds(),
            "last_time": clock(self.last_ts, self.zone),
            "shipper": None
            if word is None
            else {
                "status": word.status,
                "backlog_rows": word.backlog_rows,
                "oldest_age_s": round(word.oldest_age_s, 1),
                "problem": word.problem,
                "reported_at": word.reported_at.isoformat(timespec="seconds"),
            },
            "alerts": [a.as_json(self.zone) for a in self.alerts(now, **alert_args)],
            "identity": self.identities[-1] if self.identities else None,
        }
