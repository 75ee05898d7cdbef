"""The masking pipeline: passes in a fixed order, secrets first, personal data after.

Each stage collects edits from its detectors over the same text, then applies them at once.
Later stages run on the output of earlier ones and none of their patterns can match inside a
placeholder, so a secret is never half-replaced by a lower-priority detector, and masking
masked text changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.masking.addresses import find_ipv4, find_ipv6
from bot.masking.anchors import find_anchors, present_words
from bot.masking.blocks import find_pem_blocks, find_secret_data
from bot.masking.commands import find_command_credentials
from bot.masking.edits import Edit, apply_edits
from bot.masking.hosts import find_fqdns, find_host_positions, find_nccl_leftovers, learn_nccl_hosts
from bot.masking.learned import mask_learned_names
from bot.masking.pairs import find_pairs
from bot.masking.people import find_emails, find_home_users, find_named_users, find_user_at_host
from bot.masking.state import LogState
from bot.masking.urls import find_url_credentials
from bot.masking.vendor import find_contextual_keys, find_vendor_tokens


@dataclass(frozen=True)
class MaskResult:
    text: str  # the masked text, same number of lines as the input
    counts: dict[str, int]  # kind -> number of values masked, e.g. {"hf-token": 1, "ip": 3}


class Masker:
    """Stateful masker for one log read in pieces: placeholders stay consistent across calls.

    Feed it whole lines, in order. A PEM block or Kubernetes `data:` block may open in one
    piece and close in a later one. Names learned in a piece (`/home/alice`, `MASTER_ADDR=`)
    are masked everywhere in that piece and every later one.
    """

    def __init__(self) -> None:
        self._state = LogState()

    def mask(self, text: str) -> str:
        """Mask one piece of the log (whole lines) and return it."""
        if not text:
            return text
        state = self._state
        table = state.table

        edits: list[Edit] = []
        find_pem_blocks(text, edits, state)
        find_secret_data(text, edits, state)
        text = apply_edits(text, edits, table)

        edits = []
        hits = find_anchors(text)
        present = present_words(text, hits)
        find_vendor_tokens(text, edits)
        find_contextual_keys(text, hits, edits)
        find_url_credentials(text, edits, state)
        find_pairs(text, hits, edits, state)
        find_command_credentials(text, hits, edits, state)
        text = apply_edits(text, edits, table)

        edits = []
        find_emails(text, edits)
        find_user_at_host(text, edits, state)
        find_home_users(text, present, edits, state)
        find_named_users(text, present, edits, state)
        text = apply_edits(text, edits, table)

        edits = []
        find_ipv6(text, edits)
        find_ipv4(text, edits)
        text = apply_edits(text, edits, table)

        # Hosts after addresses: a host name running into an address (`...:7334-node3.local`)
        # is judged on the same text on every pass.
        edits = []
        learn_nccl_hosts(text, state)
        find_fqdns(text, edits)
        find_host_positions(text, present, edits, state)
        text = apply_edits(text, edits, table)

        edits = []
        find_nccl_leftovers(text, edits, state)
        text = apply_edits(text, edits, table)

        return mask_learned_names(text, state)

    @property
    def counts(self) -> dict[str, int]:
        """Kind -> number of values masked so far in this log."""
        return self._state.table.counts


def mask(text: str) -> MaskResult:
    """Mask secrets and personal data in a whole log."""
    masker = Masker()
    masked = masker.mask(text)
    return MaskResult(text=masked, counts=masker.counts)
