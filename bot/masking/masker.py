"""The masking pipeline: passes in a fixed order, secrets first, personal data after.

Each stage collects edits from its detectors over the same text, then applies them at once.
Later stages run on the output of earlier ones and none of their patterns can match inside a
placeholder, so a secret is never half-replaced by a lower-priority detector, and masking
masked text changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import hyperscan as hs

from bot.masking.addresses import find_ipv4, find_ipv6
from bot.masking.anchors import find_anchors, present_words
from bot.masking.blocks import find_pem_blocks, find_secret_data
from bot.masking.commands import find_command_credentials
from bot.masking.edits import Edit, apply_edits
from bot.masking.hosts import find_fqdns, find_host_positions, find_nccl_leftovers, learn_nccl_hosts
from bot.masking.learned import mask_learned_names
from bot.masking.learned_fast import mask_learned_names_fast
from bot.masking.pairs import find_pairs
from bot.masking.people import find_emails, find_home_users, find_named_users, find_user_at_host
from bot.masking.prefilter import ANCHORS, hot_runs, scan_anchors
from bot.masking.prefix_hosts import all_prefixes_learned, learn_prefix_hosts, split_prefixes
from bot.masking.splice import gather, scatter
from bot.masking.state import LogState
from bot.masking.urls import find_url_credentials
from bot.masking.vendor import find_contextual_keys, find_vendor_tokens

# Above this share of hot text, every pass on the whole piece is cheaper than cutting it up.
_MOSTLY_HOT = 0.5


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

    def __init__(self, prefilter: bool = True) -> None:
        # prefilter=False runs every pass on every line: the reference the prefiltered path
        # must equal, byte for byte (tests/test_masking_prefilter.py).
        self._state = LogState()
        self._prefilter = prefilter

    def mask(self, text: str) -> str:
        """Mask one piece of the log (whole lines) and return it."""
        if not text:
            return text
        state = self._state
        if not self._prefilter:
            return _mask_rest(_mask_blocks(text, state), state)
        if state.anchor_scratch is None:
            state.anchor_scratch = hs.Scratch(ANCHORS)
        anchors = scan_anchors(text, state.anchor_scratch)
        if anchors is None or anchors.blocks or state.pem_open or state.data_indent is not None:
            masked = _mask_blocks(text, state)
            if masked != text:  # the anchors were found in the text before the blocks went
                text = masked
                anchors = scan_anchors(text, state.anchor_scratch)
        if anchors is None:
            return _mask_rest(text, state)
        runs = hot_runs(text, anchors)
        if sum(b - a for a, b in runs) > len(text) * _MOSTLY_HOT:
            return _mask_rest(text, state)  # the same result, without the split's overhead
        # Only hot lines can change before the NCCL and learned-name stages: mask those,
        # put them back, then run the stages that need every line on the whole piece.
        hot = _mask_line_passes(gather(text, runs), state)
        text = scatter(text, runs, hot)
        prefixes = split_prefixes(text)
        learn_prefix_hosts(prefixes, state)
        if not all_prefixes_learned(text, prefixes, hot, state):
            return _mask_nccl_and_learned(text, state)
        masked = mask_learned_names_fast(prefixes, state)
        return mask_learned_names(text, state) if masked is None else masked

    @property
    def counts(self) -> dict[str, int]:
        """Kind -> number of values masked so far in this log."""
        return self._state.table.counts


def _mask_blocks(text: str, state: LogState) -> str:
    """Stage 1: multi-line blocks (PEM keys, Kubernetes Secret data), on the whole piece."""
    edits: list[Edit] = []
    find_pem_blocks(text, edits, state)
    find_secret_data(text, edits, state)
    return apply_edits(text, edits, state.table)


def _mask_line_passes(text: str, state: LogState) -> str:
    """Stages 2-5: secrets, people, addresses, hosts. Each reads at most a line and the
    prefilter's context around a match, so the hot lines alone give the same result."""
    table = state.table
    edits: list[Edit] = []
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
    return apply_edits(text, edits, table)


def _mask_nccl_and_learned(text: str, state: LogState) -> str:
    """Stages 6-7 on the whole piece: NCCL prefix hosts the other passes left, learned names."""
    edits: list[Edit] = []
    find_nccl_leftovers(text, edits, state)
    text = apply_edits(text, edits, state.table)
    return mask_learned_names(text, state)


def _mask_rest(text: str, state: LogState) -> str:
    """Stages 2-7 on the whole piece, for pieces the prefilter finds hot throughout."""
    return _mask_nccl_and_learned(_mask_line_passes(text, state), state)


def mask(text: str) -> MaskResult:
    """Mask secrets and personal data in a whole log."""
    masker = Masker()
    masked = masker.mask(text)
    return MaskResult(text=masked, counts=masker.counts)
