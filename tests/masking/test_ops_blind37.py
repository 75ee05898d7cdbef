"""Logins and names a thirty-seventh blind corpus found kept, in the operations output users
paste beside a training log (bot/masking/hosts.py tables, people.py, keys.py):

- scheduler tables read by their header: LSF's `bjobs` (USER, FROM_HOST), HTCondor's
  `condor_q` (OWNER, batch and `-nobatch` layouts), Grid Engine's `qstat` (user, over its rule
  of dashes; a pending job has no queue), Slurm's `sshare` (User) and `sreport` user reports
  (Login and the GECOS `Proper Name` beside it), cells cut to `hannah.f+` masked too;
- nvitop's process panel (the USER column after the process type, cut to seven, and the
  panel's `login@host` title);
- PBS's `Job_Owner = login@host`: an account at the submit host, not an e-mail address;
- Airflow's `AIRFLOW_CTX_DAG_OWNER='login'` (the DAG's owner, as `owner:` keys are read);
- PBS/Torque's `qstat -a`/`-u` table (Username), Grid Engine's `qacct -j` record (`owner`),
  `sudo -l` and sudo's refusals, a web server's access log's authenticated user;
- sshd's other account lines (disconnects, postponed keys, AllowUsers refusals, sessions),
  sudo's journal line with its pid, passwd's `password changed for`, JupyterHub's login,
  proxy and slow-start lines, PBS's `euser`, gpustat's `-cp` cells, sacctmgr's user tables;
- lsof's and `ps -eo pid,user,...`/htop's USER column, Airflow's CLI tables (`airflow users
  list`: username, first and last name; `airflow dags list`: owners), `lastb`'s `ssh:notty`
  rows, stat's `Uid: (n/login)`, sshd's GSSAPI logins, pam_sss's `received for user x: 7 (...)`,
  pam_unix's expired account, `ps -o user=`'s answer;
- the account in tools' refusals (screen's socket directory, `no crontab for`, coreutils'
  `no such user` and `invalid user`, `sudo: unknown user`, shadow's `already exists`), shadow's
  and su's and cron's syslog lines, PAM's `ruser=`, `logname`'s answer.
- condor_q's `-hold` table, bhist's summary table, Grid Engine's `qstat -f` job rows.
Kept too: PAM's `(passwd:chauthtok)` and `(systemd-user:session)` prefixes, read as no key.
Kept: the diagnosis (job states, exit codes, memory limits, GPU models and memory figures),
system accounts (`root`), Airflow's own default owner, table rows' other cells.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from tests.masking.test_round12 import _mask_log  # learned whole first, then masked

_BJOBS = (
    "$ bjobs -u all\n"
    "JOBID   USER    STAT  QUEUE      FROM_HOST   EXEC_HOST   JOB_NAME   SUBMIT_TIME\n"
    "48213   tkowalc RUN   gpu_normal hpclogin2   8*hpcn114   llama_sft  Nov  3 08:14\n"
    "48214   zaydin  PEND  gpu_normal hpclogin2               eval_run   Nov  3 08:15\n"
)
_CONDOR = (
    "-- Schedd: submit-2.chtc.wisc.edu : <128.104.101.92:9618?... @ 11/03/26 09:20:41\n"
    "OWNER      BATCH_NAME     SUBMITTED   DONE   RUN    IDLE   HOLD  TOTAL JOB_IDS\n"
    "nokafor    ID: 4821301    11/3  08:14      _      1      _      _      1 4821301.0\n"
    "wen.sato   ID: 4821355    11/3  08:40      _      _      _      2      2 4821355.0-1\n"
    "\n"
    "Total for query: 3 jobs; 0 completed, 0 removed, 0 idle, 1 running, 2 held, 0 suspended\n"
)
_CONDOR_NOBATCH = (
    " ID         OWNER            SUBMITTED     RUN_TIME ST PRI SIZE CMD\n"
    "4821301.0   rdeshpande      11/3 08:14   0+01:02:03 R  0    2441.4 train.sh --bf16\n"
    "4821355.0   rdeshpande      11/3 08:40   0+00:00:00 H  0    0.0 eval.sh\n"
)
_QSTAT = (
    "job-ID  prior   name       user         state submit/start at     queue                          slots ja-task-ID \n"
    "-----------------------------------------------------------------------------------------------------------------\n"
    " 482130 0.50500 train.sh   lmoretti     r     11/03/2026 08:14:02 gpu.q@node-gpu-03.cluster.local     4        \n"
    " 482131 0.50000 eval.sh    kmensah      Eqw   11/03/2026 08:15:40                                    1        \n"
)
_SSHARE = (
    "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n"
    "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n"
    "root                                          0.000000  1023441203      1.000000            \n"
    " mlteam                                100    0.250000   912384402      0.412000            \n"
    "  mlteam             ingrid.me+          1    0.050000   501223110      0.226000   0.041667 \n"
    "  mlteam                 aholmb          1    0.050000    12031221      0.005400   0.833333 \n"
)
_SREPORT = (
    "--------------------------------------------------------------------------------\n"
    "Cluster/Account/User Utilization 2026-10-01T00:00:00 - 2026-10-31T23:59:59 (2678400 secs)\n"
    "Usage reported in CPU Hours\n"
    "--------------------------------------------------------------------------------\n"
    "  Cluster         Account     Login     Proper Name     Used   Energy \n"
    "--------- --------------- --------- --------------- -------- -------- \n"
    "   kraken          mlteam                             812031        0 \n"
    "   kraken          mlteam   tnkosi7     Thabo Nkosi   501223        0 \n"
    "   kraken          mlteam amara.br+ Amara Brandste+    12031        0 \n"
)
_NVITOP = (
    "╒══════════════════════════════════════════════════════════════════════════════╕\n"
    "│ Processes:                                                  hkahale@dgx-a03 │\n"
    "│ GPU     PID      USER  GPU-MEM %SM  %CPU  %MEM  TIME  COMMAND                 │\n"
    "╞══════════════════════════════════════════════════════════════════════════════╡\n"
    "│   0  205220 C hkahale  78.23GiB  99  101.2  12.3  5:01:12  python train.py    │\n"
    "│   1  205311 C siobha+  9316MiB  76   53.0   1.2  5:39  python eval.py         │\n"
    "│   2    1204 G    root     4MiB   0    0.0   0.0  9 days  /usr/lib/xorg/Xorg   │\n"
    "╘══════════════════════════════════════════════════════════════════════════════╛\n"
)
_PBS = (
    "Job Id: 48213.pbs01\n"
    "    Job_Name = llama_sft\n"
    "    Job_Owner = mbrennan@login04.thor.hpc.tu-graz.at\n"
    "    job_state = F\n"
    "    Exit_status = 271\n"
    "    euser = mbrennan\n"
)
_AIRFLOW = (
    "[2026-11-03, 08:14:02 UTC] {taskinstance.py:1662} INFO - Exporting env vars: AIRFLOW_CTX_DAG_OWNER='zhangwen42' "
    "AIRFLOW_CTX_DAG_ID='llm_finetune' AIRFLOW_CTX_TASK_ID='train_model' AIRFLOW_CTX_TRY_NUMBER='1'\n"
    "[2026-11-03, 08:14:09 UTC] {taskinstance.py:1400} INFO - Marking task as UP_FOR_RETRY. dag_id=llm_finetune, task_id=train_model\n"
)
_PBS_TABLE = (
    "pbs01.hpc.internal: \n"
    "                                                            Req'd  Req'd   Elap\n"
    "Job ID          Username Queue    Jobname    SessID NDS TSK Memory Time  S Time\n"
    "--------------- -------- -------- ---------- ------ --- --- ------ ----- - -----\n"
    "48213.pbs01     rdeshpan gpu      llama_sft   12345   2 128  500gb 24:00 R 01:02\n"
    "48214.pbs01     haddada  gpu      eval_run      --    1  16   64gb 02:00 Q   -- \n"
)
_QACCT = (
    "==============================================================\n"
    "qname        gpu.q\n"
    "group        mlgrp\n"
    "owner        thabo.kjeldsen\n"
    "jobnumber    482130\n"
    "exit_status  137                  (Killed)\n"
)
_SUDO = (
    "$ sudo -l\n"
    "Matching Defaults entries for kwame58 on gpu-node-17:\n"
    "    env_reset, mail_badpass\n"
    "User kwame58 may run the following commands on gpu-node-17:\n"
    "    (root) NOPASSWD: /usr/bin/nvidia-smi\n"
    "$ sudo -u lucia16 nvidia-smi -r\n"
    "Sorry, user kwame58 is not allowed to execute '/usr/bin/nvidia-smi -r' as lucia16 on gpu-node-17.\n"
    "bsato is not in the sudoers file.  This incident will be reported.\n"
)
_ACCESS = (
    '10.4.7.19 - noor.raman [03/Nov/2026:08:14:09 +0000] "POST /api/v1/dags/llm_finetune/dagRuns HTTP/1.1" 409 233 "-" "python-requests/2.31.0"\n'
    '10.4.7.19 - - [03/Nov/2026:08:14:10 +0000] "GET /health HTTP/1.1" 200 141 "-" "kube-probe/1.29"\n'
)

_SACCTMGR = (
    "      User   Def Acct     Admin \n"
    "---------- ---------- --------- \n"
    "   zkahale     mlteam      None \n"
    "   Cluster    Account       User  Partition     Share GrpJobs \n"
    "---------- ---------- ---------- ---------- --------- ------- \n"
    "    kraken     mlteam                               1         \n"
    "    kraken     mlteam    tnkosi7                    1         \n"
)

_LSOF = (
    "$ lsof /dev/nvidia0\n"
    "COMMAND     PID     USER   FD   TYPE DEVICE SIZE/OFF  NODE NAME\n"
    "python   481230  tnkosi7  mem    CHR  195,0           1093 /dev/nvidia0\n"
    "nvidia-p   1204     root    3u   CHR  195,0      0t0  1093 /dev/nvidia0\n"
)
_PS_EO = (
    "$ ps -eo pid,user,etime,cmd | grep train\n"
    "    PID USER         ELAPSED CMD\n"
    " 481230 kmensah     05:01:12 python train.py --bf16\n"
)
_AIRFLOW_USERS = (
    "$ airflow users list\n"
    "id | username | email                     | first_name | last_name | roles\n"
    "===+==========+===========================+============+===========+======\n"
    "1  | tnkosi7  | thabo.nkosi@uni-kassel.de | Thabo      | Nkosi     | Admin\n"
    "2  | airflow  | airflow@example.com       | Airflow    | Admin     | Admin\n"
)
_AIRFLOW_DAGS = (
    "$ airflow dags list\n"
    "dag_id       | fileloc                           | owners  | is_paused\n"
    "=============+===================================+=========+==========\n"
    "llm_finetune | /opt/airflow/dags/llm_finetune.py | zkahale | False\n"
    "nightly_eval | /opt/airflow/dags/nightly_eval.py | airflow | True\n"
)

_CONDOR_HOLD = (
    "$ condor_q -hold\n"
    "\n"
    "-- Schedd: submit-2.chtc.wisc.edu : <128.104.101.92:9618?... @ 11/03/26 09:20:41\n"
    " ID         OWNER          HELD_SINCE  HOLD_REASON\n"
    "4821355.0   wen.sato       11/3 08:41 Error from slot1_2@gpu-2041.chtc.wisc.edu: Job has gone over memory limit of 40960 megabytes.\n"
    "\n"
    "Total for query: 1 jobs; 0 completed, 0 removed, 0 idle, 0 running, 1 held, 0 suspended\n"
)
_BHIST = (
    "Summary of time in seconds spent in various states:\n"
    "JOBID   USER    JOB_NAME  PEND    PSUSP   RUN     USUSP   SSUSP   UNKWN   TOTAL\n"
    "48213   tkowalc llama_sft 4       0       2881    0       0       0       2885\n"
)
_QSTAT_F = (
    "queuename                      qtype resv/used/tot. load_avg arch          states\n"
    "---------------------------------------------------------------------------------\n"
    "gpu.q@node-gpu-03.cluster.loca BIP   0/4/8          3.02     lx-amd64\n"
    " 482130 0.50500 train.sh   lmoretti     r     11/03/2026 08:14:02     4\n"
)


@pytest.mark.parametrize(
    ("line", "login"),
    [
        ("Nov 03 08:05:41 login1 sshd[48415]: Disconnected from user tnkosi7 10.4.2.3 port 40120", "tnkosi7"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Disconnected from authenticating user wen.sato 10.4.2.3 port 40120 [preauth]", "wen.sato"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Connection closed by invalid user ykowalcz 10.4.2.3 port 40120 [preauth]", "ykowalcz"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Postponed publickey for tnkosi7 from 10.4.2.3 port 40120 ssh2 [preauth]", "tnkosi7"),
        (
            "Nov 03 08:05:41 login1 sshd[48415]: error: maximum authentication attempts exceeded for tnkosi7 from 10.4.2.3 port 40120 ssh2 [preauth]",
            "tnkosi7",
        ),
        ("Nov 03 08:05:41 login1 sshd[48415]: User ravi88 from 10.4.2.3 not allowed because not listed in AllowUsers", "ravi88"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Starting session: shell on pts/4 for lmoretti from 10.4.2.3 port 40120 id 0", "lmoretti"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Close session: user lmoretti from 10.4.2.3 port 40120 id 0", "lmoretti"),
        (
            "Nov 03 08:05:41 login1 sudo[48415]:  tnkosi7 : 3 incorrect password attempts ; TTY=pts/4 ; PWD=/tmp ; USER=root ; COMMAND=/bin/bash",
            "tnkosi7",
        ),
        ("Nov 03 08:05:41 login1 passwd[48415]: pam_unix(passwd:chauthtok): password changed for aholmb", "aholmb"),
        ("[I 2026-11-03 09:12:04.201 JupyterHub base:837] User logged in: kmensah", "kmensah"),
        ("[I 2026-11-03 09:12:38.907 JupyterHub proxy:330] Adding user kmensah to proxy /user/kmensah/ => http://10.4.2.3:8888", "kmensah"),
        ("[W 2026-11-03 09:13:10.551 JupyterHub base:1090] User kmensah is slow to start (timeout=10)", "kmensah"),
        ("    euser = mbrennan", "mbrennan"),
        ("tnkosi7  ssh:notty    10.4.2.3         Tue Nov  3 08:02 - 08:02  (00:00)", "tnkosi7"),
        ("Access: (0644/-rw-r--r--)  Uid: (41203/ tnkosi7)   Gid: ( 5000/   mlgrp)", "tnkosi7"),
        ("Nov 03 08:05:41 login1 sshd[48415]: Accepted gssapi-with-mic for tnkosi7 from 10.4.2.3 port 40120 ssh2", "tnkosi7"),
        ("Nov 03 08:05:41 login1 sshd[48415]: pam_sss(sshd:auth): received for user tnkosi7: 7 (Authentication failure)", "tnkosi7"),
        ("Nov 03 08:05:41 login1 sshd[48415]: pam_unix(sshd:account): account tnkosi7 has expired (account expired)", "tnkosi7"),
        ("$ ps -o user= -p 481230\ntnkosi7", "tnkosi7"),
        ("$ screen -ls\nNo Sockets found in /run/screen/S-tnkosi7.", "tnkosi7"),
        ("$ crontab -l\nno crontab for tnkosi7", "tnkosi7"),
        ("$ id ravi88\nid: ‘ravi88’: no such user", "ravi88"),
        ("chown: invalid user: ‘tnkosi7:mlgrp’", "tnkosi7"),
        ("sudo: unknown user tnkosi7", "tnkosi7"),
        ("useradd: user 'tnkosi7' already exists", "tnkosi7"),
        ("Nov 03 08:05:41 login1 useradd[48411]: new user: name=tnkosi7, UID=41203, GID=41203, home=/home/x, shell=/bin/bash", "tnkosi7"),
        ("Nov 03 08:05:41 login1 groupadd[48411]: group added to /etc/group: name=tnkosi7, GID=41203", "tnkosi7"),
        ("Nov 03 08:05:41 login1 usermod[48411]: add 'tnkosi7' to shadow group 'docker'", "tnkosi7"),
        ("Nov 03 08:05:41 login1 su[48415]: FAILED SU (to root) tnkosi7 on pts/4", "tnkosi7"),
        ("Nov 03 08:05:41 login1 su[48415]: Successful su for root by tnkosi7", "tnkosi7"),
        ("Nov 03 08:05:41 login1 su[48415]: + /dev/pts/4 tnkosi7:root", "tnkosi7"),
        ("Nov 03 08:05:41 login1 CRON[48415]: (tnkosi7) CMD (python /opt/sync.py)", "tnkosi7"),
        ("Nov 03 08:05:41 login1 su[48415]: pam_unix(su:auth): authentication failure; logname=x1 uid=41203 euid=0 tty=pts/4 ruser=tnkosi7 rhost=  user=root", "tnkosi7"),
        ("$ logname\ntnkosi7", "tnkosi7"),
        ("[0] NVIDIA H100 80GB HBM3 | 45°C,  98 % | 80114 / 81559 MB | tnkosi7:python/481230(80102M)", "tnkosi7"),
        ("[0] NVIDIA H100 80GB HBM3 | 45°C,  98 % | 80114 / 81559 MB | tnkosi7/481230(80102M)", "tnkosi7"),
    ],
)
def test_account_lines_mask_the_login(line: str, login: str) -> None:
    """The login goes; the line's other words (ports, states, GPU figures) stay."""
    out = _mask_log(line + "\n")
    assert login not in out, out
    for word in ("port 40120", "incorrect password attempts", "is slow to start", "80114 / 81559 MB", "euser = ", "pam_unix(passwd:chauthtok)",
                 "user=root", "to shadow group 'docker'", "CMD (python /opt/sync.py)", "(to root)", "already exists"):
        if word in line:
            assert word in out, out


@pytest.mark.parametrize(
    ("log", "gone", "kept"),
    [
        (_BJOBS, ["tkowalc", "zaydin", "hpclogin2"], ["PEND", "RUN", "gpu_normal", "eval_run"]),
        (_CONDOR, ["nokafor", "wen.sato"], ["Total for query: 3 jobs", "4821355.0-1"]),
        (_CONDOR_NOBATCH, ["rdeshpande"], ["0+01:02:03 R", "train.sh --bf16"]),
        (_QSTAT, ["lmoretti", "kmensah", "node-gpu-03"], ["Eqw", "0.50500", "train.sh"]),
        (_SSHARE, ["ingrid.me", "aholmb"], ["0.041667", "mlteam", "root"]),
        (_SREPORT, ["tnkosi7", "Thabo Nkosi", "amara.br", "Amara Brandste"], ["812031", "kraken", "Usage reported in CPU Hours"]),
        (_NVITOP, ["hkahale", "siobha", "dgx-a03"], ["78.23GiB", "/usr/lib/xorg/Xorg", " root "]),
        (_PBS, ["mbrennan", "login04.thor"], ["Exit_status = 271", "job_state = F"]),
        (_AIRFLOW, ["zhangwen42"], ["UP_FOR_RETRY", "AIRFLOW_CTX_DAG_OWNER=", "llm_finetune"]),
        (_PBS_TABLE, ["rdeshpan", "haddada"], ["500gb 24:00 R 01:02", "eval_run", "48214.pbs01"]),
        (_QACCT, ["thabo.kjeldsen"], ["exit_status  137", "group        mlgrp"]),
        (_SUDO, ["kwame58", "bsato"], ["NOPASSWD: /usr/bin/nvidia-smi", "is not in the sudoers file", "is not allowed to execute"]),
        (_SACCTMGR, ["zkahale", "tnkosi7"], ["mlteam", "None", "kraken"]),
        (_CONDOR_HOLD, ["wen.sato"], ["Total for query: 1 jobs", "gone over memory limit of 40960 megabytes"]),
        (_BHIST, ["tkowalc"], ["llama_sft 4       0       2881"]),
        (_QSTAT_F, ["lmoretti"], ["0.50500 train.sh", "BIP   0/4/8"]),
        (_LSOF, ["tnkosi7"], ["/dev/nvidia0", " root ", "195,0"]),
        (_PS_EO, ["kmensah"], ["05:01:12 python train.py --bf16"]),
        (_AIRFLOW_USERS, ["tnkosi7", "Thabo", "Nkosi"], ["| Admin", "| airflow  |"]),
        (_AIRFLOW_DAGS, ["zkahale"], ["llm_finetune", "| airflow |", "False", "/opt/airflow/dags/nightly_eval.py"]),
        (_ACCESS, ["noor.raman"], ['"POST /api/v1/dags/llm_finetune/dagRuns HTTP/1.1" 409 233', " - - [03/Nov/2026", "kube-probe/1.29"]),
    ],
)
def test_ops_tables_mask_people_keep_diagnosis(log: str, gone: list[str], kept: list[str]) -> None:
    """Each login, name and host goes; the table's diagnostic cells stay."""
    out = _mask_log(log)
    for value in gone:
        assert value not in out, (value, out)
    for value in kept:
        assert value in out, (value, out)


def test_pbs_job_owner_is_an_account_at_a_host() -> None:
    """`Job_Owner = login@host` is the login (the same placeholder as `euser`) at a host, not an e-mail."""
    out = _mask_log(_PBS)
    assert "Job_Owner = <USER-1>@<HOST-1>" in out
    assert "euser = <USER-1>" in out
    assert "<EMAIL-" not in out


def test_learned_logins_go_where_they_recur() -> None:
    """A login a table teaches is masked in the prose pasted after it."""
    out = _mask_log(_BJOBS + "zaydin: my eval_run is stuck in PEND since 08:15\n")
    assert "zaydin" not in out
    assert "eval_run is stuck in PEND" in out


@pytest.mark.parametrize(
    "log",
    [
        # A table that ends: prose after it is no row (its first word is no login).
        _CONDOR,
        # ps's STAT column is not bjobs' (its header is not bjobs'): the ps table reads on.
        "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
        "root           1  0.0  0.0 167744 13100 ?        Ss   Nov02   0:09 /sbin/init\n",
        # Airflow's default owner, a tool's account.
        "INFO - Exporting env vars: AIRFLOW_CTX_DAG_OWNER='airflow' AIRFLOW_CTX_DAG_ID='nightly_eval'\n",
    ],
)
def test_no_word_of_the_tool_is_taken_for_a_person(log: str) -> None:
    """Words a tool prints around its tables (Total, root, airflow) stay."""
    out = _mask_log(log)
    for word in ("Total for query", "/sbin/init", "root", "'airflow'"):
        if word in log:
            assert word in out, (word, out)


def test_pam_prefixes_are_no_key_and_value() -> None:
    """PAM's `(service:group)` prefix stays whole; the session's user goes."""
    out = _mask_log("Nov 03 08:05:41 login1 systemd[48415]: pam_unix(systemd-user:session): session opened for user tnkosi7(uid=41203) by tnkosi7(uid=0)\n")
    assert "pam_unix(systemd-user:session)" in out, out
    assert "tnkosi7" not in out, out


def test_condor_user_is_the_owner_at_its_domain() -> None:
    """HTCondor's `User = "login@domain"` is the same login as `Owner`, at a host: one placeholder."""
    out = _mask_log('Owner = "nokafor"\nUser = "nokafor@submit-2.chtc.wisc.edu"\nHoldReason = "Job has gone over memory limit of 40960 megabytes."\n')
    assert 'Owner = "<USER-1>"' in out, out
    assert 'User = "<USER-1>@<HOST-1>"' in out, out
    assert "gone over memory limit of 40960 megabytes" in out
