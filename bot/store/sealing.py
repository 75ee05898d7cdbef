"""Encryption at rest for workspace tokens: Fernet (AES-128-CBC + HMAC-SHA256) from `cryptography`.

DENPEX_TOKEN_KEY holds one Fernet key (44 characters of URL-safe base64, 32 random bytes), or
several separated by commas to rotate keys: the first encrypts, every one decrypts. Make one
with `python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"`.
Redis then holds only ciphertext: a copy of Redis without the key gives no token.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from bot.store.errors import StoreConfigError

KEY_HINT = (
    'make one with: python -c "from cryptography.fernet import Fernet; '
    'print(Fernet.generate_key().decode())"'
)


class Unsealable(Exception):
    """Ciphertext that no configured key opens (wrong key, or tampered with)."""


class Sealer:
    """Seals and opens short secrets (installation records) with the configured keys."""

    def __init__(self, keys: str) -> None:
        """`keys`: one Fernet key, or several comma-separated (the first one encrypts)."""
        self._fernet = MultiFernet([_fernet(k) for k in parse_keys(keys)])

    def seal(self, plaintext: str) -> str:
        """The ciphertext of `plaintext` (a Fernet token, ASCII), under the first key."""
        return self._fernet.encrypt(plaintext.encode("utf-8")).decode("ascii")

    def open(self, sealed: str) -> str:
        """The plaintext of `sealed`; raises Unsealable when no key opens it."""
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError) as exc:
            raise Unsealable("sealed value does not open with DENPEX_TOKEN_KEY") from exc


def parse_keys(keys: str) -> list[str]:
    """The keys in DENPEX_TOKEN_KEY, checked; StoreConfigError (naming the variable, never
    echoing the value) when one is not a Fernet key."""
    parts = [k.strip() for k in (keys or "").split(",") if k.strip()]
    if not parts:
        raise StoreConfigError(f"DENPEX_TOKEN_KEY is empty; {KEY_HINT}")
    for i, key in enumerate(parts, 1):
        try:
            _fernet(key)
        except ValueError:
            where = f" (key {i} of {len(parts)})" if len(parts) > 1 else ""
            raise StoreConfigError(
                f"DENPEX_TOKEN_KEY{where} is not a Fernet key (32 bytes in URL-safe base64, "
                f"44 characters); {KEY_HINT}"
            ) from None
    return parts


def _fernet(key: str) -> Fernet:
    # Fernet raises ValueError (binascii.Error is one) for anything but 32 bytes of base64.
    return Fernet(key.encode("ascii", errors="strict") if key.isascii() else b"")
