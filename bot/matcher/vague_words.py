"""Words that say something went wrong without saying what: the lookup does not guess from them.

`/denpex training failed` shares "training" with 66 entries and "failed" with 132; the five it
listed were whichever happened to use "training" most (SageMaker's algorithm error first). A
query made only of these words, with no signature matching it, names no failure, and the
answer is to ask for the error line instead. Words that narrow a failure stay out of this list:
"killed" (a SIGKILL), "nan", "oom", "timeout", "slow", "segmentation".
"""

from __future__ import annotations

# What ran, and that it stopped: the run, the job, and the verbs people use for "it broke".
_WHAT_RAN = ("training", "train", "trainer", "job", "jobs", "run", "runs", "running", "script", "model",
             "code", "program", "experiment", "workload")
_THAT_IT_BROKE = (
    "failed", "fails", "failing", "failure", "failures", "fail", "crash", "crashed", "crashes",
    "crashing", "error", "errors", "errored", "hang", "hangs", "hanging", "hung", "stuck", "died",
    "dies", "dead", "die", "broken", "broke", "breaks", "issue", "issues", "problem", "problems",
    "wrong", "working", "work", "works", "stopped", "stops", "exception", "exceptions",
    "runtimeerror", "traceback", "bug",
)
VAGUE_WORDS = frozenset(_WHAT_RAN + _THAT_IT_BROKE)
