"""Masking round 6 (issue #16): account and machine names where cluster tools print them.

Each row is a line as the tool prints it; the value must be gone and its placeholder typed.
The decoys beside them are what those same tools print that must stay byte for byte.
"""

from __future__ import annotations

import re

import pytest

from bot.masking import mask

PLACEHOLDER = re.compile(r"<([A-Z0-9]+)-\d+>")

MASKED = [
    # Lustre's top directories are its users'; `/data/` only with a person's shape or a home's
    # contents under it.
    ("#SBATCH --output=/lustre/ivanovaa/logs/%x-%j.out", "ivanovaa", "USER"),
    ("9.8T\t/lustre/umar_walsh", "umar_walsh", "USER"),
    ('  File "/data/qkaur/miniconda3/envs/sft/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1518', "qkaur", "USER"),
    ("      HF_HOME:       /data/ilsewal/hf-cache", "ilsewal", "USER"),
    ("OSError: [Errno 122] Disk quota exceeded: '/data/hannah.fischer/ckpt/step_900'", "hannah.fischer", "USER"),
    # ... and the same under other storage roots; Meta's /checkpoint/<user>, /localscratch,
    # a second home file system, Lustre under /mnt.
    ("torch.save -> /work/hannah.fischer/ckpt/step_900.pt", "hannah.fischer", "USER"),
    ("source /weka/hfischer/miniconda3/bin/activate", "hfischer", "USER"),
    ("Saving to /checkpoint/hfischer/llama/step_100", "hfischer", "USER"),
    ("cd /localscratch/hfischer/job && ls", "hfischer", "USER"),
    ('File "/home2/hfischer/llm/train.py", line 3', "hfischer", "USER"),
    ("ls /mnt/lustre/hfischer/runs", "hfischer", "USER"),
    # A home or scratch tree inside a storage root is read as before (`/lustre/scratch/<user>`).
    ('  File "/lustre/scratch/hfischer/x.py", line 3', "hfischer", "USER"),
    ("/data/home/hfischer/.cache/huggingface", "hfischer", "USER"),
    # HPC centres' project trees (OLCF, PSC, ALCF) and an Azure ML compute instance's mount.
    ('  File "/gpfs/alpine2/proj-shared/csc123/pdas/llm/train.py", line 3', "pdas", "USER"),
    ('  File "/ocean/projects/cis230045p/kthomas/train.py", line 3', "kthomas", "USER"),
    ('  File "/lus/eagle/projects/LLM/jmorris/train.py", line 3', "jmorris", "USER"),
    ('  File "/mnt/batch/tasks/shared/LS_root/mounts/clusters/hfischer-gpu1/code/Users/hannah.fischer/train.py", line 7', "hfischer-gpu1", "HOST"),
    # The same directory under /lustre/ and /data/ is the same user's.
    ("$ du -sh /lustre/ortizj /data/ortizj\n9.8T\t/lustre/ortizj\n2.1T\t/data/ortizj", "ortizj", "USER"),
    # `lfs quota -u` and its header; Slurm's stamp on a node's reason.
    ("$ lfs quota -u achebew /lustre", "achebew", "USER"),
    ("Disk quotas for usr achebew (uid 31337):", "achebew", "USER"),
    ("   Reason=Kill task failed [emekaiva@2026-12-04T10:11:12]", "emekaiva", "USER"),
    ("gpu-07      1       gpu*     drained  128   2:32:2 1031000        0      1   a100     Not responding [nilssonb@2026-12-04T10:11:12]", "nilssonb", "USER"),
    # The az CLI's tenant and subscription flags.
    ("$ az login --service-principal -u http://trainer-sp -p @cert.pem --tenant 0403cc6c-6dc2-4317-b976-040f93eb194c", "0403cc6c-6dc2-4317-b976-040f93eb194c", "ACCOUNT"),
    ("$ az account set --subscription 1b73c090-27cb-46e1-b402-536de5d11355", "1b73c090-27cb-46e1-b402-536de5d11355", "ACCOUNT"),
    ('  "tenant": "6575e17b-eee9-4c36-995d-ad9ed777236f"', "6575e17b-eee9-4c36-995d-ad9ed777236f", "ACCOUNT"),
    # The host a URL's userinfo logs in to, whatever its suffix.
    ("DATABASE_URL=postgresql://trainer:Quasar2024@db01.initech.de:5432/metrics", "db01.initech.de", "HOST"),
    ("Looking in indexes: https://pypi.org/simple, https://hf:****@pypi.hooli.net/simple", "pypi.hooli.net", "HOST"),
    # ... and a URL's host of three labels or more (a tracking server on a .de domain).
    ("      - name: MLFLOW_TRACKING_URI\n        value: https://mlflow.initech.de", "mlflow.initech.de", "HOST"),
    # ssh -v names the server the user typed, and ~/.ssh/config its alias.
    ("debug1: Connecting to login01.initech.de [10.4.0.12] port 22.", "login01.initech.de", "HOST"),
    ("Host gpu235\n    HostName 10.4.0.12\n    User hfischer\n    IdentityFile ~/.ssh/id_ed25519", "gpu235", "HOST"),
    # Node names by shape in prose: a numbered pod or rack after the accelerator, `gpu` with
    # three digits or a leading zero.
    ("Subject: ECC uncorrectable errors on gpu121", "gpu121", "HOST"),
    ("@here training on a100-pod12 is stuck at step 18000", "a100-pod12", "HOST"),
    ("drained gpu07 after Xid 79", "gpu07", "HOST"),
    ("@here training on gpu49 is stuck at step 18000", "gpu49", "HOST"),
    # Slack's header with pronouns and a status emoji; an ssh key's comment in `ssh-add -l`.
    ("Talia Petrov (she/her)  :palm_tree: 10:41 AM\nthe run on gpu-07 died", "Talia Petrov", "NAME"),
    # Microsoft Teams copies a message with its sender after the clock.
    ("[10:42 AM] Fischer, Hannah\nthe run died again", "Fischer, Hannah", "NAME"),
    ("[10:43 AM] Lukas Weber\nlooking", "Lukas Weber", "NAME"),
    ("256 SHA256:kD8Lq3v2nR7xW1mZ5pT9yB4cF6hJ0sN2aE8gU3iO7wQ pavel@gpu37 (ED25519)", "gpu37", "HOST"),
    ("256 SHA256:kD8Lq3v2nR7xW1mZ5pT9yB4cF6hJ0sN2aE8gU3iO7wQ pavel@gpu37 (ED25519)", "pavel", "USER"),
    # loginctl leaves SEAT blank for an ssh session.
    ("$ loginctl list-sessions\nSESSION   UID USER             SEAT TTY\n     42 31337 farah.dimitrov        pts/4\n", "farah.dimitrov", "USER"),
    # kubeconfig's user for a cluster, and the context named after it.
    ("contexts:\n- context:\n    cluster: gpu-prod\n    user: pavel.ivanova@gpu-prod\n  name: pavel.ivanova@gpu-prod", "pavel.ivanova", "USER"),
    # scontrol show node; a pod spec's nodeName.
    ("$ scontrol show node gpu94\nNodeName=gpu94 Arch=x86_64 CoresPerSocket=32\n   NodeAddr=10.1.2.3 NodeHostName=gpu94 Version=23.02.7", "gpu94", "HOST"),
    ("spec:\n  nodeName: a100-044\n  schedulerName: default-scheduler", "a100-044", "HOST"),
    # journald's session lines, JupyterHub's spawn time, `su -`, bundled sudo flags.
    ("Dec 05 10:42:01 gpu-node-07 systemd[1]: Started session-42.scope - Session 42 of User qmorales.", "qmorales", "USER"),
    ("Dec 05 10:42:01 gpu-node-07 systemd-logind[812]: New session 42 of user rtakeda.", "rtakeda", "USER"),
    ("[I 2026-12-05 10:42:01.123 JupyterHub base:1102] User xlopez took 3.204 seconds to start", "xlopez", "USER"),
    ("$ su - bcosta\nPassword:", "bcosta", "USER"),
    ("+ sudo -iu cdiaz python train.py", "cdiaz", "USER"),
    # `getent group` members; hostnamectl and `uname -n`.
    ("$ getent group ml-research\nml-research:x:5000:ujensen,vpatil,wkumar", "vpatil", "USER"),
    ("$ hostnamectl\n Static hostname: trainbox-east\n       Icon name: computer-server", "trainbox-east", "HOST"),
    ("$ uname -n\ndlbox07", "dlbox07", "HOST"),
    # gh pr view's header; the branch named after the author is masked with it.
    ("Open • tkovacs wants to merge 3 commits into main from tkovacs/fix-nccl-timeout", "tkovacs", "USER"),
    ("Merged • lvogt merged 1 commit into main from fix-oom", "lvogt", "USER"),
    # A Python prompt asking for the login; W&B's viewer repr.
    (">>> getpass.getuser()\n'tnguyen'", "tnguyen", "USER"),
    ("In [3]: os.getlogin()\nOut[3]: 'sfarouk'", "sfarouk", "USER"),
    (">>> wandb.Api().viewer\n<User rmorales>", "rmorales", "USER"),
    ("Hannah Fischer | ML Infra | https://www.linkedin.com/in/hannah-fischer-4257/", "hannah-fischer-4257", "USER"),
    # Jenkins' console log names who started a build; LSF's and Jenkins' user variables; a mail spool.
    ("Started by user Hannah Hill\nRunning as SYSTEM", "Hannah Hill", "NAME"),
    ("Started by GitHub push by iirwin", "iirwin", "USER"),
    ("LSB_JOBUSER=ccruz", "ccruz", "USER"),
    ("BUILD_USER_ID=ggreen", "ggreen", "USER"),
    ("MAIL=/var/spool/mail/vvance", "vvance", "USER"),
    # libpq names the server it could not reach (before and since PostgreSQL 14); c10d the
    # host whose IPv6 addresses it could not get.
    ('psycopg2.OperationalError: could not connect to server: Connection refused Is the server running on host "pgdb-prod-01" (10.4.2.9) and accepting', "pgdb-prod-01", "HOST"),
    ('psql: error: connection to server at "pgdb-prod-01" (10.4.2.9), port 5432 failed: Connection refused', "pgdb-prod-01", "HOST"),
    # ibhosts: each HCA's GUID and the node it sits in.
    ('$ ibhosts\nCa\t: 0x0c42a103009b6d2c ports 1 "trainbox-07 mlx5_0"', "0c42a103009b6d2c", "MAC"),
    ('$ ibhosts\nCa\t: 0x0c42a103009b6d2c ports 1 "trainbox-07 mlx5_0"', "trainbox-07", "HOST"),
    ("[W socket.cpp:663] [c10d] The IPv6 network addresses of (hpc-login-2, 29500) cannot be retrieved (gai error: -2 - Name or service not known).", "hpc-login-2", "HOST"),
    # Network tools name the host they could not reach; kubectl describe node's Addresses
    # block (an indented `Hostname:`); kubectl top nodes and LSF's bhosts tables.
    ("traceroute to trainbox-east (10.1.2.3), 30 hops max, 60 byte packets", "trainbox-east", "HOST"),
    ("Host dlbox-09 not found: 3(NXDOMAIN)", "dlbox-09", "HOST"),
    ("curl: (7) Failed to connect to mlbox-3 port 8080 after 0 ms: Connection refused", "mlbox-3", "HOST"),
    ("Error: getaddrinfo ENOTFOUND mlbox-4", "mlbox-4", "HOST"),
    ("Connection to trainbox-north 22 port [tcp/ssh] succeeded!", "trainbox-north", "HOST"),
    ("Warning: Permanently added 'dlbox-16,10.1.2.16' (ED25519) to the list of known hosts.", "dlbox-16", "HOST"),
    ("Addresses:\n  InternalIP:  10.1.2.12\n  Hostname:    dlbox-12", "dlbox-12", "HOST"),
    ("$ kubectl top nodes\nNAME          CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\ndlbox-11      7512m        23%    412Gi           41%", "dlbox-11", "HOST"),
    ("$ bhosts\nHOST_NAME          STATUS       JL/U    MAX  NJOBS    RUN  SSUSP  USUSP    RSV\ndlbox-15           ok              -     64      8      8      0      0      0", "dlbox-15", "HOST"),
]

KEPT = [
    "/data/imagenet/train/n01440764 /data/c4/en/c4-train.00000-of-01024.json.gz /data/hf-cache",
    "/lustre/fsw/llm/ckpt /lustre/lfs01/proj /mnt/data/shards/x /gpfs/data/shards /gpfs/data/hannah.fischer",
    "/data/train.bin /data/tokenizer.json /data/wiki.en/part-0 /work/llm/scripts/train.sh /projects/vision/code/x.py",
    "/workspace/llm/scripts/run.sh /storage/datasets/laion /raid/imagenet.tar /checkpoint/fsw/x /localscratch/slurm.4471203",
    "lfs quota -g ml-research /lustre",
    "   Reason=Not responding [slurm@2026-12-04T10:11:12]",
    "cuda:0 gpu0 gpu12 gpu15 a100-80gb gpu-util99 h100-sxm5 gpu-burn",
    "https://user:****@github.com/acme/llm.git and postgresql://u:p@localhost:5432/db",
    "Host *\n    IdentityFile ~/.ssh/id_ed25519",
    "pip install -i https://pypi.tuna.tsinghua.edu.cn/simple torch && wget https://dl.fbaipublicfiles.com/segment_anything/sam_vit_h.pth",
    "Downloading https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/cuda-keyring_1.1-1_all.deb",
    "  tenant: common",
    "node_name=linear_1 graph_node_name=aten::add",
    "2 sessions listed.",
    "see https://www.linkedin.com/company/acme-ml/ and https://www.linkedin.com/in/",
    "[10:42 AM] NCCL Error\n[10:42 AM] Job Failed\n[10:42 AM] Training Resumed\n[9:05 PM] Slurm Workload Manager",
    "Job Failed  10:41 AM\nthe run died again\nTraining Resumed  10:52 AM\nNode Alert  11:02 PM",  # Slack headers of bots' events
    "curl: (7) Failed to connect to localhost port 8080 after 0 ms: Connection refused",
    "Connection to localhost 22 port [tcp/ssh] succeeded!\nHostname: unknown",
    "Started by timer\nStarted by user anonymous\nStarted by an SCM change",
    "sudo:x:27:ubuntu\ndocker:x:999:\nvideo:x:44:",
    "Removed session 42.\n$ sudo -i",
    'psql: error: connection to server at "localhost" (127.0.0.1), port 5432 failed',
    'could not connect to server: No such file or directory\n\tIs the server running locally and accepting connections on Unix domain socket "/var/run/postgresql/.s.PGSQL.5432"?',
    "The IPv6 network addresses of (localhost, 29500) cannot be retrieved",
]


@pytest.mark.parametrize(("line", "value", "label"), MASKED, ids=[f"{m[2]}:{m[0][:30]}" for m in MASKED])
def test_cluster_names_are_masked(line: str, value: str, label: str) -> None:
    masked = mask(line).text
    assert not re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", masked), masked
    assert label in PLACEHOLDER.findall(masked), masked


@pytest.mark.parametrize("text", KEPT)
def test_cluster_decoys_are_kept(text: str) -> None:
    # Userinfo is masked as ever; what is judged here is the rest of the line.
    masked = mask(text).text
    kept = re.sub(r"<SECRET:[\w-]+>|<USER-\d+>", "", masked)
    assert not PLACEHOLDER.search(kept) and "<HOST" not in masked, masked


def test_a_persons_name_teaches_the_account_names_a_cluster_gives_them() -> None:
    """git's author line names Hannah Fischer; kubectl then shows her only as a namespace and a
    pod named for her accounts (`hannah-fischer`, `hfischer`), with no path or banner to teach them."""
    log = (
        "commit 9f3c2e1b7d44a81b9d0c6e5f4a3b2c1d0e9f8a7b\n"
        "Author: Hannah Fischer <hf@initech.de>\n"
        "$ kubectl get pods -n user-hannah-fischer\n"
        "NAME                      READY   STATUS             RESTARTS   AGE\n"
        "hfischer-sft-worker-0     0/1     CrashLoopBackOff   5          12m\n"
    )
    masked = mask(log).text
    for account in ("hannah-fischer", "hfischer"):
        assert account not in masked, masked
    assert "user-<USER-" in masked and "-sft-worker-0" in masked and "CrashLoopBackOff" in masked


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        # A JSON pretty-printer split the pair and the object closes on the value's line.
        ('{"password":\n   "Velvet-Horizon-42"}', "Velvet-Horizon-42"),
        ('  "db": {"password":\n      "Velvet-Horizon-42"},', "Velvet-Horizon-42"),
        # A shell line continued after the assignment.
        ("$ export AWS_SECRET_ACCESS_KEY=\\\n  wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        # sudo -S reads the password echoed into it.
        ("echo 'Juniper2024!' | sudo -S apt-get install -y nvidia-driver-535", "Juniper2024!"),
        ('echo "Juniper2024!" | sudo -k -S -u hfischer whoami', "Juniper2024!"),
    ],
)
def test_split_and_piped_passwords_are_masked(text: str, secret: str) -> None:
    masked = mask(text).text
    assert secret not in masked and "<SECRET:" in masked, masked


def test_piped_variables_and_continued_commands_are_kept() -> None:
    text = "echo $PASS | sudo -S ls\npython train.py \\\n  --lr 3e-4\n"
    assert mask(text).text == text


def test_kubespawner_pod_of_a_learned_user_is_masked() -> None:
    """JupyterHub on Kubernetes names a user's pod with the name escaped (`.` as `-2e`)."""
    log = (
        "[I 2026-12-05 10:42:01.123 JupyterHub log:191] 302 GET /hub/spawn/hannah.fischer -> /hub/spawn-pending\n"
        "$ kubectl get pods -n jhub\n"
        "NAME                        READY   STATUS              RESTARTS   AGE\n"
        "jupyter-hannah-2efischer    0/1     ContainerCreating   0          2m\n"
    )
    masked = mask("/home/hannah.fischer/.jupyter\n" + log).text
    assert "hannah" not in masked and "jupyter-<USER-" in masked and "ContainerCreating" in masked, masked


def test_a_first_last_scratch_directory_teaches_the_namespace() -> None:
    """`/scratch/hannah.fischer` names her; her namespace spells it `hannah-fischer`. A project
    directory (`/lustre/llm_pretrain`) teaches nothing: the Slurm account of that name stays."""
    log = (
        'OSError: [Errno 122] Disk quota exceeded: "/scratch/hannah.fischer/ckpt/step_900.pt"\n'
        "$ kubectl get pods -n user-hannah-fischer\n"
        "ls /lustre/llm_pretrain/runs\n"
        "#SBATCH --account=llm-pretrain\n"
    )
    masked = mask(log).text
    assert "hannah" not in masked, masked
    assert "--account=llm-pretrain" in masked, masked


def test_node_shapes_are_tried_where_their_heads_are_as_a_search_would_find_them() -> None:
    """find_node_names tries each shape only where one of its heads starts (hosts._matches_from):
    the matches are a search's, overlapping heads included (`l40sxm-12`, `nodenode-12`)."""
    import random
    from itertools import chain

    from bot.literals import one_byte
    from bot.masking import hosts

    parts = ["dgx-h100-026", "gpu-node-17", "node017", "a100-044", "trn1-191", "compute-0-12", "ec2-10-0-1-23",
             "ip-10-0-1-23", "l40sxm-12", "gpugpu-018", "nodenode-12", "gpu121", "x", "-", "é", " ", ":4 [0] NCCL",
             "aks-nodepool1-12345678-vmss000001", "gke-prod-pool-1a2b3c4d-xyz1", "h100-028"]  # fmt: skip
    rng = random.Random(16)
    for _ in range(2000):
        text = "".join(rng.choice(parts) for _ in range(rng.randrange(12)))
        starts = dict(zip(hosts._NODE_HEADS, hosts._NODE_HEAD_WORDS.starts(one_byte(text)), strict=True))
        for _, heads, rx in hosts._NODE_SHAPES:
            tried = hosts._matches_from(rx, text, sorted(chain.from_iterable(starts[h] for h in heads)))
            assert [m.span() for m in tried] == [m.span() for m in rx.finditer(text)], text
