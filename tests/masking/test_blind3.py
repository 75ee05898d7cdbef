"""What a third blind corpus of pasted ML-ops logs (81 families, written before reading the
masker) still leaked from main.

Each row is text as the tool prints it, the planted values that must be gone, and the
diagnostic text that must stay as it is. Values are synthetic."""

from __future__ import annotations

import pytest

from tests.masking.test_blind2 import assert_masked_as_a_log

ROWS: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
    (
        # `getent passwd` for a directory user: LDAP and SSSD uids run far above 65535, and
        # SSSD shows `*` in the password field (its AD-mapped ids are ten digits).
        "getent-passwd-directory-uids",
        "$ getent passwd hfischer mkowalczyk nobody\n"
        "hfischer:*:1868401105:1868400513:Hannah Fischer:/home/hfischer:/bin/bash\n"
        "mkowalczyk:x:70012:70012:Marek Kowalczyk,Room 3.14,+33 6 47 87 58 98:/home/mkowalczyk:/bin/bash\n"
        "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
        ("Hannah Fischer", "Marek Kowalczyk", "+33 6 47 87 58 98", "hfischer", "mkowalczyk"),
        (":*:1868401105:1868400513:", ",Room 3.14,", "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin"),
    ),
    (
        # PostgreSQL's refusal names the account after the client's address (auth.c's
        # `no pg_hba.conf entry for host "%s", user "%s", database "%s", %s`).
        "postgres-pg-hba-user",
        'psql: error: connection to server at "10.40.2.9", port 5432 failed: FATAL:  no pg_hba.conf entry for host '
        '"10.40.7.31", user "rafael.haddad", database "runs", SSL off\n'
        'FATAL:  pg_hba.conf rejects connection for host "10.40.7.31", user "tlindqvist", database "metrics", no encryption\n',
        ("rafael.haddad", "tlindqvist", "10.40.7.31"),
        ('FATAL:  no pg_hba.conf entry for host "<IP-', 'database "runs", SSL off', 'database "metrics", no encryption'),
    ),
    (
        # PBS Pro's `qstat -f`: the owner is the account at the host the job was submitted from.
        "pbs-qstat-job-owner",
        "Job Id: 418203.pbs01\n    Job_Name = llm_pretrain\n    Job_Owner = hfischer@login07\n    job_state = F\n"
        "    Exit_status = 271\n",
        ("hfischer", "login07"),
        ("    Job_Owner = <USER-1>@<HOST-1>\n", "    Exit_status = 271"),
    ),
    (
        # A user's directory under /mnt, seen by what a person keeps in a home (a conda
        # install), then bare; the mounts beside it stay.
        "mnt-user-directory",
        "source /mnt/tlindqvist/miniconda3/etc/profile.d/conda.sh\ncd /mnt/tlindqvist/repos/finetune\n"
        "ls /mnt/nvme/cache /mnt/efs/shared /mnt/weights/llama\n",
        ("tlindqvist",),
        ("/miniconda3/etc/profile.d/conda.sh", "/repos/finetune", "ls /mnt/nvme/cache /mnt/efs/shared /mnt/weights/llama"),
    ),
    (
        # A ticket's contact fields name the number by what it is for, not `Phone:`.
        "ticket-contact-number",
        "Ticket #48213 opened by Hannah Fischer (hannah.fischer@deepcove.ai)\nCallback number: +33 6 47 87 58 98\n"
        "Contact number: +1 (415) 555-0132\nContact number of failed ranks: 3\n",
        ("+33 6 47 87 58 98", "+1 (415) 555-0132"),
        ("Callback number: <PHONE-", "Contact number of failed ranks: 3"),
    ),
    (
        # Postal addresses in a pasted mail thread and a ticket: the street and the house
        # number go, the postcode and the city stay; Title Case log phrases and `via` stay.
        "postal-addresses",
        "Ship the replacement to our lab, 95 Elm Street, 10999 Berlin, Germany.\n"
        "Site: Lindenstrasse 12, 10999 Berlin\nOffice: 12 Rue de la Roquette, 75011 Paris\n"
        "Lab: Keizersgracht 123, 1016 DJ Amsterdam\nHQ: 1600 Amphitheatre Parkway, Mountain View, CA 94043\n"
        "connected via NCCL 2 ranks\nwrote 12 Files In Place\nVia SSH 22\n"
        "epoch 10 Root Mean Square Error 0.31\nMounted 1 Google Drive folder\nHQ: 350 Fifth Avenue Suite 4\n",
        ("95 Elm Street", "Lindenstrasse 12", "Rue de la Roquette", "Keizersgracht 123", "1600 Amphitheatre Parkway",
         "350 Fifth Avenue"),
        (", 10999 Berlin, Germany.", ", 75011 Paris", "Mountain View, CA 94043", "connected via NCCL 2 ranks", "wrote 12 Files In Place", "Via SSH 22",
         "epoch 10 Root Mean Square Error 0.31", "Mounted 1 Google Drive folder", "Suite 4"),
    ),
]


@pytest.mark.parametrize(("text", "gone", "kept"), [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_blind_corpus_leak_is_masked(text: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    assert_masked_as_a_log(text, gone, kept)
