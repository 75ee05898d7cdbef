"""Network identifiers a twenty-eighth blind round found leaking or over-masked (a corpus of
NCCL/RCCL, c10d, uvicorn, iproute2, rdma-core and infiniband-diags, Slurm, pdsh, Horovod,
TensorBoard, gRPC, libpq, resolv.conf and the GCP, Azure and AWS clients' output).

- ROCm's `Memory access fault by GPU node-2` names the HSA agent's node in the topology, not a
  machine, but the learned-names pass masked it as a sibling of a learned `node-3`.
- A GCP project number in Google's prose (`... API has not been used in project <number>
  before`), at the end of a resource name (`"consumer": "projects/<number>"`), and bare where
  it recurred in a later piece (the account lines did not teach the learning pass).
- Hosts in positions no row read: `horovodrun -H`, pdsh's hostlists with a range per level,
  `ping: <host>: Name or service not known`, an NFS server's `<host>:/export`, libpq's
  `could not translate host name`, a TensorBoard event file's and run directory's host.
- iblinkinfo's port GUIDs and node descriptions; gRPC's `ipv6:%5B...%5D` peers; Entra ID's
  tenant in its login URL and az's `Subscription ID:`.
- Over-masks: `/proc/net/arp`'s `0x1  0x2` cells read as /etc/hosts names (and then learned:
  every `0x1` in the log went), a switch's vendor description, resolv.conf's search domains,
  RFC 1918's whole ranges in a no-proxy list, `login.microsoftonline.com`.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

from bot.masking import Masker
from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked


def test_rocm_agent_node_is_kept_beside_learned_nccl_hosts() -> None:
    log = (
        "node-3:20811:20811 [0] NCCL INFO Bootstrap : Using ens50f0:10.31.4.7<0>\n"
        "node-3:20811:20811 [0] NCCL INFO RCCL version 2.18.3+hip6.0 HEAD:2dde7e2\n"
        "Memory access fault by GPU node-2 (Agent handle: 0x5561f711dfd0) on address 0x7fb7a0d67000. "
        "Reason: Page not present or supervisor privilege.\n"
        "HW Exception by GPU node-4 (Agent handle: 0x55d2b8a0c2d0) reason :GPU Hang\n"
        "srun: error: node-3: task 3: Aborted (core dumped)\n"
        "ssh node-2 rocm-smi\n"
    )
    out = _mask(log)
    assert "Memory access fault by GPU node-2 (Agent handle: 0x5561f711dfd0)" in out
    assert "HW Exception by GPU node-4 (Agent handle" in out
    assert "node-3" not in out
    assert "ssh <HOST-" in out  # the same name as a machine elsewhere is masked


def test_gcp_project_number_in_googles_prose_and_error_info() -> None:
    log = (
        "google.api_core.exceptions.PermissionDenied: 403 Vertex AI API has not been used in project 822983483402 "
        "before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/"
        "aiplatform.googleapis.com/overview?project=822983483402 then retry.\n"
        '  "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED", '
        '"metadata": {"consumer": "projects/731946028316", "service": "aiplatform.googleapis.com"}}]\n'
        "Resource: //cloudresourcemanager.googleapis.com/projects/618203947514\n"
    )
    out = _mask(log)
    for number in ("822983483402", "731946028316", "618203947514"):
        assert number not in out
    assert "has not been used in project <ACCOUNT-1> before or it is disabled" in out
    assert '"consumer": "projects/<ACCOUNT-2>"' in out
    assert '"reason": "SERVICE_DISABLED"' in out


def test_an_account_id_learned_from_a_url_is_masked_bare_in_another_piece() -> None:
    masker = Masker()
    log = (
        "ERROR: https://console.developers.google.com/apis/api/compute.googleapis.com/overview?project=287149788478\n"
        "$ gcloud projects describe acme-ml-prod --format='value(projectNumber)'\n"
        "287149788478\n"
    )
    masker.learn(log.encode())
    assert str(masker.mask("287149788478\n")) == "<ACCOUNT-1>\n"


def test_horovodrun_hosts_and_multi_level_hostlists() -> None:
    log = (
        "$ horovodrun -np 8 -H server1:4,server2:4 python train.py\n"
        "$ pdsh -w rack[1-2]-node[01-04] 'nvidia-smi -q | grep -i xid'\n"
        "rack2-node03: Xid 79 on GPU 00000000:3B:00.0\n"
        "rack2-node03: \tXid: 79\n"
    )
    out = _mask(log)
    assert "-H <HOST-1>:4,<HOST-2>:4 python train.py" in out
    assert "rack" not in out  # not `rack[1-2]-<HOST-n>`: the list is one
    assert "Xid 79 on GPU 00000000:3B:00.0" in out


def test_unresolved_and_nfs_hosts() -> None:
    log = (
        "ping: hpc-storage01: Name or service not known\n"
        "ping: unknown host hpc-storage02\n"
        "mount.nfs: Connection timed out for nfs01:/export/datasets on /mnt/data\n"
        "mount.nfs: access denied by server while mounting nfs02.acme.lan:/export/home\n"
        'psycopg2.OperationalError: could not translate host name "pg-primary" to address: Name or service not known\n'
    )
    out = _mask(log)
    for host in ("hpc-storage01", "hpc-storage02", "nfs01", "nfs02", "pg-primary"):
        assert host not in out
    assert ":/export/datasets on /mnt/data" in out
    assert "Name or service not known" in out


def test_tensorboard_event_files_and_run_directories_name_the_host() -> None:
    log = (
        "Tensorboard logs at ./output/runs/Nov18_12-34-56_dgx-h100-021\n"
        "events.out.tfevents.1731933296.dgx-h100-021.48213.0\n"
        "/ckpt/runs/events.out.tfevents.1731933296.gpu17.cluster.acme.lan.4321.0.v2\n"
        "runs/Nov18_12-34-56_localhost\n"
    )
    out = _mask(log)
    assert "dgx-h100-021" not in out and "gpu17" not in out
    assert "output/runs/Nov18_12-34-56_<HOST-1>" in out
    assert "events.out.tfevents.1731933296.<HOST-1>.48213.0" in out
    assert ".4321.0.v2" in out
    assert "runs/Nov18_12-34-56_localhost" in out


def test_iblinkinfo_guids_and_node_descriptions() -> None:
    log = (
        "CA: wuklab00 mlx4_0:\n"
        '      0xe41d2d0300309251      8    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>      22    1[  ] "MF0;SB7700:MSB7700/U1" ( )\n'
        "Switch: 0x0002c9020046c588 Infiniscale-IV Mellanox Technologies:\n"
        '           2    1[  ] ==( 4X          10.0 Gbps Active/  LinkUp)==>       3    1[  ] "centos-data-202 HCA-1" ( )\n'
        '    0xf452140300f55051 "              ib-test-7 mlx4_0"     37    1[  ] ==( 4X       14.0625 Gbps Active/  LinkUp)==>  '
        '0xf45214030067c630      5   16[  ] "MF0;switch-e1be74:SX6036/U1" ( )\n'
        'Switch\t: 0x0c42a1030012345c ports 41 "Quantum Mellanox Technologies" base port 0 lid 1 lmc 0\n'
    )
    out = _mask(log)
    for value in ("e41d2d0300309251", "0002c9020046c588", "f452140300f55051", "f45214030067c630", "0c42a1030012345c",
                  "wuklab00", "centos-data-202", "ib-test-7"):  # fmt: skip
        assert value not in out
    assert "==( 4X          10.0 Gbps Active/  LinkUp)==>" in out
    assert '"Quantum Mellanox Technologies"' in out
    assert "Infiniscale-IV Mellanox Technologies:" in out


def test_hex_cells_after_an_address_are_no_hosts() -> None:
    log = (
        "$ cat /proc/net/arp\n"
        "IP address       HW type     Flags       HW address            Mask     Device\n"
        "10.0.0.2         0x1         0x2         0c:42:a1:9b:6d:31     *        eth0\n"
        "$ ibstatus\n"
        "\tbase lid:\t 0x1a\n"
        "\tsm lid:\t\t 0x1\n"
    )
    out = _mask(log)
    assert "<IP-1>         0x1         0x2         <MAC-1>     *        eth0" in out
    assert "\tsm lid:\t\t 0x1\n" in out


def test_grpc_escaped_ipv6_peer() -> None:
    log = (
        'debug_error_string = "UNKNOWN:failed to connect to all addresses; last error: UNKNOWN: '
        'ipv6:%5B2a05:d018:1c4:8f00::7%5D:50051: Connection refused"\n'
        "last error: UNKNOWN: ipv6:%5B::1%5D:50051: Failed to connect to remote host: Connection refused\n"
    )
    out = _mask(log)
    assert "2a05:d018" not in out
    assert "ipv6:%5B<IPV6-1>%5D:50051: Connection refused" in out
    assert "ipv6:%5B::1%5D:50051" in out


def test_search_domains_and_private_ranges_are_kept() -> None:
    log = (
        "$ cat /etc/resolv.conf\n"
        "nameserver 10.96.0.10\n"
        "search ml.svc.cluster.local svc.cluster.local cluster.local us-west-2.compute.internal\n"
        "NO_PROXY=localhost,127.0.0.1,.svc,.cluster.local,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,10.42.0.0/16\n"
        "ip-10-3-7-21.us-west-2.compute.internal\n"
    )
    out = _mask(log)
    assert "search ml.svc.cluster.local svc.cluster.local cluster.local us-west-2.compute.internal" in out
    assert ",10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,<IP-2>/16" in out  # a cluster's own pod range goes
    assert "ip-10-3-7-21" not in out


def test_azure_tenant_in_login_url_and_subscription_id_label() -> None:
    log = (
        "msal: POST https://login.microsoftonline.com/c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f/oauth2/v2.0/token\n"
        "Subscription ID: 3f9c2b1a-7d4e-4c8b-9a1f-2e5d6c7b8a92\n"
    )
    out = _mask(log)
    assert "https://login.microsoftonline.com/<ACCOUNT-1>/oauth2/v2.0/token" in out
    assert "Subscription ID: <ACCOUNT-2>" in out


def test_sigv4_credential_scope_keeps_date_region_and_service() -> None:
    log = (
        "DEBUG botocore.auth: Calculating signature using v4 auth.\n"
        "Authorization: AWS4-HMAC-SHA256 Credential=AKIAQ3EGWRT7ZLXK4N2B/20261118/us-east-1/s3/aws4_request, "
        "SignedHeaders=host;x-amz-content-sha256;x-amz-date, "
        "Signature=9f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0\n"
    )
    out = _mask(log)
    assert "AKIAQ3EGWRT7ZLXK4N2B" not in out
    assert "/20261118/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date" in out


def test_ci_agents_and_jenkins_built_in_node() -> None:
    log = (
        "Running on gpu-agent-02 in /var/lib/jenkins/workspace/llm-train\n"
        "Running on Jenkins in /var/jenkins_home/workspace/llm-eval\n"
        "BUILDKITE_AGENT_NAME=gpu-builder-3\n"
    )
    out = _mask(log)
    assert "gpu-agent-02" not in out and "gpu-builder-3" not in out
    assert "Running on Jenkins in /var/jenkins_home/workspace/llm-eval" in out
    assert "BUILDKITE_AGENT_NAME=<HOST-" in out
    assert "Running on <HOST-" in out


def test_nccl_ib_gid_words_hide_the_address() -> None:
    # NCCL prints the GID's two words `%lX` in memory order: 0xB9D4E80AFFFF0000 is ::ffff:10.232.212.185.
    log = (
        "gpu-node-07:1234:1290 [0] NCCL INFO NET/IB: NCCL Dev 0 IBDev 0 Port 1 qpn 364 mtu 5 GID 3 (0/B9D4E80AFFFF0000) "
        "fifoRKey=0x41200 fifoLKey=0x41200\n"
        "gpu-node-07:1234:1290 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [RO]; OOB eth0:10.232.212.185<0>\n"
        "gpu-node-07:1234:1290 [0] NCCL INFO NET/IB: IbDev 0 Port 1 qpn 1234 mtu 5 GID 0 (80FE/2C6D9BFFFEA1420E) fifoRkey=0x12345\n"
    )
    out = _mask(log)
    assert "qpn 364 mtu 5 GID 3 (0/<IP-1>) fifoRKey=0x41200" in out  # the same address as the OOB one
    assert "OOB eth0:<IP-1><0>" in out
    assert "GID 0 (80FE/<IPV6-1>)" in out  # link-local: the prefix stays


def test_ec2_ipv6_link_local_services_are_kept() -> None:
    log = "$ curl -s http://[fd00:ec2::254]/latest/meta-data/instance-type\np5.48xlarge\n"
    assert _mask(log) == log
