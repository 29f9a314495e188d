"""The rules a table dealt by, as the floor reads them from the table's own ``config`` rows.

Every start of a table journals a ``config`` row. From journal format 15 on it holds the rules
the table deals by (``rules``: the validated variant's JSON, a custom variant file's and any
override included): the floor rates a session and works out the remaining shoe's edge with
the rules of the latest ``config`` row of its table at or before the session's rows, never
with a shipped variant of the same id. Those rules come from a table, so they are validated
again here (:class:`~controller.game.rules.Variant`); rules that fail leave the session unrated,
with the validator's words.

A journal older than format 15 names the variant and hashes its file only (``variant`` and
``variant_sha256``): its rules are the shipped variant's only when that hash is the shipped
file's (the same file, byte for byte); otherwise (a casino's own variant file) they are not
known, and the session is unrated, saying so. Nothing is guessed.

Why a play is unrated is a code (:class:`Unrated`); :func:`unrated_words` says it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from controller.floor.chain import ROW_COLUMNS
from controller.game.errors import ConfigError
from controller.game.rules import VARIANT_IDS, VARIANTS_DIR, Variant, load_variant
from controller.game.rules import variant_from_mapping as validated
from controller.journal.journaled import RULES_FORMAT
from controller.journal.store import Row
from controller.table.identity import file_sha256


class Unrated(StrEnum):
    """Why the rules of a play are not known (the play is not rated)."""

    NO_CONFIG = "no_config"  # no config row of the table before the play in the rows read
    NOT_JOURNALLED = "not_journalled"  # a journal before format 15, not the shipped file
    INVALID = "invalid"  # the journalled rules fail the variant's validation
    CHANGED = "changed"  # the table's rules changed between the session's rounds
    ANALYSIS = "analysis"  # the analysis cannot take the rules (it says why)


@dataclass(frozen=True, slots=True)
class TableRules:
    """The rules a table dealt by from one ``config`` row on (``rules``: None where they are
    not known, ``unrated`` saying why)."""

    table_id: str
    seq: int  # the config row's (0: none)
    variant: str  # the id the row names
    rules: Variant | None
    unrated: Unrated | None = None
    detail: str = ""  # the validator's words, or the analysis'
    journalled: bool = True  # False: a journal before format 15, the shipped file's rules
    key: str = ""  # SHA-256 of the rules' JSON (the same rules, the same key)

    @property
    def known(self) -> bool:
        return self.rules is not None

    def same_as(self, other: TableRules) -> bool:
        """Both known and the same rules (another start with the same rules is the same)."""
        return self.key != "" and self.key == other.key

    def words(self) -> str:
        """The rules in a few words (rated), or why they are not known."""
        if self.rules is None:
            return unrated_words(self)
        if not self.journalled:
            return f"{self.variant} as shipped (the file's SHA-256 matches)"
        return f"{self.variant} as journalled, rules {self.key[:8]}"

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "config_seq": self.seq,
            "variant": self.variant,
            "known": self.known,
            "journalled": self.journalled,
            "rules_sha256": self.key or None,
            "unrated": None if self.unrated is None else self.unrated.value,
            "why": None if self.rules is not None else unrated_words(self),
        }


def unrated_words(found: TableRules) -> str:
    """Why a play of a table is not rated, in the floor's words."""
    code, tid, seq = found.unrated, found.table_id, found.seq
    if code is Unrated.NOT_JOURNALLED:
        return (
            f"its rules are not in the journal (a custom variant file before journal format "
            f"{RULES_FORMAT}): table {tid}'s config row {seq} names {found.variant or '?'} with "
            "a variant file that is not the shipped one"
        )
    if code is Unrated.INVALID:
        return (
            f"the rules table {tid} journalled (config row {seq}) are not valid rules: "
            f"{found.detail}"
        )
    if code is Unrated.CHANGED:
        return (
            f"table {tid}'s rules changed during the session (config row {seq}): its rounds "
            "were not all dealt by the same rules"
        )
    if code is Unrated.ANALYSIS:
        return f"the analysis cannot take table {tid}'s rules: {found.detail}"
    return (
        f"the floor holds no config row of table {tid} before this play: the rules it dealt "
        "by are not known"
    )


def latest_config_sql(before: str, tables: str) -> str:
    """SQL for the latest ``config`` row before ``before`` (a query placeholder) of each table
    ``tables`` (a named subquery) lists: the rules it was dealing by as a period began
    (migration 0011's index finds it). The ratings and the surveillance page read the same."""
    return (
        f"(SELECT DISTINCT ON (table_id) {ROW_COLUMNS} FROM croupier.journal_rows "  # noqa: S608
        f"WHERE kind = 'config' AND at < {before} "
        f"AND table_id IN (SELECT table_id FROM {tables}) ORDER BY table_id, seq DESC)"
    )


def no_config(table_id: str) -> TableRules:
    """A table whose rows read hold no config row before the play."""
    return TableRules(table_id, 0, "", None, Unrated.NO_CONFIG)


def changed(later: TableRules) -> TableRules:
    """A session whose rounds were dealt by some rules and then by others (``later``'s)."""
    return TableRules(later.table_id, later.seq, later.variant, None, Unrated.CHANGED)


def unanalysed(found: TableRules, why: str) -> TableRules:
    """Rules the analysis refused (``why``: its words)."""
    return TableRules(
        found.table_id, found.seq, found.variant, None, Unrated.ANALYSIS, why, found.journalled
    )


def rules_sha256(rules: Variant) -> str:
    """The SHA-256 of the rules' JSON: two sets of rules are the same where it is."""
    return hashlib.sha256(rules.model_dump_json().encode()).hexdigest()


# the rules met, validated once each (by the SHA-256 of their JSON as the table wrote it)
_VALIDATED: dict[str, Variant | str] = {}
_KEPT = 256


WORDS_KEPT = 600  # of the validator's words about a table's rules (they quote its values)


def _cut(words: str) -> str:
    return words if len(words) <= WORDS_KEPT else words[: WORDS_KEPT - 3] + "..."


def _validate(data: object, where: str) -> Variant | str:
    """``data`` as validated rules, or the validator's words for why not."""
    if not isinstance(data, Mapping):
        return f"the row's rules are not a table of rules: {_cut(json.dumps(data)[:80])}"
    text = json.dumps(data, sort_keys=True, default=str)
    digest = hashlib.sha256(text.encode()).hexdigest()
    got = _VALIDATED.get(digest)
    if got is None:
        try:
            got = validated(dict(data), where)
        except ConfigError as exc:
            got = _cut("; ".join(exc.problems) or str(exc))
        except (ValueError, TypeError) as exc:  # (a validator's own refusal, in its words)
            got = _cut(str(exc))
        if len(_VALIDATED) >= _KEPT:
            _VALIDATED.clear()
        _VALIDATED[digest] = got
    return got


_SHIPPED: dict[tuple[str, str], Variant | str] = {}


def _shipped(variant: str, sha: str) -> Variant | str | None:
    """The shipped variant ``variant`` where its file's SHA-256 is ``sha`` (None: it is not;
    words: the shipped file does not load)."""
    got = _SHIPPED.get((variant, sha))
    if got is not None:
        return got
    if sha != file_sha256(VARIANTS_DIR / f"{variant}.toml"):
        return None
    try:
        got = load_variant(variant)
    except ConfigError as exc:
        got = "; ".join(exc.problems)
    _SHIPPED[(variant, sha)] = got
    return got


def table_rules(row: Row) -> TableRules:
    """The rules of a table's ``config`` row: journalled (format 15 on), validated here; or,
    for an older row, the shipped variant where the row hashed the shipped file."""
    p = row.payload
    variant = p.get("variant")
    variant = variant if isinstance(variant, str) else ""
    tid, seq = row.table_id, row.seq
    if "rules" in p:
        got = _validate(p["rules"], f"table {tid}'s config row {seq}")
        if isinstance(got, str):
            return TableRules(tid, seq, variant, None, Unrated.INVALID, got)
        if got.id != variant:
            why = f"the rules are {got.id}'s, the row names {variant or 'no variant'}"
            return TableRules(tid, seq, variant, None, Unrated.INVALID, why)
        return TableRules(tid, seq, variant, got, key=rules_sha256(got))
    sha = p.get("variant_sha256")
    if variant in VARIANT_IDS and isinstance(sha, str) and sha:
        shipped = _shipped(variant, sha)
        if isinstance(shipped, str):  # (the installation's own file: not for a table)
            return TableRules(tid, seq, variant, None, Unrated.INVALID, shipped, False)
        if shipped is not None:
            key = rules_sha256(shipped)
            return TableRules(tid, seq, variant, shipped, journalled=False, key=key)
    return TableRules(tid, seq, variant, None, Unrated.NOT_JOURNALLED, journalled=False)
