"""What every listener needs, built once at start-up and handed to each `register()`."""

from __future__ import annotations

from dataclasses import dataclass

from bot.service import Denpex
from bot.slack.config import SlackConfig
from bot.store import Store


@dataclass
class BotDeps:
    denpex: Denpex
    store: Store
    config: SlackConfig

    def __post_init__(self) -> None:
        words = {kw for rule in self.denpex.rulebook for kw in rule.keywords}
        self.keywords: tuple[str, ...] = tuple(sorted(words))
        from bot.slack.recovery import LeaseKeeper

        self.leases = LeaseKeeper(self)
