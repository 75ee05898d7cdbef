"""Where each workspace's installation (its bot token) lives: Bolt's InstallationStore, in Redis.

One record per workspace, `denpex:{T…}:installation`, or per Enterprise Grid org for an
org-wide install (`denpex:{E…}:installation`): the latest installation, token rotation's
refreshed tokens included, as JSON sealed with DENPEX_TOKEN_KEY (see sealing.py). Redis never
holds a token, refresh token or webhook URL in plaintext, and nothing here logs one.

The bot asks only for bot scopes, so the record is the workspace's bot installation plus who
installed it; a lookup for another user finds nothing (Bolt then serves the bot token alone).
"""

from __future__ import annotations

import inspect
import json
import logging
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation, InstallationStore

from bot.store import keys
from bot.store.client import RedisClient, guarded
from bot.store.sealing import Sealer, Unsealable

log = logging.getLogger(__name__)

_USER_FIELDS = ("user_token", "user_refresh_token", "user_token_expires_at", "user_scopes")
# What Installation() accepts: a record written by another slack_sdk version may hold more.
_INSTALLATION_ARGS = frozenset(inspect.signature(Installation.__init__).parameters) - {"self"}


class Installations(InstallationStore):
    """Bolt's InstallationStore over Redis, tokens encrypted at rest."""

    def __init__(self, client: RedisClient, sealer: Sealer) -> None:
        self._client = client
        self._sealer = sealer
        self._logger = logging.getLogger("denpex.installations")

    @property
    def logger(self) -> logging.Logger:
        return self._logger

    # --- writing ---------------------------------------------------------------------------
    @guarded
    def save(self, installation: Installation) -> None:
        """Store `installation` as the workspace's (or org's) latest, replacing any earlier one.

        Also called by Bolt with refreshed tokens after a token rotation.
        """
        owner = _owner(installation.enterprise_id, installation.team_id, installation.is_enterprise_install)
        record = json.dumps(installation.__dict__, separators=(",", ":"), default=str)
        self._client.redis.set(keys.installation(owner), self._sealer.seal(record))

    @guarded
    def save_bot(self, bot: Bot) -> None:
        """Replace the bot part (token, refresh token, expiry, scopes) of the stored record."""
        current = self.find_installation(
            enterprise_id=bot.enterprise_id, team_id=bot.team_id,
            is_enterprise_install=bot.is_enterprise_install,
        )  # fmt: skip
        if current is None:
            current = Installation(user_id="", **_bot_fields(bot))
        else:
            for name, value in _bot_fields(bot).items():
                setattr(current, name, value)
        self.save(current)

    # --- reading ---------------------------------------------------------------------------
    @guarded
    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        """The installation serving a workspace: its own, else its org's org-wide one.

        With `user_id`, only if that user installed it (the bot holds no other user's token).
        """
        for owner in _owners(enterprise_id, team_id, is_enterprise_install):
            found = self._load(owner, enterprise_id, team_id)
            if found is not None:
                if user_id is not None and found.user_id != user_id:
                    return None
                return found
        return None

    def find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        """The bot part of the installation serving a workspace."""
        found = self.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install
        )
        return found.to_bot() if found is not None and found.bot_token else None

    # --- deleting --------------------------------------------------------------------------
    @guarded
    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Forget the installation (the bot token is the whole of it)."""
        self.delete_all(enterprise_id=enterprise_id, team_id=team_id)

    @guarded
    def delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        """Without `user_id`, forget the installation; with it, drop that user's token only
        (the bot token stays: revoking a user's token does not uninstall the app)."""
        if user_id is None:
            self.delete_all(enterprise_id=enterprise_id, team_id=team_id)
            return
        found = self.find_installation(enterprise_id=enterprise_id, team_id=team_id, user_id=user_id)
        if found is None or all(getattr(found, f) is None for f in _USER_FIELDS):
            return
        for name in _USER_FIELDS:
            setattr(found, name, None)
        self.save(found)

    @guarded
    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """Forget the workspace's installation; with no team, the org's org-wide one."""
        owner = team_id or enterprise_id
        if owner:
            self._client.redis.delete(keys.installation(owner))

    # --- internals -------------------------------------------------------------------------
    def _load(self, owner: str, enterprise_id: str | None, team_id: str | None) -> Installation | None:
        sealed = self._client.redis.get(keys.installation(owner))
        if sealed is None:
            return None
        try:
            data: dict[str, Any] = json.loads(self._sealer.open(sealed))
            installation = Installation(**{k: v for k, v in data.items() if k in _INSTALLATION_ARGS})
        except (Unsealable, ValueError, TypeError) as exc:
            # A key rotated away, or a tampered record: the workspace must install again.
            log.warning("installation of %s is unreadable (%s); it needs reinstalling", owner, type(exc).__name__)
            return None
        # A record copied under another workspace's key must not lend that workspace its token.
        stored_owner = installation.enterprise_id if installation.is_enterprise_install else installation.team_id
        if stored_owner != owner:
            log.warning("installation stored under %s belongs to %s; ignored", owner, stored_owner)
            return None
        if team_id and installation.team_id and installation.team_id != team_id:
            return None
        if enterprise_id and installation.enterprise_id and installation.enterprise_id != enterprise_id:
            return None
        return installation


def _owner(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> str:
    """Whose key an installation is stored under: the org for an org-wide install, else the team."""
    owner = enterprise_id if is_enterprise_install else team_id
    if not owner:
        raise ValueError("an installation needs a team id (or an enterprise id for an org-wide install)")
    return keys.check_team_id(owner)


def _owners(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> list[str]:
    """Keys to look in, in order: the org's for an org-wide request, else the team's and then
    its org's (an org-wide install serves every workspace of the org)."""
    if is_enterprise_install:
        return [enterprise_id] if enterprise_id else []
    return [o for o in (team_id, enterprise_id) if o]


def _bot_fields(bot: Bot) -> dict[str, Any]:
    return {
        "app_id": bot.app_id,
        "enterprise_id": bot.enterprise_id,
        "enterprise_name": bot.enterprise_name,
        "team_id": bot.team_id,
        "team_name": bot.team_name,
        "bot_token": bot.bot_token,
        "bot_id": bot.bot_id,
        "bot_user_id": bot.bot_user_id,
        "bot_scopes": bot.bot_scopes,
        "bot_refresh_token": bot.bot_refresh_token,
        "bot_token_expires_at": bot.bot_token_expires_at,
        "is_enterprise_install": bot.is_enterprise_install,
    }
