"""A held-out masking corpus: generated logs with planted values recorded, and a scorer.

    python tests/data/masking/heldout.py build DIR [--logs 30] [--seed 1616]
    python tests/data/masking/heldout.py score DIR [--python PY] [--pythonpath P]

`build` writes DIR/NNN.log and DIR/planted.json ({log: {"planted": [[value, kind]],
"decoys": [value]}}). Each log mixes several families (torchrun NCCL chatter behind `[rankN]:`,
`ip a`, ibstat, getent, git log, mail, a pasted Slack thread, kubectl, Slurm, DeepSpeed
hostfiles, /etc/hosts, AWS CLI output, uvicorn, CI runners, env dumps, torchrun's failure
summary) with fresh random names, hosts and keys. `score` runs `python -m bot mask` on every
log and reports recall (planted values gone) and must-survive (decoys kept), per kind.
Values are fake; the families follow what the real tools print.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import random
import re
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path

FIRST = ["Hannah", "Priya", "Tomás", "Jürgen", "Mei", "Olusegun", "Sofia", "Lars", "Aiko", "Mateo", "Chloé", "Dmitri", "Fatima", "Noah"]
LAST = ["Fischer", "Natarajan", "García", "Müller", "Zhang", "Adeyemi", "Rossi", "Nilsson", "Tanaka", "López", "Dubois", "Ivanov", "Haddad", "O'Brien"]
DOMAINS = ["acme-research.org", "neurallabs.io", "corp.example.com", "uni-heidelberg.de", "deepco.ai"]
HOST_SCHEMES = ["gpu-node-{:03d}", "a100-{:02d}", "dgx-h100-{:02d}", "trn1-{:02d}", "cn{:04d}", "hgx-b200-{:02d}", "gpu{:03d}", "worker-{}"]
ROLES = ["SageMakerExecutionRole", "ml-train-role", "EKSNodeRole", "DataScientist", "ci-deployer"]


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _b64(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(n))


def _alnum(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))


class Person:
    def __init__(self, rng: random.Random) -> None:
        self.first, self.last = rng.choice(FIRST), rng.choice(LAST)
        self.name = f"{self.first} {self.last}"
        ascii_last = self.last.lower().replace("ü", "u").replace("á", "a").replace("é", "e").replace("'", "")
        ascii_first = self.first.lower().replace("ü", "u").replace("á", "a").replace("é", "e")
        self.user = rng.choice([ascii_first[0] + ascii_last, f"{ascii_first}.{ascii_last}", ascii_first + str(rng.randrange(10, 99))])
        self.email = f"{ascii_first}.{ascii_last}@{rng.choice(DOMAINS)}"


class Log:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.planted: list[tuple[str, str]] = []
        self.decoys: list[str] = []
        self.person = Person(rng)
        scheme = rng.choice(HOST_SCHEMES)
        base = rng.randrange(1, 200)
        self.hosts = [scheme.format(base + i) for i in range(4)]
        self.scheme, self.base = scheme, base

    def plant(self, value: str, kind: str) -> str:
        self.planted.append((value, kind))
        return value

    def decoy(self, value: str) -> str:
        self.decoys.append(value)
        return value

    def mac(self) -> str:
        return self.plant(":".join(_hex(self.rng, 2) for _ in range(6)), "mac")

    def ipv4(self) -> str:
        return self.plant(f"10.{self.rng.randrange(256)}.{self.rng.randrange(256)}.{self.rng.randrange(1, 255)}", "ip")

    def ipv6(self) -> str:
        addr = ipaddress.IPv6Address(bytes([0x20, 0x01, 0x0D, 0xB8] + [self.rng.randrange(256) for _ in range(12)]))
        return self.plant(str(addr), "ipv6")


def f_nccl(log: Log) -> None:
    rng = log.rng
    for i in range(rng.randrange(150, 400)):
        r = rng.randrange(32)
        host = log.hosts[r // 8]
        pid = 30000 + r
        log.lines.append(rng.choice((
            f"[rank{r}]:{host}:{pid}:{pid} [{r % 8}] NCCL INFO Channel {i % 32:02d}/0 : {r}[{r % 8}] -> {(r + 1) % 32}[{(r + 1) % 8}] via P2P/IPC",
            f"[rank{r}]:{host}:{pid}:{pid + 9} [{r % 8}] NCCL INFO comm 0x{_hex(rng, 12)} rank {r} nranks 32 cudaDev {r % 8} busId {rng.choice(['1b000', '29000', '9d000'])} commId 0x{_hex(rng, 16)} - Init COMPLETE",
            f"[rank{r}]: step={i} loss={2 + rng.random():.4f} lr=1.9e-05 tokens_per_sec={rng.randrange(9000, 14000)}",
        )))  # fmt: skip
    for h in log.hosts:
        log.plant(h, "host")
    log.lines.append(f"[rank0]:{log.hosts[0]}:30000:30000 [0] NCCL INFO Bootstrap : Using ib0:{log.ipv4()}<0>")
    log.lines.append(f"[rank0]:{log.hosts[0]}:30000:30000 [0] NCCL INFO cudaDriverVersion 12040 nvidia-cudnn-cu12=={log.decoy('8.9.2.26')}")


def f_ip_a(log: Log) -> None:
    rng = log.rng
    guid = _hex(rng, 4) + ":" + _hex(rng, 2) + "ff:fe" + _hex(rng, 2) + ":" + _hex(rng, 4)
    ib = ":".join(["80", "00", "02", "08", "fe", "80"] + ["00"] * 6 + [_hex(rng, 2) for _ in range(8)])
    log.plant(ib, "mac")
    log.lines += [
        "$ ip a",
        "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000",
        "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00",
        "    inet 127.0.0.1/8 scope host lo",
        f"2: {rng.choice(['eth0', 'ens5', 'enp1s0f0'])}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9001 qdisc mq state UP group default qlen 1000",
        f"    link/ether {log.mac()} brd ff:ff:ff:ff:ff:ff",
        f"    inet {log.ipv4()}/20 brd {log.decoy('10.0.15.255')} scope global dynamic eth0",
        f"    inet6 {log.ipv6()}/64 scope global dynamic mngtmpaddr",
        f"    inet6 fe80::{log.plant(guid, 'ipv6')}/64 scope link",
        "3: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 2044 qdisc mq state UP group default qlen 256",
        f"    link/infiniband {ib} brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff",
    ]


def f_ibstat(log: Log) -> None:
    rng = log.rng
    g = [log.plant("0x" + _hex(rng, 16), "mac") for _ in range(3)]
    log.lines += [
        "$ ibstat", "CA 'mlx5_0'", "\tCA type: MT4123", "\tNumber of ports: 1", f"\tFirmware version: {log.decoy('20.31.1014')}",
        "\tHardware version: 0", f"\tNode GUID: {g[0]}", f"\tSystem image GUID: {g[1]}", "\tPort 1:", "\t\tState: Active",
        "\t\tPhysical state: LinkUp", "\t\tRate: 200", "\t\tBase lid: 17", "\t\tLMC: 0", "\t\tSM lid: 1",
        "\t\tCapability mask: 0x2651e848", f"\t\tPort GUID: {g[2]}", "\t\tLink layer: InfiniBand",
    ]  # fmt: skip
    guid = ":".join(_hex(rng, 4) for _ in range(4))
    log.lines += ["$ ibv_devinfo", "hca_id:\tmlx5_1", "\ttransport:\t\t\tInfiniBand (0)", f"\tnode_guid:\t\t\t{log.plant(guid, 'mac')}"]


def f_getent(log: Log) -> None:
    p = log.person
    log.lines += [
        f"$ getent passwd {p.user}",
        f"{log.plant(p.user, 'user')}:x:{log.rng.randrange(1000, 60000)}:1000:{log.plant(p.name, 'name')},,,:/home/{p.user}:/bin/bash",
    ]


def f_git(log: Log) -> None:
    rng, p = log.rng, log.person
    other = Person(rng)
    sha = log.decoy(_hex(rng, 40))
    log.lines += [
        f"commit {sha}",
        f"Author: {log.plant(p.name, 'name')} <{log.plant(p.email, 'email')}>",
        "Date:   Tue Nov 5 14:02:11 2024 +0100",
        "",
        "    Fix gradient accumulation with FSDP",
        "",
        f"    Signed-off-by: {log.plant(p.name, 'name')} <{p.email}>",
        f"    Co-authored-by: {log.plant(other.name, 'name')} <{log.plant(other.email, 'email')}>",
    ]


def f_mail(log: Log) -> None:
    p = log.person
    host = log.plant(log.hosts[1], "host")
    log.lines += [
        f"From: {log.plant(p.name, 'name')} <{p.email}>",
        "To: ml-infra@acme-research.org",
        f"Subject: Re: job 8812{log.rng.randrange(10, 99)} died on {host} again",
        "",
        f"Hi all, {host} threw an XID 79 again.",
    ]


def f_slack(log: Log) -> None:
    p, other = log.person, Person(log.rng)
    log.lines += [
        f"{log.plant(other.name, 'name')}  10:{log.rng.randrange(10, 59)} AM",
        f"@{log.plant(p.name, 'name')} your run OOMed on rank 3, can you look?",
        f"{p.name}  11:0{log.rng.randrange(10)} AM",
        "looking, thanks",
    ]


def f_kubectl(log: Log) -> None:
    rng, p = log.rng, log.person
    ns = p.user.replace(".", "-")
    node = log.plant(f"aks-gpupool-{rng.randrange(10**7, 10**8)}-vmss{rng.randrange(10**5):06d}", "host")
    node2 = log.plant(f"gke-ml-cluster-a100-pool-{_hex(rng, 8)}-{_alnum(rng, 4).lower()}", "host")
    log.lines += [
        f"$ kubectl get pods -n {ns} -o wide",
        "NAME                 READY   STATUS    RESTARTS      AGE   IP            NODE                                    NOMINATED NODE   READINESS GATES",
        f"train-{ns}-master-0   1/1     Running   0             12m   {log.ipv4()}   {node}   <none>           <none>",
        f"train-{ns}-worker-0   0/1     Error     2 (3m ago)    12m   {log.ipv4()}   {node2}   <none>           <none>",
        f"  Normal  Scheduled  12m  default-scheduler  Successfully assigned {ns}/train-{ns}-worker-0 to {node2}",
        "  WANDB_API_KEY:  " + log.decoy("<set to the key 'api-key' in secret 'wandb'>") + "  Optional: false",
        f"Labels: {log.decoy('training.kubeflow.org/replica-index=0')}",
    ]
    if "." in p.user:
        log.plant(ns, "user")
        log.lines.append(f"wandb: Currently logged in as: {log.plant(p.user, 'user')}")


def f_slurm(log: Log) -> None:
    rng = log.rng
    pre = log.scheme.split("{")[0]
    width = 3 if "03d" in log.scheme else 2 if "02d" in log.scheme else 4 if "04d" in log.scheme else 1
    lst = f"{pre}[{log.base:0{width}d}-{log.base + 3:0{width}d}]"
    log.plant(lst, "host")
    log.lines += [
        f"$ scontrol show job 88{rng.randrange(1000, 9999)}",
        f"   JobId=88{rng.randrange(1000, 9999)} JobName=pretrain",
        f"   NodeList={lst}",
        f"   BatchHost={log.plant(log.hosts[0], 'host')}",
        f"srun: error: Nodes {lst} are still not ready",
        f"salloc: Nodes {lst} are ready for job",
    ]


def f_hostfile(log: Log) -> None:
    log.lines.append("$ cat /job/hostfile")
    for h in log.hosts:
        log.lines.append(f"{log.plant(h, 'host')} slots=8")


def f_etc_hosts(log: Log) -> None:
    log.lines += ["$ cat /etc/hosts", "127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback"]
    for h in log.hosts[:2]:
        log.lines.append(f"{log.ipv4()}\t{log.plant(h + '.cluster.internal', 'host')}\t{log.plant(h, 'host')}")


def f_aws(log: Log) -> None:
    rng = log.rng
    acct = log.plant(str(rng.randrange(10**11, 10**12)), "account")
    role = log.decoy(rng.choice(ROLES))
    secret = log.plant(_b64(rng, 40), "aws-secret-key")
    secret2 = log.plant(_b64(rng, 40), "aws-secret-key")
    log.lines += [
        "$ aws sts get-caller-identity",
        "{",
        f'    "UserId": "AROA{_alnum(rng, 17).upper()}:botocore-session-1700000000",',
        f'    "Account": "{acct}",',
        f'    "Arn": "arn:aws:sts::{acct}:assumed-role/{role}/botocore-session-1700000000"',
        "}",
        f"An error occurred (AccessDenied) when calling the PutObject operation: User: arn:aws:sts::{acct}:assumed-role/{role}/i-0{_hex(rng, 16)} is not authorized",
        "$ aws configure get aws_secret_access_key",
        secret,
        f"$ aws s3 cp ckpt.pt s3://ml-ckpt/ --aws-access-key-id {log.plant('AKIA' + _alnum(rng, 16).upper(), 'aws-access-key')} --aws-secret-access-key {secret2}",
    ]
    if rng.random() < 0.5:
        s3 = log.plant(_b64(rng, 40), "aws-secret-key")
        key_id = log.plant("ASIA" + _alnum(rng, 16).upper(), "aws-access-key")
        log.lines += ['  "Credentials": {', f'    "AccessKeyId": "{key_id}",', '    "SecretAccessKey":', f'        "{s3}",']


def f_uvicorn(log: Log) -> None:
    log.lines += ["INFO:     Uvicorn running on http://[::]:8000 (Press CTRL+C to quit)"]
    for _ in range(3):
        log.lines.append(f'INFO:     {log.ipv6()}:{log.rng.randrange(30000, 65000)} - "POST /v1/generate HTTP/1.1" 500 Internal Server Error')
    log.lines.append(f"ping6: connect to fe80::{log.plant(_hex(log.rng, 4), 'ipv6')}%ib0 failed")


def f_ci(log: Log) -> None:
    rng = log.rng
    runner = log.plant(f"gpu-runner-{rng.randrange(1, 40):02d}", "host")
    log.lines += [
        "Current runner version: '2.311.0'", f"Runner name: '{runner}'", "Runner group name: 'gpu'",
        f"Machine name: '{log.plant('fv-az' + str(rng.randrange(100, 999)) + '-' + str(rng.randrange(100, 999)), 'host')}'",
        f"{log.plant(log.person.user, 'user')}@{log.plant(log.hosts[2], 'host')} ~/llm % make test",
    ]  # fmt: skip


def f_env(log: Log) -> None:
    rng = log.rng
    log.lines += [
        f"HF_TOKEN={log.plant('hf_' + _alnum(rng, 34), 'hf-token')}",
        f"WANDB_API_KEY={log.plant(_hex(rng, 40), 'wandb-key')}",
        f"MASTER_ADDR={log.plant(log.hosts[0], 'host')}",
        f"HOME=/home/{log.plant(log.person.user, 'user')}",
        f"NCCL_IB_GID_INDEX={log.decoy('3')}",
        f"GPU 0: NVIDIA H100 80GB HBM3 (UUID: {log.decoy('GPU-' + _hex(rng, 8) + '-' + _hex(rng, 4) + '-' + _hex(rng, 4) + '-' + _hex(rng, 4) + '-' + _hex(rng, 12))})",
        f"image: nvcr.io/nvidia/pytorch@{log.decoy('sha256:' + _hex(rng, 64))}",
        f'{{"pad_token_id": 0, "eos_token": "</s>"}} {log.decoy("pad_token_id")}',
    ]


def f_torchrun_summary(log: Log) -> None:
    host = log.plant(f"{log.hosts[3]}.cluster.local", "host")
    log.lines += [
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
        "============================================================",
        "train.py FAILED",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-11-05_14:03:22",
        f"  host      : {host}",
        "  rank      : 3 (local_rank: 3)",
        "  exitcode  : -9 (pid: 4242)",
    ]


def f_syslog(log: Log) -> None:
    rng = log.rng
    h = log.plant(log.hosts[rng.randrange(4)], "host")
    log.lines += [
        f"May  {rng.randrange(1, 9)} 10:42:0{rng.randrange(10)} {h} kernel: NVRM: Xid (PCI:{log.decoy('0000:1b:00')}): 79, pid={rng.randrange(1000, 9999)}, name=python, GPU has fallen off the bus.",
        f"2024-05-06T10:42:01.{rng.randrange(10**5, 10**6)}+02:00 {h} systemd[1]: slurmd.service: Main process exited, code=killed, status=9/KILL",
        f"Jun 10 10:00:00 {h} sudo: {log.plant(log.person.user, 'user')} : TTY=pts/0 ; PWD={log.decoy('/tmp')} ; USER=root ; COMMAND=/usr/bin/nvidia-smi -r",
    ]


def f_deepspeed(log: Log) -> None:
    rng = log.rng
    hs = [log.plant(h, "host") for h in log.hosts[:2]]
    log.lines += [
        f"[2024-05-01 10:00:00,{rng.randrange(100, 999)}] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w {hs[0]},{hs[1]} export NCCL_DEBUG=INFO; cd /work/llm;",
        f"[2024-05-01 10:00:00,123] [INFO] [multinode_runner.py:80:get_cmd] Using IP address of {log.ipv4()} for node {hs[0]}",
        f"{hs[1]}: [2024-05-01 10:00:03,456] [INFO] [launch.py:146:main] WORLD INFO DICT: {{'{hs[0]}': [0, 1, 2, 3], '{hs[1]}': [0, 1, 2, 3]}}",
        f"{hs[0]}: [2024-05-01 10:00:09,001] [INFO] [engine.py:1200:step] step=1200 loss=2.31",
    ]


def f_mpi(log: Log) -> None:
    hs = [log.plant(h, "host") for h in log.hosts[2:4]]
    log.lines += [
        f"$ mpirun -np 16 -H {hs[0]}:8,{hs[1]}:8 -x NCCL_DEBUG=INFO python train.py",
        f"mpirun noticed that process rank 11 with PID {log.rng.randrange(1000, 9999)} on node {hs[1]} exited on signal 9 (Killed).",
        f"ssh: connect to host {hs[0]} port 22: Connection refused",
    ]


def f_squeue(log: Log) -> None:
    rng, u = log.rng, log.plant(log.person.user, "user")
    pre = log.scheme.split("{")[0]
    node = log.plant(log.hosts[0], "host")
    log.lines += [
        "$ squeue -u " + u,
        "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)",
        f"            88{rng.randrange(1000, 9999)}       gpu pretrain {u:>8}  R    1:02:03      1 {node}",
        f"            88{rng.randrange(1000, 9999)}       gpu     eval {u:>8} PD       0:00      2 {log.decoy('(Resources)')}",
        "$ id",
        f"uid={rng.randrange(1000, 60000)}({u}) gid=100(users) groups=100(users)",
        f"-rw-r--r-- 1 {u} users 1234 May  6 10:42 {log.decoy('slurm-881234.out')}",
        f"   UserId={u}({rng.randrange(1000, 60000)}) GroupId=users(100) MCS_label=N/A",
    ]
    if pre:
        log.lines.append(f"Nodes {log.plant(pre + '[' + str(log.base) + ',' + str(log.base + 2) + ']', 'host')} are ready for job")


FAMILIES = [f_syslog, f_deepspeed, f_mpi, f_squeue, f_ip_a, f_ibstat, f_getent, f_git, f_mail, f_slack, f_kubectl, f_slurm, f_hostfile, f_etc_hosts, f_aws, f_uvicorn, f_ci, f_env, f_torchrun_summary]


def build(out: Path, logs: int, seed: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    index = {}
    for n in range(logs):
        rng = random.Random(seed * 1000 + n)
        log = Log(rng)
        f_nccl(log)
        for family in rng.sample(FAMILIES, rng.randrange(4, 9)):
            family(log)
        name = f"{n:03d}.log"
        (out / name).write_text("\n".join(log.lines) + "\n", encoding="utf-8")
        index[name] = {"planted": sorted(set(log.planted)), "decoys": sorted(set(log.decoys))}
    (out / "planted.json").write_text(json.dumps(index, indent=1, ensure_ascii=False), encoding="utf-8")


def _present(value: str, text: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w])", text) is not None


def score(out: Path, python: str, pythonpath: str | None) -> None:
    index = json.loads((out / "planted.json").read_text(encoding="utf-8"))
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    hit, total, kept, decoys = Counter(), Counter(), 0, 0
    misses: list[str] = []
    for name, want in sorted(index.items()):
        run = subprocess.run([python, "-m", "bot", "mask", str(out / name)], capture_output=True, text=True, env=env, check=True)
        for value, kind in want["planted"]:
            total[kind] += 1
            if _present(value, run.stdout):
                misses.append(f"{name} {kind} {value!r}")
            else:
                hit[kind] += 1
        for value in want["decoys"]:
            decoys += 1
            kept += value in run.stdout
    n, h = sum(total.values()), sum(hit.values())
    print(f"recall {h}/{n} = {100 * h / n:.2f}%   must-survive {kept}/{decoys} = {100 * kept / decoys:.2f}%")
    for kind in sorted(total):
        print(f"  {kind:16} {hit[kind]:4}/{total[kind]:<4} {100 * hit[kind] / total[kind]:6.1f}%")
    for miss in misses[:40]:
        print("  miss", miss)


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("dir", type=Path)
    b.add_argument("--logs", type=int, default=30)
    b.add_argument("--seed", type=int, default=1616)
    s = sub.add_parser("score")
    s.add_argument("dir", type=Path)
    s.add_argument("--python", default=sys.executable)
    s.add_argument("--pythonpath")
    args = parser.parse_args()
    if args.cmd == "build":
        build(args.dir, args.logs, args.seed)
    else:
        score(args.dir, args.python, args.pythonpath)
    return 0


if __name__ == "__main__":
    sys.exit(main())
