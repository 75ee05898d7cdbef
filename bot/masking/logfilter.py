"""Defence in depth for the bot's own log records: mask each message before a handler sees it.

The mechanism that keeps log text out of records is the types (only MaskedText leaves, and
nothing of ours formats raw log text into a record); this filter is the net under it, for a
dependency that logs a request body or an exception that quotes what it was given.
"""

from __future__ import annotations

import logging

from bot.masking.masker import Masker


class MaskingFilter(logging.Filter):
    """Replace a record's message with its masked form (one Masker per record: records are
    unrelated, so placeholders are numbered per record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: leave it to logging
            return True
        masked = Masker().mask(message)
        if masked != message:
            record.msg, record.args = str(masked), None
        if record.exc_info and record.exc_info[1] is not None:
            # The traceback text can quote a value too: render it now, masked, and drop the
            # live exception so no handler formats it again.
            text = logging.Formatter().formatException(record.exc_info)
            record.exc_text = str(Masker().mask(text))
            record.exc_info = None
        return True


def install(handler_owner: logging.Logger | None = None) -> None:
    """Put a MaskingFilter on every handler of `handler_owner` (the root logger by default)."""
    owner = handler_owner or logging.getLogger()
    for handler in owner.handlers:
        if not any(isinstance(f, MaskingFilter) for f in handler.filters):
            handler.addFilter(MaskingFilter())
