"""Generated logs of floods (`test_flood._flood_log`) settled exactly: the same scan state and
Diagnosis as with every line read in full, whole or cut into pieces, and the naive path's
Diagnosis.

A file of its own (the suite's workers take a file each): most of its time is the naive path
reading every line with every regex (~1 ms a line), beside test_flood.py's other tests rather
than after them.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.matcher.test_flood import _flood_log, _same


# Up to 600 lines: what a flood's handling depends on is reached within a flood, not a log. A
# flood is 5-120 lines whatever the log's length, a key settles on its first line whose hits
# are all kept (`_KEEP_PER_KEY`, 2), and the one length threshold, BLANK_AFTER (64 counted
# repeats of a key, then BLANK_MIN_BYTES pieces emptied), empties no line of these logs at 1,200
# lines either (none in 60 drawn logs of each size: `_vary` gives a flood's lines other ranks'
# and anchored digits). A log of 600 lines still holds some 10 floods and runs of a paste, each
# with its late ranks, errors, windows and cuts; logs of up to 1,200 (and before, 2,500) lines
# doubled the naive path's time (~6 ms a line, 99% of this test's CPU) for more of the same.
# Its 60 examples take ~50 s of CPU alone; on a machine shared with other jobs the wall time
# passed the suite's 300 s hang guard once (a CI run beside three other test runs), so this
# test gets a guard of its own. It still ends on a real hang.
@pytest.mark.timeout(900)
@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.integers(50, 600))
def test_floods_with_late_ranks_errors_windows_and_cuts_are_settled_exactly(seed: int, n_lines: int) -> None:
    """Ranks first seen late in a flood, an error line or a traceback after it, a window opening
    inside it, pdsh hosts placed and a spawn block opened part way, pieces cut mid-flood."""
    rng = random.Random(seed)
    _same(_flood_log(rng, n_lines).encode(), rng)
