"""Evaluation codes: creation, hashing, redemption, reuse, expiry, rate limits."""

from __future__ import annotations

import json
import re
import threading
from datetime import timedelta
from typing import Any

import pytest

from bot.store import Store, StoreConfig, StoreUnavailable, keys
from bot.store.codes import ALPHABET, normalize_code

from .conftest import FakeClock

CODE_FORMAT = re.compile(r"DNPX-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}")


def test_codes_are_typeable_and_carry_60_bits(store: Store) -> None:
    """Codes read DNPX-XXXX-XXXX-XXXX over a 32-symbol alphabet without I, L, O, U."""
    codes = store.codes.create("scale", 14, count=20)
    assert len(set(codes)) == 20
    assert all(CODE_FORMAT.fullmatch(c) for c in codes)
    assert len(ALPHABET) == 32 and not set("ILOU") & set(ALPHABET)  # 12 x 5 bits = 60


def test_redis_holds_only_hashes(store: Store, redis_dump: Any) -> None:
    """No key or value in Redis contains a created code, in any spelling."""
    codes = store.codes.create("scale", 14, count=3)
    dump = json.dumps(redis_dump())
    for code in codes:
        body = code.replace("-", "")
        for spelling in (code, body, body[4:], code[5:], code.lower()):
            assert spelling not in dump
    assert all(k.startswith("denpex:{codes}:code:") for k in redis_dump())
    for code in codes:
        assert keys.code(keys.digest(normalize_code(code) or "")) in redis_dump()


def test_redeem_binds_workspace_to_plan_for_days_from_redemption(
    store: Store, clock: FakeClock
) -> None:
    """Redeeming puts the workspace on the plan for `days` counted from redemption."""
    (code,) = store.codes.create("scale", 14)
    clock.advance(days=3)
    result = store.codes.redeem("T1", "U1", code)
    assert (result.ok, result.reason, result.plan) == (True, "redeemed", "scale")
    assert result.expires_at == clock.now + timedelta(days=14)
    assert store.plans.get("T1") == ("scale", clock.now + timedelta(days=14))
    assert store.quotas.status("T1").daily_limit == 50


def test_plan_from_code_expires_back_to_free(store: Store, clock: FakeClock) -> None:
    """When the granted days run out the workspace is free again, on its own."""
    (code,) = store.codes.create("scale", 14)
    store.codes.redeem("T1", "U1", code)
    clock.advance(days=14)
    assert store.plans.get("T1").plan == "free"
    assert store.quotas.status("T1").daily_limit == 3


def test_code_is_single_use(store: Store) -> None:
    """A redeemed code cannot be redeemed again, by the same or another workspace."""
    (code,) = store.codes.create("scale", 14)
    assert store.codes.redeem("T1", "U1", code).ok
    assert store.codes.redeem("T1", "U1", code).reason == "already_used"
    assert store.codes.redeem("T2", "U2", code).reason == "already_used"
    assert store.plans.get("T2").plan == "free"


def test_concurrent_redemptions_by_many_workspaces_yield_one(store: Store) -> None:
    """20 workspaces redeeming one code at once: exactly one gets it."""
    (code,) = store.codes.create("scale", 14)
    barrier = threading.Barrier(20)
    results: list[str] = []

    def redeem(i: int) -> None:
        barrier.wait()
        results.append(store.codes.redeem(f"T{i}", "U1", code).reason)

    threads = [threading.Thread(target=redeem, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["already_used"] * 19 + ["redeemed"]


def test_unknown_and_malformed_codes(store: Store) -> None:
    """A code that was never created, or cannot be one, is unknown."""
    assert store.codes.redeem("T1", "U1", "DNPX-0000-0000-0000").reason == "unknown"
    assert store.codes.redeem("T1", "U1", "hello").reason == "unknown"
    assert store.codes.redeem("T1", "U1", "").reason == "unknown"


def test_typed_codes_are_forgiven(store: Store) -> None:
    """Case, spaces, missing prefix and O/I/L for 0/1/1 do not matter."""
    codes = store.codes.create("scale", 14, count=2)
    for code in codes:
        assert normalize_code(code) is not None
    body = codes[0].replace("-", "")[4:]
    typed = " ".join([body[:4], body[4:8], body[8:]]).lower().replace("0", "o").replace("1", "l")
    assert store.codes.redeem("T1", "U1", typed).ok
    assert store.codes.redeem("T2", "U2", f"dnpx {codes[1][5:]}").ok


def test_code_expires_for_redemption(store: Store, clock: FakeClock) -> None:
    """A code not redeemed within its validity is unknown afterwards."""
    (code,) = store.codes.create("scale", 14, valid_days=2)
    clock.advance(days=2)
    assert store.codes.redeem("T1", "U1", code).reason == "unknown"


def test_default_validity_comes_from_config(redis_url: str, clock: FakeClock) -> None:
    """code_valid_days sets how long new codes can be redeemed."""
    with Store(StoreConfig(url=redis_url, code_valid_days=1), clock=clock) as store:
        early, late = store.codes.create("scale", 14, count=2)
        clock.advance(hours=23)
        assert store.codes.redeem("T1", "U1", early).ok
        clock.advance(hours=1)
        assert store.codes.redeem("T2", "U2", late).reason == "unknown"


def test_second_code_does_not_shorten_plan(store: Store, clock: FakeClock) -> None:
    """Redeeming a shorter code while on the plan keeps the later expiry."""
    long_code, short_code = store.codes.create("scale", 30), store.codes.create("scale", 7)
    store.codes.redeem("T1", "U1", long_code[0])
    result = store.codes.redeem("T1", "U1", short_code[0])
    assert result.ok and result.expires_at == clock.now + timedelta(days=30)


def test_guessing_is_rate_limited_per_user(store: Store, clock: FakeClock) -> None:
    """A user gets 5 tries per 10 minutes; then even a valid code is refused until later."""
    (code,) = store.codes.create("scale", 14)
    for _ in range(5):
        assert store.codes.redeem("T1", "U1", "DNPX-0000-0000-0000").reason == "unknown"
    assert store.codes.redeem("T1", "U1", code).reason == "rate_limited"
    assert store.codes.redeem("T1", "U2", code).ok  # another user of the workspace
    clock.advance(minutes=10)
    assert store.codes.redeem("T1", "U1", "DNPX-0000-0000-0000").reason == "unknown"


def test_guessing_is_rate_limited_per_workspace(store: Store, clock: FakeClock) -> None:
    """After 20 wrong guesses in an hour a workspace's guessers are refused, however many users they use."""
    for i in range(20):
        assert store.codes.redeem("T1", f"U{i}", "DNPX-0000-0000-0000").reason == "unknown"
    assert store.codes.redeem("T1", "U3", "DNPX-0000-0000-0000").reason == "rate_limited"
    assert store.codes.redeem("T2", "U1", "DNPX-0000-0000-0000").reason == "unknown"
    clock.advance(hours=1)
    assert store.codes.redeem("T1", "U3", "DNPX-0000-0000-0000").reason == "unknown"


def test_a_flood_of_wrong_guesses_does_not_lock_out_the_real_code(store: Store) -> None:
    """Someone spending the workspace's wrong guesses (from many users) leaves a member with the code able to redeem it."""
    (code,) = store.codes.create("scale", 14)
    for i in range(40):
        for _ in range(6):
            store.codes.redeem("T1", f"UFLOOD{i}", "DNPX-0000-0000-0000")
    assert store.codes.redeem("T1", "UFLOOD1", code).reason == "rate_limited"
    result = store.codes.redeem("T1", "UADMIN", code)
    assert (result.ok, result.plan) == (True, "scale")


def test_failed_grant_puts_code_back(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """If granting the plan fails after the claim, the code stays redeemable."""
    (code,) = store.codes.create("scale", 14)

    def down(*args: object, **kwargs: object) -> None:
        raise StoreUnavailable("Redis went away")

    with monkeypatch.context() as m:
        m.setattr(store.plans, "grant", down)
        with pytest.raises(StoreUnavailable):
            store.codes.redeem("T1", "U1", code)
    assert store.codes.redeem("T2", "U2", code).ok


def test_claim_left_by_outage_can_be_retried_by_same_workspace_only(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A claim stranded by an outage is retryable by its workspace, refused to others."""
    (code,) = store.codes.create("scale", 14)
    with monkeypatch.context() as m:
        m.setattr(store.plans, "grant", lambda *a, **k: (_ for _ in ()).throw(OSError("x")))
        m.setattr(store.codes, "_settle", lambda *a, **k: None)  # restore lost as well
        with pytest.raises(OSError):
            store.codes.redeem("T1", "U1", code)
    assert store.codes.redeem("T2", "U2", code).reason == "already_used"
    assert store.codes.redeem("T1", "U1", code).ok
    assert store.codes.redeem("T1", "U1", code).reason == "already_used"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"plan": "free", "days": 14}, "plan must be one of"),
        ({"plan": "scale", "days": 0}, "days must be"),
        ({"plan": "scale", "days": 14, "count": 0}, "count must be"),
        ({"plan": "scale", "days": 14, "count": 1001}, "count must be"),
        ({"plan": "scale", "days": 14, "valid_days": 0}, "valid_days must be"),
    ],
)
def test_bad_create_arguments(store: Store, kwargs: dict[str, Any], message: str) -> None:
    """Impossible plans, durations and counts are refused with a clear message."""
    with pytest.raises(ValueError, match=message):
        store.codes.create(**kwargs)


def test_codes_keep_working_through_what_dresses_them() -> None:
    """Backticks, asterisks, quotes, non-breaking hyphens, en dashes, zero-width spaces and
    full-width forms around or inside a code are not part of it; other letters still are."""
    code = "DNPX-ABCD-EFGH-JKMN"
    for typed in (f"`{code}`", f"*{code}*", f"\u201c{code}\u201d", code.replace("-", "\u2011"), code.replace("-", "\u2013"),
                  "\u200b" + code, "ＤＮＰＸ－ＡＢＣＤ－ＥＦＧＨ－ＪＫＭＮ"):
        assert normalize_code(typed) == "ABCDEFGHJKMN", typed
    assert normalize_code("DNPX-ÀBCD-EFGH-JKMN") is None and normalize_code("code DNPX-ABCD-EFGH-JKMN") is None
