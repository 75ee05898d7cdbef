"""What a blind corpus of personal data in pasted training logs (git, chat, mail, cron, Hub,
MLflow) still leaked from main. Each row: the text as the tool or the person writes it, the
planted values that must be gone, the diagnostic text that must stay. Values are synthetic."""

from __future__ import annotations

import pytest

from tests.masking.test_blind2 import assert_masked_as_a_log

ROWS: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        # cron mails a job's output; its subject names the crontab's owner at the short host name.
        "cron-mail-subject",
        "From: root@gpu-ws01.lab.local (Cron Daemon)\nTo: jalvarez@gpu-ws01.lab.local\n"
        "Subject: Cron <jalvarez@gpu-ws01> /home/jalvarez/bin/nightly_eval.sh\n"
        "X-Cron-Env: <SHELL=/bin/sh>\nX-Cron-Env: <USER=jalvarez>\n",
        ("jalvarez",),
        ("(Cron Daemon)", "Subject: Cron <<USER-1>@", "/bin/nightly_eval.sh", "X-Cron-Env: <SHELL=/bin/sh>"),
    ),
    (
        # `%an` with an Irish family name that opens with a one-letter word.
        "git-format-irish-name",
        "$ git log --format='%h %an %ad %s' --date=short -2\n"
        "7535c04 Tomás Ó Briain 2026-12-06 Fix mark_step placement for XLA\n"
        "9a1f00e Aoife Ní Bhriain 2026-12-05 Bump apex to 24.04\n",
        ("Tomás", "Briain", "Aoife"),
        ("7535c04 <NAME-1> 2026-12-06 Fix mark_step placement for XLA", "<NAME-2> 2026-12-05 Bump apex to 24.04"),
    ),
    (
        # Slack copies a header per message; a CJK display name has no capital and no blank.
        "slack-cjk-names",
        "李雷  10:42 AM\ncan you look at this? OOM again on rank 3\n王芳  10:44 AM\nwill do, the Megatron sharding again\n"
        "— 李雷, 10:47 AM\nthanks 芳! I'll grant you access\n",
        ("李雷", "王芳", "芳!"),
        ("10:42 AM", "OOM again on rank 3", "will do, the Megatron sharding again", "I'll grant you access"),
    ),
    (
        # A mail's sign-off: the name under `Best,`, written in Japanese.
        "mail-signoff-cjk",
        "the job died again, log below.\n\nBest,\n田中美咲\nPhD student, Machine Learning Group\n",
        ("田中美咲",),
        ("Best,", "PhD student, Machine Learning Group"),
    ),
    (
        # A signature's first line: the name, then the title, set off by bars.
        "signature-bars",
        "--\nSiobhán O'Brien | PhD Candidate | Machine Learning Group\nTomás Ó Briain | Senior ML Engineer\n"
        "Training Loss | Research notes\n",
        ("Siobhán", "O'Brien", "Tomás", "Briain"),
        ("| PhD Candidate | Machine Learning Group", "| Senior ML Engineer", "Training Loss | Research notes"),
    ),
    (
        # Addresses spelled out against scrapers; the plain one shares the placeholder.
        "obfuscated-emails",
        "mail: a.schaefer-koch [at] research [dot] fr\n"
        "write to hannah.fischer(at)uni-kassel.de or hannah.fischer@uni-kassel.de\nweight_decay [at] 0.1\n",
        ("schaefer-koch", "research [dot] fr", "hannah.fischer", "uni-kassel"),
        ("mail: <EMAIL-1>", "write to <EMAIL-2> or <EMAIL-2>", "weight_decay [at] 0.1"),
    ),
    (
        # `mlflow runs describe` prints the run's owner as `user_id`; a data record's numeric id stays.
        "mlflow-run-user-id",
        '$ mlflow runs describe --run-id 9f1c2d4e\n{\n  "info": {\n    "status": "FAILED",\n    "user_id": "fdamico"\n  },\n'
        'record = {"user_id": 123456, "item_id": 42}\n',
        ("fdamico",),
        ('"status": "FAILED"', '"user_id": "<USER-1>"', '{"user_id": 123456, "item_id": 42}'),
    ),
    (
        # huggingface_hub's 404 names the private repository's owner: a family-name login.
        "hub-api-owner-family-login",
        "Repository Not Found for url: https://huggingface.co/api/models/aschaefer/llama-ft-private/revision/main.\n"
        "Repository Not Found for url: https://huggingface.co/api/models/malfarsi/llama-ft-lora/revision/main.\n",
        ("aschaefer", "malfarsi"),
        ("Repository Not Found for url: https://huggingface.co/api/models/<USER-1>/llama-ft-private/revision/main.",),
    ),
]


@pytest.mark.parametrize(("text", "gone", "kept"), [pytest.param(*row[1:], id=row[0]) for row in ROWS])
def test_personal_blind41_leak_is_masked(text: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    assert_masked_as_a_log(text, gone, kept)
