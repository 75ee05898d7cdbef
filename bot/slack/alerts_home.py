"""The App Home section of alerts: the connected channels and the latest alerts (entry, job,
channel, when; never log text)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.slack import blocks as ui
from bot.slack.deps import BotDeps

RECENT_SHOWN = 10


def alerts_home_blocks(deps: BotDeps, team: str) -> ui.Blocks:
    """Raises StoreUnavailable (the Home tab then shows the rest)."""
    channels = deps.store.alerts.channels(team)
    recent = deps.store.alerts.recent(team, RECENT_SHOWN)
    if not channels and not recent:
        return [ui.section(ui.esc("*Alerts*\nRun `/denpex alerts connect` in a channel, then `denpex watch -- <your job>` on the "
                                  "training node: the channel hears the root cause the moment the first rank fails (Scale plan)."))]
    public = deps.store.alerts.public_channels(team)
    # Slack shows a private channel's mention as "private channel" to those outside it; the
    # alert's cause and job are told only for public channels (the Home tab is every member's).
    where = ", ".join(f"<#{c}>" for c in channels) if channels else "no channel (connect one with `/denpex alerts connect`)"
    lines = [f"*Alerts* go to {where}."]
    for a in recent:
        when = datetime.fromtimestamp(a.when, UTC).strftime("%Y-%m-%d %H:%M UTC")
        kind = "job ended" if a.kind == "final" else "alert"
        if a.channel in public:
            lines.append(f"• {when} <#{a.channel}> {ui.esc(a.title)} · job {ui.inline_code(a.job)} ({kind})")
        else:
            lines.append(f"• {when} <#{a.channel}> ({kind}; a private channel: its members read it there)")
    return [ui.section("\n".join(lines))]
