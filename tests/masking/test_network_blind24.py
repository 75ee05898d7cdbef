"""Network and infrastructure identifiers a twenty-fourth blind round found leaking or
over-masked (a 21-family corpus of what Slurm, kubectl, iproute2, rdma-core, nvidia-smi, dmesg,
ssh, Open MPI, Ray, NCCL, c10d, uvicorn and the AWS, GCP and Azure CLIs print).

- GCP's default compute service account, `<number>-compute@developer.gserviceaccount.com`,
  after `Service account`: the number was masked and Google's domain with it, as a `<HOST-n>`.
- The project number the metadata server answers (`.../project/numeric-project-id`) stood bare
  on the next line; and an account id a detector had found was not masked where it recurred
  bare (a `--format='value(projectNumber)'` answer): account ids are learned now.
- `metadata.google.internal`, the same name on every GCP VM, was masked like a private host.
- A prompt that shows the host without the user (`[gn101 ~]$`, PS1 `[\\h \\W]\\$`) kept
  `h100-r5n11` and `cn-0091`: a numbered name there is masked and learned.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

from pathlib import Path

from bot.matcher import Matcher, load_rulebook
from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked

_MATCHER = Matcher(load_rulebook(Path(__file__).resolve().parents[2] / "rules"))


def test_default_compute_service_account_masks_the_number_and_keeps_googles_domain() -> None:
    log = (
        'ERROR: (gcloud.container.node-pools.list) ResponseError: code=403, message=Required "container.nodePools.list" '
        'permission(s) for "projects/acme-ml-prod/locations/us-central1/clusters/llm".\n'
        "Service account 913370245518-compute@developer.gserviceaccount.com lacks permission\n"
    )
    out = _mask(log)
    assert "913370245518" not in out
    assert "Service account <ACCOUNT-1>-compute@developer.gserviceaccount.com lacks permission" in out
    assert 'code=403, message=Required "container.nodePools.list"' in out
    assert "projects/acme-ml-prod/locations/us-central1/clusters/llm" in out  # a team's project id is kept


def test_metadata_servers_project_number_is_masked_and_its_host_kept() -> None:
    log = (
        '$ curl -s -H "Metadata-Flavor: Google" http://metadata.google.internal/computeMetadata/v1/project/numeric-project-id\n'
        "913370245518\n"
        '$ curl -s -H "Metadata-Flavor: Google" http://metadata.google.internal/computeMetadata/v1/instance/zone\n'
        "projects/913370245518/zones/us-central1-a\n"
    )
    out = _mask(log)
    assert "913370245518" not in out
    assert out.splitlines()[1] == "<ACCOUNT-1>"
    assert "projects/<ACCOUNT-1>/zones/us-central1-a" in out
    assert "http://metadata.google.internal/computeMetadata/v1/project/numeric-project-id" in out


def test_an_account_id_found_once_is_masked_where_it_recurs_bare() -> None:
    log = (
        "google.api_core.exceptions.PermissionDenied: 403 Permission 'aiplatform.customJobs.create' denied on resource "
        "'//aiplatform.googleapis.com/projects/913370245518/locations/us-central1' (or it may not exist).\n"
        "$ gcloud projects describe acme-ml-prod --format='value(projectNumber)'\n"
        "913370245518\n"
        "$ aws sts get-caller-identity --query Arn --output text\n"
        "arn:aws:sts::480218557194:assumed-role/SageMakerExecutionRole/botocore-session-1733529601\n"
        "$ grep -r 480218557194 ~/.aws/config\n"
    )
    out = _mask(log)
    assert "913370245518" not in out and "480218557194" not in out
    assert out.splitlines()[2] == "<ACCOUNT-1>"
    assert "$ grep -r <ACCOUNT-2> ~/.aws/config" in out
    assert "assumed-role/SageMakerExecutionRole/botocore-session-1733529601" in out
    assert "Permission 'aiplatform.customJobs.create' denied" in out


def test_short_numbers_are_not_learned_as_accounts() -> None:
    # A project number of nine digits is masked where its shape says so, and nowhere else:
    # a short number recurs by chance (a step, a byte count).
    log = "name: projects/123456789/locations/us-central1/customJobs/42\nRealMemory=123456789 AllocMem=512000\n"
    out = _mask(log)
    assert "projects/<ACCOUNT-1>/locations/us-central1/customJobs/42" in out
    assert "RealMemory=123456789 AllocMem=512000" in out


def test_a_prompt_naming_only_the_host_masks_a_numbered_name() -> None:
    log = (
        "[h100-r5n11 ~]$ ibstat\n"
        "CA 'mlx5_0'\n"
        "\tFirmware version: 28.39.2048\n"
        "\tNode GUID: 0xb8cef603004a1c2e\n"
        "(base) [cn-0091 jobs]# nvidia-smi topo -m\n"
        "[root ~]# ibdev2netdev\n"
        "mlx5_0 port 1 ==> ibp26s0 (Up)\n"
        "h100-r5n11:88213:88213 [0] NCCL INFO Bootstrap : Using eth0:10.42.7.19<0>\n"
    )
    out = _mask(log)
    for value in ("h100-r5n11", "cn-0091", "0xb8cef603004a1c2e", "10.42.7.19"):
        assert value not in out
    assert out.startswith("[<HOST-1> ~]$ ibstat\n")
    assert "(base) [<HOST-2> jobs]# nvidia-smi topo -m" in out
    assert "[root ~]# ibdev2netdev" in out  # PS1 `[\u \W]`: a user, and root names nobody
    assert "<HOST-1>:88213:88213 [0] NCCL INFO Bootstrap : Using eth0:<IP-1><0>" in out
    assert "Firmware version: 28.39.2048" in out and "mlx5_0 port 1 ==> ibp26s0 (Up)" in out


def test_ip_addr_masks_addresses_and_keeps_loopback_docker_and_pci_ids() -> None:
    log = (
        "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9001 qdisc mq state UP group default qlen 1000\n"
        "    link/ether 0c:42:a1:5e:77:10 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9216 parentbus pci parentdev 0000:00:05.0\n"
        "    inet 10.31.4.118/20 brd 10.31.255.255 scope global dynamic eth0\n"
        "    inet6 2a05:d014:9c1:4e00:81f3:22aa:c01:7d2/128 scope global dynamic noprefixroute\n"
        "    inet6 fe80::e42:a1ff:fe5e:7710/64 scope link\n"
        "4: ib0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 4092 qdisc mq state UP group default qlen 256\n"
        "    link/infiniband 00:00:10:87:fe:80:00:00:00:00:00:00:b8:ce:f6:03:00:4a:1c:2e brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff\n"
        "    ipoib mode datagram umcast 0000 parentbus pci parentdev 0000:3b:00.0\n"
        "    inet 127.0.0.1/8 scope host lo\n"
        "    inet6 ::1/128 scope host\n"
        "    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0\n"
    )
    out = _mask(log)
    for value in ("0c:42:a1:5e:77:10", "10.31.4.118", "2a05:d014:9c1:4e00:81f3:22aa:c01:7d2", "fe80::e42:a1ff:fe5e:7710", "b8:ce:f6:03:00:4a:1c:2e"):
        assert value not in out
    for kept in ("0000:00:05.0", "0000:3b:00.0", "127.0.0.1/8", "::1/128", "172.17.0.1/16", "brd ff:ff:ff:ff:ff:ff", "mtu 9001", "eth0:", "ib0:"):
        assert kept in out
    assert out.count("\n") == log.count("\n")


def test_nccl_and_xid_lines_keep_their_diagnosis_and_diagnostics() -> None:
    log = (
        "[Mon Dec  7 00:02:13 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1453321, name=python, GPU has fallen off the bus.\n"
        "gpu-a100-017:62678:62709 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/RoCE [RO]; OOB eth0:10.8.3.41<0>\n"
        "gpu-a100-017:62678:62709 [0] NCCL INFO Channel 00/24 :    0   1   2   3   4   5   6   7\n"
        "gpu-a100-017:62678:62709 [0] NCCL INFO ncclCommInitRank comm 0x55d1a3c0e8f0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 3b000 commId 0x9c41d2e07a35b816 - Init COMPLETE\n"
    )
    out = _mask(log)
    assert "gpu-a100-017" not in out and "10.8.3.41" not in out
    for kept in ("NVRM: Xid (PCI:0000:3b:00): 79", "GPU has fallen off the bus", "[0]mlx5_0:1/IB", "0   1   2   3   4   5   6   7",
                 "busId 3b000 commId 0x9c41d2e07a35b816", "comm 0x55d1a3c0e8f0"):  # fmt: skip
        assert kept in out
    before = [m.id for m in _MATCHER.diagnose(log).matches][:1]
    assert before and [m.id for m in _MATCHER.diagnose(out).matches][:1] == before


def test_ofed_release_is_a_version_and_an_address_range_is_two_addresses() -> None:
    # `ofed_info -s` prints the package, its version and its release: `MLNX_OFED_LINUX-23.10-1.1.9.0:`
    # (the release's dotted quad after a version and a dash is no address).
    log = (
        "$ ofed_info -s\n"
        "MLNX_OFED_LINUX-23.10-1.1.9.0:\n"
        "mlnx-ofa_kernel-24.01-0.3.3.1 installed; libnccl2=2.18.5-1+cuda12.2\n"
        "DHCP range 10.9.8.7-10.9.8.90 on ib0\n"
    )
    out = _mask(log)
    for kept in ("MLNX_OFED_LINUX-23.10-1.1.9.0:", "mlnx-ofa_kernel-24.01-0.3.3.1", "libnccl2=2.18.5-1+cuda12.2"):
        assert kept in out
    assert "10.9.8.7" not in out and "10.9.8.90" not in out
    assert "DHCP range <IP-1>-<IP-2> on ib0" in out


def test_lspci_device_serial_number_is_masked_as_a_guid() -> None:
    # pciutils prints a PCIe Device Serial Number as eight dashed bytes: on a ConnectX card it
    # is the node GUID (`ibstat`'s `Node GUID: 0xb8cef603004a1c2e`).
    log = (
        "3b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
        "\tCapabilities: [1c0 v1] Device Serial Number b8-ce-f6-03-00-4a-1c-2e\n"
        "\tCapabilities: [1c0 v1] Device Serial Number 00-00-00-00-00-00-00-00\n"
    )
    out = _mask(log)
    assert "b8-ce-f6-03-00-4a-1c-2e" not in out
    assert "Capabilities: [1c0 v1] Device Serial Number <MAC-1>" in out
    assert "Device Serial Number 00-00-00-00-00-00-00-00" in out  # an unset serial names nothing
    assert "3b:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]" in out
