"""A row's hash is the SHA-256 of the canonical JSON of its columns: the text put together by
hand for the usual column types is that text exactly, whatever the strings hold (quotes,
backslashes, control characters, any Unicode), and a column of another type still hashes as
canonical JSON says."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal.store import GENESIS_HASH, canonical_json, row_hash


def _reference(
    seq: object,
    ts: object,
    table_id: object,
    round_id: object,
    kind: object,
    payload: object,
    prev_hash: object,
) -> str:
    text = canonical_json(
        {
            "seq": seq,
            "ts": ts,
            "table_id": table_id,
            "round_id": round_id,
            "kind": kind,
            "payload": payload,
            "prev_hash": prev_hash,
        }
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=60)


@settings(max_examples=400)
@given(
    seq=st.integers(min_value=-(2**70), max_value=2**70),
    ts=TEXT,
    table_id=TEXT,
    round_id=st.none() | st.integers(min_value=-(2**70), max_value=2**70),
    kind=TEXT,
    payload=TEXT
    | st.dictionaries(TEXT, st.integers() | TEXT | st.none(), max_size=4).map(canonical_json),
    prev_hash=TEXT,
)
def test_the_hash_is_that_of_the_columns_canonical_json_whatever_the_strings_hold(
    seq: int, ts: str, table_id: str, round_id: int | None, kind: str, payload: str, prev_hash: str
) -> None:
    args = (seq, ts, table_id, round_id, kind, payload, prev_hash)
    assert row_hash(*args) == _reference(*args)


def test_a_row_s_hash_is_known_for_a_known_row() -> None:
    # worked out once from the journal's definition (sha256 of the sorted, spaceless JSON)
    args = (1, "2026-12-05T03:00:00.000Z", "t1", None, "start", '{"a":"é\\"x"}', GENESIS_HASH)
    text = (
        '{"kind":"start","payload":"{\\"a\\":\\"é\\\\\\"x\\"}","prev_hash":"'
        + GENESIS_HASH
        + '","round_id":null,"seq":1,"table_id":"t1","ts":"2026-12-05T03:00:00.000Z"}'
    )
    assert row_hash(*args) == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_columns_of_other_types_still_hash_as_their_canonical_json() -> None:
    # a bool is an int to Python but true to JSON; a float seq is not the usual type
    for args in (
        (True, "ts", "t1", None, "k", "{}", GENESIS_HASH),
        (1, "ts", "t1", False, "k", "{}", GENESIS_HASH),
        (2.0, "ts", "t1", 3, "k", "{}", GENESIS_HASH),
    ):
        assert row_hash(*args) == _reference(*args)
