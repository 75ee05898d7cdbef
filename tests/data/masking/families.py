"""An independent generator of realistic logs with planted secrets and personal data.

Written apart from the masker's own tests to hunt leaks on shapes nobody tuned it to: one
function per log family (HF Trainer, DeepSpeed, Slurm sbatch/scontrol/sacct, kubectl
describe, docker, W&B/MLflow/Comet, env dumps, tracebacks, Jupyter, AWS/GCP/Azure CLI, ssh,
pip/conda, urllib3 debug, JSON logs, config files, GCP service accounts, Ray/Lightning,
`ip a`, pasted chat, hardware inventory, CI environments) plus `placements`, every secret kind in every syntax. A family returns
its lines; the persona `P` records what was planted (kind, value) and what must survive.
tests/masking/test_families.py asserts both per family. Values are fake; the shapes follow
what the tools print.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
from collections.abc import Callable

FIRST = ["hannah", "jonas", "priya", "mateo", "aiko", "olumide", "sven", "lucia", "wei", "fatima", "dmitri", "chloe", "ravi", "ingrid", "kwame", "yuki", "noor", "bastian", "elena", "tomasz"]
LAST = ["fischer", "weber", "raman", "alvarez", "tanaka", "adeyemi", "lindqvist", "moretti", "zhang", "haddad", "volkov", "dubois", "iyer", "nilsen", "mensah", "sato", "karimi", "krueger", "petrova", "nowak"]
ORGS = ["acme-ai", "northwind-labs", "contoso-research", "globex", "initech-ml", "umbrella-bio"]
TLDS = ["com", "io", "ai", "net"]
AL = string.ascii_letters + string.digits


def rs(rng: random.Random, n: int, chars: str = AL) -> str:
    return "".join(rng.choice(chars) for _ in range(n))


class P:
    """One log's persona: the values planted and the texts that must survive."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        f, last = rng.choice(FIRST), rng.choice(LAST)
        self.first, self.last = f, last
        self.fullname = f"{f.capitalize()} {last.capitalize()}"
        style = rng.randrange(3)
        self.user = [f[0] + last, f"{f}.{last}", f + last[:2]][style]
        self.org = rng.choice(ORGS)
        self.domain = f"{self.org}.{rng.choice(TLDS)}"
        self.email = f"{f}.{last}@{self.domain}"
        self.planted: list[tuple[str, str]] = []
        self.survive: list[str] = []
        n = rng.randrange(1, 300)
        self.node_prefix = rng.choice(["a100", "h100", "trn", "gpu", "dgx", "hpc-gpu", "sxm"])
        self.nodes = [f"{self.node_prefix}-{n + i:03d}" for i in range(2)]

    def plant(self, kind: str, value: str) -> str:
        self.planted.append((kind, value))
        return value

    def keep(self, text: str) -> str:
        self.survive.append(text)
        return text

    # planted values ---------------------------------------------------------------------
    def ip(self) -> str:
        r = self.rng
        v = r.choice([f"10.{r.randrange(256)}.{r.randrange(256)}.{r.randrange(2, 255)}", f"192.168.{r.randrange(256)}.{r.randrange(2, 255)}", f"172.{r.randrange(16, 32)}.{r.randrange(256)}.{r.randrange(2, 255)}"])
        return self.plant("ip", v)

    def ipv6(self) -> str:
        r = self.rng
        v = "2001:db8:" + ":".join(f"{r.randrange(1, 65536):x}" for _ in range(6))
        return self.plant("ipv6", v)

    def mac(self) -> str:
        return self.plant("mac", ":".join(f"{self.rng.randrange(256):02x}" for _ in range(6)))

    def fqdn(self) -> str:
        return self.plant("host", f"{self.rng.choice(['login', 'gpu', 'worker', 'node'])}{self.rng.randrange(1, 99):02d}.{self.rng.choice(['hpc', 'ml', 'cluster', 'corp'])}.{self.domain}")

    def node(self, i: int = 0) -> str:
        return self.plant("host", self.nodes[i])

    def u(self) -> str:
        return self.plant("user", self.user)

    def name(self) -> str:
        return self.plant("name", self.fullname)

    def mail(self) -> str:
        return self.plant("email", self.email)

    def account(self) -> str:
        return self.plant("account", "".join(self.rng.choice(string.digits) for _ in range(12)))

    def hf(self) -> str:
        return self.plant("secret", "hf_" + rs(self.rng, 34))

    def akid(self) -> str:
        return self.plant("secret", "AKIA" + rs(self.rng, 16, string.ascii_uppercase + "234567"))

    def aws_secret(self) -> str:
        return self.plant("secret", rs(self.rng, 40, AL + "+/"))

    def wandb(self) -> str:
        return self.plant("secret", rs(self.rng, 40, "0123456789abcdef"))

    def ghp(self) -> str:
        return self.plant("secret", "ghp_" + rs(self.rng, 36))

    def openai(self) -> str:
        return self.plant("secret", "sk-proj-" + rs(self.rng, 48, AL + "_-"))

    def anthropic(self) -> str:
        return self.plant("secret", "sk-ant-api03-" + rs(self.rng, 80, AL + "_-") + "AA")

    def slack_bot(self) -> str:
        r = self.rng
        return self.plant("secret", f"xoxb-{r.randrange(10**11, 10**12)}-{r.randrange(10**12, 10**13)}-{rs(r, 24)}")

    def webhook_path(self) -> str:
        r = self.rng
        return self.plant("secret", f"T{rs(r, 10, string.ascii_uppercase + string.digits)}/B{rs(r, 10, string.ascii_uppercase + string.digits)}/{rs(r, 24)}")

    def password(self) -> str:
        r = self.rng
        v = r.choice(["Falcon", "Orchid", "Tundra", "Quasar", "Marble"]) + str(r.randrange(1990, 2030)) + r.choice("!#$%&*") + rs(r, 3)
        return self.plant("secret", v)

    def jwt(self) -> str:
        def b(d: dict) -> str:
            return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")
        v = b({"alg": "RS256", "kid": rs(self.rng, 12)}) + "." + b({"sub": "system:serviceaccount:ml:trainer", "iat": 1700000000}) + "." + rs(self.rng, 86, AL + "_-")
        return self.plant("secret", v)

    def gapi(self) -> str:
        return self.plant("secret", "AIza" + rs(self.rng, 35, AL + "_-"))

    def ngc(self) -> str:
        return self.plant("secret", "nvapi-" + rs(self.rng, 64, AL + "_-"))

    def jupyter(self) -> str:
        return self.plant("secret", rs(self.rng, 48, "0123456789abcdef"))

    def comet(self) -> str:
        return self.plant("secret", rs(self.rng, 25))

    def azure_key(self) -> str:
        return self.plant("secret", base64.b64encode(self.rng.randbytes(64)).decode())

    def sig(self) -> str:
        return self.plant("secret", base64.b64encode(self.rng.randbytes(32)).decode().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D"))

    def uuid(self) -> str:
        h = hashlib.md5(self.rng.randbytes(8)).hexdigest()
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"

    def sha(self) -> str:
        return self.keep(hashlib.sha1(self.rng.randbytes(8)).hexdigest())


def ts(rng: random.Random) -> str:
    return f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d} {rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"


# --- families ------------------------------------------------------------------------------


def hf_trainer(p: P) -> list[str]:
    u = p.u()
    L = [
        f"(llm) {u}@{p.node(0)}:~/finetune$ huggingface-cli login --token {p.hf()}",
        "Token has not been saved to git credential helper.",
        "Token is valid (permission: write).",
        f"Your token has been saved to /home/{u}/.cache/huggingface/token",
        "Login successful",
        f"(llm) {u}@{p.nodes[0]}:~/finetune$ python train.py --model_name_or_path {p.keep('meta-llama/Llama-2-7b-hf')} --output_dir /home/{u}/ckpt",
        p.keep("[INFO|trainer.py:1721] 2024-05-06 10:42:01,123 >> ***** Running training *****"),
        p.keep("[INFO|trainer.py:1722] 2024-05-06 10:42:01,123 >>   Num examples = 52,002"),
        p.keep("[INFO|trainer.py:1724] 2024-05-06 10:42:01,124 >>   Instantaneous batch size per device = 4"),
    ]
    for step in range(0, 60, 10):
        L.append(p.keep(f"{{'loss': {1.9 - step / 100:.4f}, 'grad_norm': 0.8{step}, 'learning_rate': 1.9e-05, 'epoch': 0.{step}}}"))
    L += [
        "Traceback (most recent call last):",
        f'  File "/home/{u}/finetune/train.py", line 212, in <module>',
        "    trainer.train()",
        f'  File "/home/{u}/.local/lib/python3.10/site-packages/transformers/trainer.py", line 1539, in train',
        "    return inner_training_loop(",
        p.keep("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.06 GiB is free."),
        f"wandb: Currently logged in as: {u} ({p.org}). Use `wandb login --relogin` to force relogin",
        f"Pushing to https://{u}:{p.hf()}@huggingface.co/{p.org}/llama-ft",
        p.keep("transformers version: 4.38.2, torch: 2.2.1+cu121, accelerate 0.27.2"),
    ]
    return L


def deepspeed(p: P) -> list[str]:
    n0, n1 = p.node(0), p.node(1)
    u = p.u()
    ip0 = p.ip()
    world = base64.urlsafe_b64encode(json.dumps({n0: [0, 1, 2, 3, 4, 5, 6, 7], n1: [0, 1, 2, 3, 4, 5, 6, 7]}).encode()).decode()
    L = [
        f"[2024-05-06 10:42:01,123] [INFO] [runner.py:463:main] Using IP address of {ip0} for node {n0}",
        f"[2024-05-06 10:42:01,124] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: {n0},{n1}",
        f"[2024-05-06 10:42:01,125] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w {n0},{n1} export PYTHONPATH=/home/{u}/ds; export NCCL_IB_HCA=mlx5_0; export HF_TOKEN={p.hf()}; cd /home/{u}/ds; /opt/conda/bin/python -u -m deepspeed.launcher.launch --world_info={world} --node_rank=%n --master_addr={ip0} --master_port=29500 train.py --deepspeed ds_config.json",
        f"{n1}: [2024-05-06 10:42:03,001] [INFO] [launch.py:146:main] WORLD INFO DICT: {{'{n0}': [0, 1, 2, 3, 4, 5, 6, 7], '{n1}': [0, 1, 2, 3, 4, 5, 6, 7]}}",
        f"{n1}: [2024-05-06 10:42:03,002] [INFO] [launch.py:152:main] nnodes=2, num_local_procs=8, node_rank=1",
        f"{n0}: [2024-05-06 10:42:03,003] [INFO] [launch.py:163:main] dist_world_size=16",
        f"{n0}: " + p.keep("[2024-05-06 10:42:10,551] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.0, git-hash=unknown, git-branch=unknown"),
    ]
    for s in range(3):
        L.append(f"{n0}: [2024-05-06 10:43:{s:02d},000] [INFO] [logging.py:96:log_dist] [Rank 0] step={s * 10}, skipped=0, lr=[1e-05], mom=[(0.9, 0.95)]")
    L += [
        f"{n1}: [rank12]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
        f"{n1}: {n1}:4242:4389 [4] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:{p.ip()}<0>",
        f"{n1}: {n1}:4242:4389 [4] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to {ip0}<41523> failed : Software caused connection abort",
        p.keep("[2024-05-06 10:45:00,000] [INFO] [launch.py:347:main] Process 4242 exits successfully."),
        f"pdsh@{n0}: {n1}: ssh exited with exit code 1",
    ]
    return L


def slurm(p: P) -> list[str]:
    r = p.rng
    u = p.u()
    job = r.randrange(100000, 9999999)
    head = p.node_prefix
    a, b = int(p.nodes[0].rsplit("-", 1)[1]), int(p.nodes[1].rsplit("-", 1)[1])
    hostlist = p.plant("host", f"{head}-[{a:03d}-{b:03d}]")
    L = [
        f"$ sbatch --account={p.keep('proj-llm-07')} --partition=gpu train.sbatch",
        f"Submitted batch job {job}",
        f"$ scontrol show job {job}",
        f"JobId={job} JobName=pretrain",
        f"   UserId={u}(10{r.randrange(100, 999)}) GroupId=ml(2001) MCS_label=N/A",
        p.keep("   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)"),
        f"   NodeList={hostlist}",
        f"   BatchHost={p.node(0)}",
        f"   WorkDir=/home/{u}/pretrain",
        f"   StdErr=/home/{u}/pretrain/slurm-{job}.err",
        f"$ sacct -j {job} --format=JobID,JobName,User,State,ExitCode,NodeList",
        "       JobID    JobName      User      State ExitCode        NodeList ",
        "------------ ---------- --------- ---------- -------- --------------- ",
        f"{job:>12} {'pretrain':>10} {(u if len(u) <= 9 else u[:8] + '+'):>9} {'FAILED':>10} {'1:0':>8} {hostlist:>15} ",
        f"{str(job) + '.batch':>12} {'batch':>10} {'':>9} {'FAILED':>10} {'1:0':>8} {p.nodes[0]:>15} ",
        f"{str(job) + '.0':>12} {'python':>10} {'':>9} {'OUT_OF_ME+':>10} {'0:125':>8} {hostlist:>15} ",
        f"slurmstepd: error: Detected 1 oom_kill event in StepId={job}.0. Some of the step tasks have been OOM Killed.",
        f"srun: error: {p.nodes[1]}: task 9: Out Of Memory",
        f"slurmstepd: error: *** JOB {job} ON {p.nodes[0]} CANCELLED AT 2024-05-06T10:42:01 DUE TO TIME LIMIT ***",
        p.keep("srun: Job step aborted: Waiting up to 32 seconds for job step to finish."),
        f"From: Slurm Workload Manager <slurm@{p.fqdn()}>",
        f"To: {p.name()} <{p.mail()}>",
        f"Subject: Slurm Job_id={job} Name=pretrain Failed, Run time 00:12:04, FAILED, ExitCode 1",
    ]
    if len(u) > 9:
        p.planted.append(("user", u[:8]))
    return L


def k8s(p: P) -> list[str]:
    dns_user = p.user.replace(".", "-")
    p.plant("user", dns_user)
    ip_ = p.ip()
    node = p.plant("host", f"ip-{ip_.replace('.', '-')}.ec2.internal")
    return [
        f"$ kubectl describe pod llm-train-{dns_user}-worker-0 -n team-{dns_user}",
        f"Name:             llm-train-{dns_user}-worker-0",
        f"Namespace:        team-{dns_user}",
        "Priority:         0",
        f"Node:             {node}/{ip_}",
        "Start Time:       Mon, 06 May 2024 10:42:01 +0000",
        p.keep("Labels:           training.kubeflow.org/job-name=llm-train"),
        "                  training.kubeflow.org/replica-index=0",
        f"Annotations:      owner: {p.mail()}",
        "Status:           Failed",
        f"IP:               {p.ip()}",
        "Containers:",
        "  pytorch:",
        p.keep("    Image:          nvcr.io/nvidia/pytorch:24.01-py3"),
        "    State:          Terminated",
        p.keep("      Reason:       OOMKilled"),
        p.keep("      Exit Code:    137"),
        "    Environment:",
        p.keep("      HF_TOKEN:        <set to the key 'token' in secret 'hf-credentials'>  Optional: false"),
        f"      WANDB_API_KEY:   {p.wandb()}",
        f"      MASTER_ADDR:     llm-train-{dns_user}-master-0",
        "      MASTER_PORT:     23456",
        "Volumes:",
        "  home:",
        "    Type:          HostPath (bare host directory volume)",
        f"    Path:          /home/{p.u()}/data",
        "Events:",
        "  Type     Reason     Age   From               Message",
        "  ----     ------     ----  ----               -------",
        f"  Normal   Scheduled  5m    default-scheduler  Successfully assigned team-{dns_user}/llm-train-{dns_user}-worker-0 to {node}",
        p.keep("  Warning  BackOff    2m    kubelet            Back-off restarting failed container pytorch in pod"),
        "$ kubectl get pods -o wide",
        "NAME                                READY   STATUS      RESTARTS   AGE   IP             NODE                          NOMINATED NODE   READINESS GATES",
        f"llm-train-{dns_user}-worker-0    0/1     OOMKilled   3          5m    {p.ip():<13}  {node}   <none>           <none>",
    ]


def docker(p: P) -> list[str]:
    u = p.u()
    pw = p.password()
    reg = p.plant("host", f"registry.{p.domain}")
    auth = base64.b64encode(f"{u}:{pw}".encode()).decode()
    return [
        f"$ docker login -u {u} -p {pw} {reg}",
        "WARNING! Using --password via the CLI is insecure. Use --password-stdin.",
        f"WARNING! Your password will be stored unencrypted in /home/{u}/.docker/config.json.",
        "Login Succeeded",
        f"$ cat /home/{u}/.docker/config.json",
        '{',
        '  "auths": {',
        f'    "{reg}": {{',
        f'      "auth": "{auth}"',
        "    }",
        "  }",
        "}",
        f"$ docker run --gpus all -e HF_TOKEN={p.hf()} -e WANDB_API_KEY={p.wandb()} -v /home/{u}/data:/data {p.keep('nvcr.io/nvidia/pytorch:24.01-py3')} python train.py",
        p.keep("docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]]."),
        "trainer-1  | " + p.keep("RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory."),
        "trainer-1 exited with code 137",
        "$ docker ps -a",
        "CONTAINER ID   IMAGE                              COMMAND                  CREATED          STATUS                       PORTS     NAMES",
        f'{p.rng.randbytes(6).hex()}   nvcr.io/nvidia/pytorch:24.01-py3   "/opt/nvidia/nvidia_…"   12 minutes ago   Exited (137) 2 minutes ago             {u}_train',
    ]


def trackers(p: P) -> list[str]:
    u = p.u()
    run = "".join(p.rng.choice(string.ascii_lowercase + string.digits) for _ in range(8))
    mlpw = p.password()
    mlhost = p.plant("host", f"mlflow.{p.domain}")
    comet = p.comet()
    return [
        f"wandb: Currently logged in as: {u}. Use `wandb login --relogin` to force relogin",
        f"wandb: Appending key for api.wandb.ai to your netrc file: /home/{u}/.netrc",
        f"wandb login {p.wandb()}",
        p.keep("wandb: Tracking run with wandb version 0.16.6"),
        f"wandb: Run data is saved locally in /home/{u}/proj/wandb/run-20240506_104201-{run}",
        f"wandb: 🚀 View run at https://wandb.ai/{u}/llama-ft/runs/{run}",
        f"export MLFLOW_TRACKING_URI=https://{u}:{mlpw}@{mlhost}",
        f"export MLFLOW_TRACKING_PASSWORD={p.password()}",
        p.keep("2024/05/06 10:42:01 INFO mlflow.tracking.fluent: Experiment with name 'llama-ft' does not exist. Creating a new experiment."),
        f"🏃 View run brave-fox-42 at: http://{p.ip()}:5000/#/experiments/1/runs/{run}",
        f"export COMET_API_KEY={comet}",
        f'experiment = Experiment(api_key="{comet}", project_name="llama-ft", workspace="{u}")',
        f"COMET INFO: Experiment is live on comet.com https://www.comet.com/{u}/llama-ft/{run}",
        p.keep("COMET WARNING: Failed to log system metrics: nvidia-ml-py is not installed"),
    ]


def env_dump(p: P) -> list[str]:
    u = p.u()
    ip_ = p.ip()
    L = [
        "$ env | sort",
        f"AWS_ACCESS_KEY_ID={p.akid()}",
        f"AWS_SECRET_ACCESS_KEY={p.aws_secret()}",
        "AWS_DEFAULT_REGION=us-east-1",
        p.keep("CUDA_VISIBLE_DEVICES=0,1,2,3"),
        f"CONDA_PREFIX=/home/{u}/miniconda3/envs/llm",
        f"DATABASE_URL=postgresql://{u}:{p.password()}@{p.fqdn()}:5432/experiments",
        f"GITHUB_TOKEN={p.ghp()}",
        f"HOME=/home/{u}",
        f"HOSTNAME={p.node(0)}",
        f"HUGGING_FACE_HUB_TOKEN={p.hf()}",
        "KRB5CCNAME=FILE:/tmp/krb5cc_1001",
        f"LOGNAME={u}",
        f"MAIL=/var/spool/mail/{u}",
        p.keep("NCCL_DEBUG=INFO"),
        p.keep("NCCL_SOCKET_IFNAME=eth0"),
        f"OPENAI_API_KEY={p.openai()}",
        f"ANTHROPIC_API_KEY={p.anthropic()}",
        f"PGPASSWORD={p.password()}",
        f"REDIS_URL=redis://:{p.password()}@{p.ip()}:6379/0",
        f"SLACK_BOT_TOKEN={p.slack_bot()}",
        f"SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{p.webhook_path()}",
        f"SSH_CLIENT={ip_} 51234 22",
        f"SSH_CONNECTION={ip_} 51234 {p.ip()} 22",
        f"GOOGLE_API_KEY={p.gapi()}",
        f"NGC_API_KEY={p.ngc()}",
        f"SLURM_JOB_USER={u}",
        f"USER={u}",
        p.keep("TOKENIZERS_PARALLELISM=false"),
        "XDG_RUNTIME_DIR=/run/user/1001",
        f"GIT_AUTHOR_NAME={p.name()}",
        f"GIT_AUTHOR_EMAIL={p.mail()}",
    ]
    return L


def traceback_family(p: P) -> list[str]:
    u = p.u()
    return [
        "Traceback (most recent call last):",
        f'  File "/Users/{u}/code/llm/scripts/eval.py", line 88, in <module>',
        "    main()",
        f'  File "/home/{u}/.conda/envs/eval/lib/python3.11/site-packages/datasets/load.py", line 2556, in load_dataset',
        "    builder_instance = load_dataset_builder(",
        p.keep("FileNotFoundError: Couldn't find a dataset script at /data/shared/squad/squad.py or any data file in the same directory."),
        p.keep('  File "/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1511, in _wrapped_call_impl'),
        p.keep("RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"),
        f"HEAD is now at {p.sha()} fix eval",
        f"Author: {p.name()} <{p.mail()}>",
        f"Signed-off-by: {p.fullname} <{p.email}>",
    ]


def jupyter(p: P) -> list[str]:
    u = p.u()
    tok = p.jupyter()
    host = p.node(0)
    return [
        f"[I 2024-05-06 10:42:01.123 ServerApp] Serving notebooks from local directory: /home/{u}",
        p.keep("[I 2024-05-06 10:42:01.124 ServerApp] Jupyter Server 2.14.0 is running at:"),
        f"[I 2024-05-06 10:42:01.124 ServerApp] http://{host}:8888/lab?token={tok}",
        f"[I 2024-05-06 10:42:01.124 ServerApp]     http://127.0.0.1:8888/lab?token={tok}",
        "    To access the server, open this file in a browser:",
        f"        file:///home/{u}/.local/share/jupyter/runtime/jpserver-4242-open.html",
        "    Or copy and paste one of these URLs:",
        f"        http://{host}:8888/lab?token={tok}",
        p.keep("[W 2024-05-06 10:45:00.000 ServerApp] 404 GET /api/kernels/x (127.0.0.1): Kernel does not exist"),
    ]


def cloud_cli(p: P) -> list[str]:
    acct = p.account()
    u = p.u()
    sub = p.plant("account", p.uuid())
    tenant = p.plant("account", p.uuid())
    return [
        "$ aws sts get-caller-identity",
        "{",
        f'    "UserId": "AIDA{rs(p.rng, 17, string.ascii_uppercase + "234567")}",',
        f'    "Account": "{acct}",',
        f'    "Arn": "arn:aws:iam::{acct}:user/{u}"',
        "}",
        f"upload failed: ./ckpt/model.safetensors to s3://{p.keep('llm-checkpoints')}/run1/model.safetensors An error occurred (AccessDenied) when calling the PutObject operation: User: arn:aws:iam::{acct}:user/{u} is not authorized to perform: s3:PutObject",
        "$ aws configure get aws_secret_access_key",
        p.aws_secret(),
        "$ gcloud auth list",
        "       Credentialed Accounts",
        "ACTIVE  ACCOUNT",
        f"*       {p.mail()}",
        "$ gcloud config list",
        "[core]",
        f"account = {p.email}",
        p.keep("project = ml-research-42"),
        "$ az account show",
        "{",
        '  "environmentName": "AzureCloud",',
        f'  "id": "{sub}",',
        '  "isDefault": true,',
        f'  "tenantId": "{tenant}",',
        '  "user": {',
        f'    "name": "{p.plant("email", f"{p.user}@{p.org}.onmicrosoft.com")}",',
        '    "type": "user"',
        "  }",
        "}",
        f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=mldata;AccountKey={p.azure_key()};EndpointSuffix=core.windows.net",
        f"https://mldata.blob.core.windows.net/ckpt/model.pt?sv=2022-11-02&se=2024-05-07T00%3A00%3A00Z&sr=b&sp=r&sig={p.sig()}",
    ]


def ssh(p: P) -> list[str]:
    u = p.u()
    login = p.fqdn()
    ip_ = p.ip()
    short = login.split(".")[0]
    p.plant("host", short) if short not in ("login01",) else None
    return [
        f"$ ssh -v -i ~/.ssh/id_ed25519 {u}@{login}",
        p.keep("OpenSSH_8.9p1 Ubuntu-3ubuntu0.6, OpenSSL 3.0.2 15 Mar 2022"),
        f"debug1: Connecting to {login} [{ip_}] port 22.",
        "debug1: Connection established.",
        f"debug1: Authenticating to {login}:22 as '{u}'",
        f"debug1: Offering public key: /home/{u}/.ssh/id_ed25519 ED25519 SHA256:{rs(p.rng, 43, AL + '+/')}",
        f"The authenticity of host '{login} ({ip_})' can't be established.",
        f"Warning: Permanently added '{login},{ip_}' (ED25519) to the list of known hosts.",
        f"{u}@{login}'s password: ",
        f"$ scp -r ckpt/ {u}@{ip_}:/scratch/{u}/ckpt",
        p.keep("scp: /scratch/ckpt: No space left on device"),
        f"Last login: Mon May  6 10:42:01 2024 from {p.ip()}",
        f"[{u}@{short} ~]$ nvidia-smi -L",
        p.keep("GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5d2f8a1c-3e5b-7d9f-2a4c-6e8b0d1f3a5c)"),
    ]


def pip_conda(p: P) -> list[str]:
    u = p.u()
    tok = p.password()
    idx = p.plant("host", f"pypi.{p.domain}")
    return [
        f"$ pip install --index-url https://{u}:{tok}@{idx}/simple torch==2.2.1",
        f"Looking in indexes: https://{u}:****@{idx}/simple",
        p.keep("Collecting torch==2.2.1"),
        p.keep("  Downloading torch-2.2.1-cp310-cp310-manylinux1_x86_64.whl (755.5 MB)"),
        p.keep("Successfully installed nvidia-cudnn-cu12-8.9.2.26 nvidia-nccl-cu12-2.19.3 torch-2.2.1"),
        f"WARNING: The directory '/home/{u}/.cache/pip' or its parent directory is not owned or is not writable by the current user.",
        "## Package Plan ##",
        f"  environment location: /home/{u}/miniconda3/envs/llm",
        p.keep("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed."),
        f"$ git clone https://{u}:{p.ghp()}@github.com/{p.org}/llm.git",
    ]


def urllib3_debug(p: P) -> list[str]:
    hook = p.webhook_path()
    return [
        p.keep("DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): huggingface.co:443"),
        'DEBUG:urllib3.connectionpool:https://huggingface.co:443 "GET /api/models/meta-llama/Llama-2-7b-hf/revision/main HTTP/1.1" 401 None',
        "DEBUG:urllib3.connectionpool:Starting new HTTPS connection (1): hooks.slack.com:443",
        f'DEBUG:urllib3.connectionpool:https://hooks.slack.com:443 "POST /services/{hook} HTTP/1.1" 200 2',
        f"send: b'POST /v1/chat/completions HTTP/1.1\\r\\nHost: api.openai.com\\r\\nAuthorization: Bearer {p.openai()}\\r\\nContent-Type: application/json\\r\\n\\r\\n'",
        "reply: 'HTTP/1.1 401 Unauthorized\\r\\n'",
        f"DEBUG:requests_oauthlib:Token: {{'access_token': '{p.jwt()}', 'token_type': 'Bearer'}}",
        f"DEBUG:urllib3.connectionpool:http://{p.ip()}:8080 \"GET /metrics HTTP/1.1\" 200 1234",
        p.keep("huggingface_hub.utils._errors.GatedRepoError: 401 Client Error."),
    ]


def json_logs(p: P) -> list[str]:
    L = []
    for i in range(4):
        L.append(json.dumps({"ts": f"2024-05-06T10:42:0{i}.123Z", "level": "info", "logger": "trainer", "msg": f"step {i * 100} loss 1.{i}3", "rank": i, "host": p.nodes[0]}))
    p.node(0)
    L.append(json.dumps({"ts": "2024-05-06T10:43:00.000Z", "level": "error", "msg": "upload failed", "user": p.u(), "client_ip": p.ip(), "api_key": p.wandb(), "email": p.mail()}))
    L.append(json.dumps({"level": "error", "error": p.keep("CUDA error: an illegal memory access was encountered"), "node": p.nodes[0], "gpu": 3}))
    return L




def config_files(p: P) -> list[str]:
    u = p.u()
    return [
        "$ cat ~/.aws/credentials",
        "[default]",
        f"aws_access_key_id = {p.akid()}",
        f"aws_secret_access_key = {p.aws_secret()}",
        "$ cat ~/.netrc",
        "machine api.wandb.ai",
        "  login user",
        f"  password {p.wandb()}",
        "$ cat ~/.ssh/config",
        "Host gpu-cluster",
        f"    HostName {p.fqdn()}",
        f"    User {u}",
        "    IdentityFile ~/.ssh/id_ed25519",
        "$ git remote -v",
        f"origin\thttps://oauth2:glpat-{p.plant('secret', rs(p.rng, 20))[0:0]}{p.planted[-1][1]}@gitlab.{p.domain}/ml/llm.git (fetch)",
        "$ kubectl config view --raw",
        "clusters:",
        "- cluster:",
        f"    server: https://{p.ip()}:6443",
        "  name: training",
        "users:",
        "- name: trainer",
        "  user:",
        f"    token: {p.jwt()}",
        f'NEPTUNE_API_TOKEN="{p.plant("secret", base64.b64encode(json.dumps({"api_address": "https://app.neptune.ai", "api_url": "https://app.neptune.ai", "api_key": p.uuid()}).encode()).decode())}"',
        f"DATABRICKS_TOKEN=dapi{p.plant('secret', rs(p.rng, 32, '0123456789abcdef'))}",
        f"CLEARML_API_SECRET_KEY={p.plant('secret', rs(p.rng, 50))}",
        "$ docker inspect trainer | jq '.[0].Config.Env'",
        "[",
        f'  "HF_TOKEN={p.hf()}",',
        f'  "WANDB_API_KEY={p.wandb()}",',
        '  "NVIDIA_VISIBLE_DEVICES=all"',
        "]",
    ]


def gcp_sa(p: P) -> list[str]:
    body = base64.b64encode(p.rng.randbytes(600)).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    for ln in lines:
        p.plant("secret", ln)
    pk = "\\n".join(["-----BEGIN PRIVATE KEY-----", *lines, "-----END PRIVATE KEY-----"]) + "\\n"
    kid = p.plant("secret", rs(p.rng, 40, "0123456789abcdef"))
    sa = p.plant("email", f"trainer@{p.org}-ml-42.iam.gserviceaccount.com")
    return [
        "$ cat sa.json",
        "{",
        '  "type": "service_account",',
        f'  "project_id": "{p.keep(p.org + "-ml-42")}",',
        f'  "private_key_id": "{kid}",',
        f'  "private_key": "{pk}",',
        f'  "client_email": "{sa}",',
        f'  "client_id": "{p.rng.randrange(10**20, 10**21)}",',
        '  "auth_uri": "https://accounts.google.com/o/oauth2/auth",',
        "}",
        p.keep("google.auth.exceptions.RefreshError: ('invalid_grant: Invalid JWT Signature.', {'error': 'invalid_grant', 'error_description': 'Invalid JWT Signature.'})"),
    ]


def ray_lightning(p: P) -> list[str]:
    u = p.u()
    head = p.ip()
    w = p.ip()
    return [
        f"2024-05-06 10:42:01,123\tINFO worker.py:1724 -- Connected to Ray cluster. View the dashboard at http://{head}:8265 ",
        f"(RayTrainWorker pid=4242, ip={w}) " + p.keep("Setting up process group for: env:// [rank=0, world_size=16]"),
        f"(RayTrainWorker pid=4243, ip={w}) GPU available: True (cuda), used: True",
        p.keep("Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/16"),
        f"Missing logger folder: /home/{u}/lightning_logs",
        p.keep("  | Name  | Type             | Params"),
        p.keep("0 | model | LlamaForCausalLM | 6.7 B"),
        f"ray.exceptions.RayTaskError(OutOfMemoryError): ray::RayTrainWorker.__execute() (pid=4242, ip={w}, actor_id=8f2c4e6a8b0d1f3e5a7c9b2d01000000, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f3a2c1b9d60>)",
        f"Memory on the node (IP: {w}, ID: {rs(p.rng, 56, '0123456789abcdef')}) where the task was running was 243.25GB / 251.49GB (0.967253), which exceeds the memory usage threshold of 0.95.",
    ]


def network(p: P) -> list[str]:
    ip_ = p.ip()
    mac = p.mac()
    v6 = p.ipv6()
    r = p.rng
    ll = p.plant("ipv6", f"fe80::{r.randrange(1, 65536):x}:{r.randrange(1, 65536):x}:{r.randrange(1, 65536):x}:{r.randrange(1, 65536):x}")
    return [
        "$ ip a",
        p.keep("2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9001 qdisc mq state UP group default qlen 1000"),
        f"    link/ether {mac} brd ff:ff:ff:ff:ff:ff",
        f"    inet {ip_}/24 brd {ip_.rsplit('.', 1)[0]}.255 scope global dynamic eth0",
        f"    inet6 {v6}/64 scope global",
        f"    inet6 {ll}/64 scope link",
        f"{p.node(0)}:4242:4242 [0] NCCL INFO NET/Socket : Using [0]eth0:{ip_}<0> [1]ib0:{ll}%ib0<0>",
        f"INFO:     [{v6}]:51234 - \"GET /health HTTP/1.1\" 200 OK",
        f"psycopg2.OperationalError: connection to server at \"{p.fqdn()}\" ({p.ip()}), port 5432 failed: FATAL:  password authentication failed for user \"{p.u()}\"",
        f"[sudo] password for {p.user}: ",
        f"celery.worker: Connected to amqp://{p.user}:{p.password()}@{p.fqdn()}:5672//",
        p.keep("OSError: [Errno 113] No route to host"),
    ]


def chat_paste(p: P) -> list[str]:
    other = p.plant("name", f"{p.rng.choice(FIRST).capitalize()} {p.rng.choice(LAST).capitalize()}")
    return [
        f"{p.name()}  10:42 AM",
        f"@{p.u()} my job died with NCCL timeout again, log below",
        f"{other}  10:44 AM",
        "did you set NCCL_SOCKET_IFNAME? cc @" + p.user,
        f"Co-authored-by: {p.fullname} <{p.mail()}>",
        f"C:\\\\Users\\\\{p.user}\\\\AppData\\\\Local\\\\Temp\\\\train.log",
        p.keep("openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-proj-********abcd.', 'type': 'invalid_request_error'}}"),
        p.keep("ValueError: Invalid user token. If you didn't pass a user token, make sure you are properly logged in by executing `huggingface-cli login`"),
    ]





def inventory_and_mail(p: P) -> list[str]:
    """Hardware inventory and a mail signature, as a third blind corpus had them."""
    r = p.rng
    serial = p.plant("serial", str(r.randrange(10**12, 10**13)))
    board = p.plant("serial", f"WN{r.randrange(10**9, 10**10)}{rs(r, 3, string.ascii_uppercase)}")
    phone = p.plant("phone", f"+49 151 {r.randrange(1000, 10000)} {r.randrange(1000, 10000)}")
    return [
        "$ nvidia-smi -q | grep -E 'Serial|UUID'",
        f"    Serial Number                         : {serial}",
        p.keep("    GPU UUID                              : GPU-95ef7c5d-fc11-835b-cd38-2020193cf8e0"),
        f"Board Serial              : {board}",
        p.keep("Board Part Number         : R81.01010.0"),
        "--",
        f"{p.fullname} | ML Platform",
        f"Mobile: {phone}",
    ]


def ci_env(p: P) -> list[str]:
    """A CI job's environment and git output, as a third blind corpus had them."""
    r = p.rng
    gid, tid, wid = p.uuid(), p.uuid(), p.uuid()
    connector = p.plant("secret", rs(r, 32, "0123456789abcdef"))
    runner = p.plant("host", f"gpu-runner-{rs(r, 5, string.ascii_lowercase + string.digits)}")
    desktop = p.plant("host", f"DESKTOP-{rs(r, 7, string.ascii_uppercase + string.digits)}")
    return [
        "$ printenv | sort",
        f"GITHUB_ACTOR={p.u()}",
        f"RUNNER_NAME={runner}",
        f"GITLAB_USER_NAME={p.name()}",
        p.keep("RUNNER_OS=Linux"),
        f"COMPUTERNAME={desktop}",
        f"TEAMS_WEBHOOK=https://{p.org}.webhook.office.com/webhookb2/{gid}@{tid}/IncomingWebhook/{connector}/{wid}",
        f"co = cohere.Client('{p.plant('secret', rs(r, 40))}')",
        f"STRIPE_SECRET={p.plant('secret', 'sk_test_' + rs(r, 24))}",
        f"remote: Permission to {p.org}/llm.git denied to {p.u()}.",
        f"CI_COMMIT_REF_NAME={p.u()}/fix-nccl-timeout",
        f'{{"level": "error", "msg": "job failed", "owner": "{p.u()}", "pipeline": 48213}}',
        f"token                {p.plant('secret', 'hvs.' + rs(r, 90, AL + '_-'))}",
        f"gitlab-runner register --url https://gitlab.com/ --token {p.plant('secret', 'glrt-' + rs(r, 20, AL + '_-'))}",
        f"databricks: using token {p.plant('secret', 'dapi' + rs(r, 32, '0123456789abcdef'))}",
        p.keep("fatal: unable to access 'https://github.com/acme/llm.git/': The requested URL returned error: 403"),
        p.keep("debug1: Server host key: ssh-ed25519 SHA256:Bsrj6a1t5j4RnnnOeYkBWtPwucFebVmdzqrkLY3AA"),
    ]


# --- every secret kind in every syntax, and personal data in many positions ---------------

SECRET_KINDS = {
    "hf": ("HF_TOKEN", "hub_token", lambda p: p.hf()),
    "aws_secret": ("AWS_SECRET_ACCESS_KEY", "aws_secret_access_key", lambda p: p.aws_secret()),
    "akid": ("AWS_ACCESS_KEY_ID", "aws_access_key_id", lambda p: p.akid()),
    "wandb": ("WANDB_API_KEY", "wandb_api_key", lambda p: p.wandb()),
    "ghp": ("GITHUB_TOKEN", "github_token", lambda p: p.ghp()),
    "openai": ("OPENAI_API_KEY", "openai_api_key", lambda p: p.openai()),
    "anthropic": ("ANTHROPIC_API_KEY", "api_key", lambda p: p.anthropic()),
    "slack": ("SLACK_BOT_TOKEN", "slack_token", lambda p: p.slack_bot()),
    "password": ("DB_PASSWORD", "password", lambda p: p.password()),
    "jwt": ("K8S_TOKEN", "token", lambda p: p.jwt()),
    "gapi": ("GOOGLE_API_KEY", "google_api_key", lambda p: p.gapi()),
    "ngc": ("NGC_API_KEY", "ngc_api_key", lambda p: p.ngc()),
    "comet": ("COMET_API_KEY", "comet_api_key", lambda p: p.comet()),
    "generic": ("MYVENDOR_API_KEY", "secret_key", lambda p: p.plant("secret", rs(p.rng, 32))),
    "azure": ("AZURE_STORAGE_KEY", "account_key", lambda p: p.azure_key()),
}

PLACEMENTS = [
    lambda env, key, v: f"export {env}={v}",
    lambda env, key, v: f'export {env}="{v}"',
    lambda env, key, v: f"{env}='{v}' python train.py",
    lambda env, key, v: f"  {key}: {v}",
    lambda env, key, v: f'  "{key}": "{v}",',
    lambda env, key, v: f"TrainingArguments({key}={v!r}, output_dir='out')",
    lambda env, key, v: f"{{'{key}': '{v}', 'lr': 3e-05}}",
    lambda env, key, v: f"python train.py --{key} {v} --epochs 3",
    lambda env, key, v: f"python train.py --{key.replace('_', '-')}={v} --epochs 3",
    lambda env, key, v: f'{{"log":"{env}={v}\\n","stream":"stderr","time":"2024-05-06T10:42:01.123Z"}}',
    lambda env, key, v: f"      - name: {env}\n        value: {v}",
    lambda env, key, v: f"  {env}:  {v}",
    lambda env, key, v: f"+ {env}={v}",
    lambda env, key, v: f"docker run -e {env}={v} nvcr.io/nvidia/pytorch:24.01-py3",
    lambda env, key, v: f"[2024-05-06 10:42:01] DEBUG config: {key}={v} batch_size=8",
    lambda env, key, v: f"{env}={v} NCCL_DEBUG=INFO torchrun --nproc_per_node 8 train.py",
]

PERSONAL = [
    lambda p: f"Traceback: File \"/home/{p.u()}/proj/train.py\", line 3",
    lambda p: f"export HOME=/home/{p.u()}",
    lambda p: f"(base) {p.u()}@{p.node(0)}:~/proj$ python train.py",
    lambda p: f"[{p.u()}@{p.node(1)} proj]$ sbatch run.sh",
    lambda p: f"MASTER_ADDR={p.node(0)} MASTER_PORT=29500",
    lambda p: f"  host      : {p.fqdn()}",
    lambda p: f"[E socket.cpp:922] [c10d] The client socket has failed to connect to [{p.fqdn()}]:29500 (errno: 110 - Connection timed out).",
    lambda p: f"NCCL INFO Bootstrap : Using eth0:{p.ip()}<0>",
    lambda p: f"Connecting to {p.ip()}:6379 failed: Connection refused",
    lambda p: f"uvicorn running on http://[{p.ipv6()}]:8000",
    lambda p: f"contact {p.mail()} for access",
    lambda p: f"Author: {p.name()} <{p.email}>",
    lambda p: f"    link/ether {p.mac()} brd ff:ff:ff:ff:ff:ff",
    lambda p: f"arn:aws:iam::{p.account()}:role/SageMakerRole",
    lambda p: f"wandb: Currently logged in as: {p.u()} (team-x). Use `wandb login --relogin` to force relogin",
    lambda p: f"ssh {p.u()}@{p.ip()}",
    lambda p: f"srun: error: {p.node(1)}: task 3: Exited with exit code 1",
    lambda p: f"ls: cannot access '/scratch/{p.u()}/data': No such file or directory",
    lambda p: f"{p.node(0)}:4242:4300 [0] NCCL INFO Channel 00/02 : 0 1",
    lambda p: f"{{\"user\": \"{p.u()}\", \"event\": \"job_failed\"}}",
]



def placements(p: P) -> list[str]:
    rng = p.rng
    lines = ["step 10 loss 2.31", p.keep("torch.cuda.OutOfMemoryError: CUDA out of memory."), p.keep("NCCL_SOCKET_IFNAME=eth0")]
    for env, key, make in SECRET_KINDS.values():
        lines.append(rng.choice(PLACEMENTS)(env, key, make(p)))
    for place in rng.sample(PERSONAL, 8):
        lines.append(place(p))
    rng.shuffle(lines)
    return lines


def phrased_people(p: P) -> list[str]:
    """People a phrase names (a doc tag, `<verb> by`, a code host's timeline, LDIF), as a blind
    corpus of names no list knew had them; with the technical words written in those places."""
    r = p.rng
    other = p.plant("name", f"{r.choice(FIRST).capitalize()} {r.choice(LAST).capitalize()}")
    family = p.plant("name", p.fullname.split()[-1])
    return [
        f"# Written by {p.name()}, 2023",
        f"@author {other}",
        f"{p.u()} opened this issue on Mar 3 · 4 comments",
        f"{other} approved these changes",
        f"Ping from {other}: the eval job died again",
        f"dn: uid={p.user},ou=People,dc={p.org},dc=com",
        f"sn: {family}",
        f"uid: {p.user}",
        p.keep("Created by Trainer"),
        p.keep("Ping from Grafana Alerting: [FIRING:1] GPUMemoryHigh"),
        p.keep("cn: Domain Users"),
        p.keep("let's keep the cosine schedule for now — Mixtral Instruct"),
    ]


FAMILIES: dict[str, Callable[[P], list[str]]] = {
    f.__name__: f
    for f in (
        hf_trainer, deepspeed, slurm, k8s, docker, trackers, env_dump, traceback_family, jupyter, cloud_cli, ssh,
        pip_conda, urllib3_debug, json_logs, config_files, gcp_sa, ray_lightning, network, chat_paste, placements,
        inventory_and_mail, ci_env, phrased_people,
    )
}  # fmt: skip
