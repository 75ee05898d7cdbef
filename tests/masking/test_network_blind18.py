"""Network and infrastructure identifiers an eighteenth blind round found leaking or
over-masked (RDMA tools, Slurm, pdsh, configs, VS Code, ODBC, Prometheus, zsh, AWS).

- `ibv_devices` lists node GUIDs bare under its `node GUID` header, and ibnetdiscover names the
  far port's GUID in parentheses (`[1](0c42...)`) and the node's description after `#`; perftest
  prints GIDs as sixteen decimal bytes (bot/masking/addresses.py, hosts.py).
- `ff02::1 ip6-allnodes` in /etc/hosts was masked: a multicast group names no machine.
- pdsh's `gn101: ` label before output that is no log line (`ibstat`, `nvidia-smi`) was kept.
- A YAML or flow list of machines under `hosts:`/`nodes:`/`workers:`, `scontrol show hostnames`'
  one name a line, nslookup's answer, Prometheus' `instance=host:port`, perftest's server.
- VS Code's `ssh-remote+login@host.fqdn` was one e-mail address; URL-encoded, its machine kept.
- ODBC's `Uid=` login; `__author__ = "..."`; a zsh prompt with a git branch before `%`;
  `aws sts get-caller-identity --output text`'s leading account; `%40` after an encoded `/`.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from tests.masking.test_round12 import _mask_log as _mask  # learned whole first, then masked


def test_ibv_devices_node_guids_are_masked_and_the_devices_kept() -> None:
    log = "    device          \t   node GUID\n    ------          \t----------------\n    mlx5_0          \t0c42a10300b1c2d3\n    mlx5_1          \t0c42a10300b1c2d4\n"
    out = _mask(log)
    assert "0c42a10300b1c2d3" not in out and "0c42a10300b1c2d4" not in out
    assert "mlx5_0          \t<MAC-1>" in out and "mlx5_1          \t<MAC-2>" in out


def test_ibnetdiscover_peer_guid_and_node_description_are_masked() -> None:
    log = (
        'Ca\t1 "H-0c42a10300b1c2d3"\t\t# "gpu-node-017 mlx5_0"\n'
        '[1](0c42a10300b1c2d3) \t"S-e41d2d0300a1b2c3"[17]\t\t# lid 3 lmc 0 "Quantum Mellanox Technologies" lid 3 4xNDR\n'
    )
    out = _mask(log)
    assert "0c42a10300b1c2d3" not in out and "gpu-node-017" not in out
    assert '[1](<MAC-1>)' in out and '# "<HOST-1> mlx5_0"' in out
    assert '"Quantum Mellanox Technologies"' in out


def test_perftest_decimal_gids_mask_the_address_and_keep_the_prefix() -> None:
    log = (
        "$ ib_write_bw -d mlx5_0 -x 3 --report_gbits gn059\n"
        " local address: LID 0000 QPN 0x0123 PSN 0x4a2b3c RKey 0x1fffbd VAddr 0x007f2a1b3c4000\n"
        " GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:08:01:27\n"
        " GID: 254:128:00:00:00:00:00:00:12:66:106:255:254:170:187:204\n"
        "NCCL INFO NET/IB : Got completion from peer 10.8.1.27<43211> with error 12\n"
    )
    out = _mask(log)
    assert "gn059" not in out and "170:187:204" not in out
    assert " GID: 00:00:00:00:00:00:00:00:00:00:255:255:<IP-1>" in out
    assert "peer <IP-1><43211>" in out  # the same address, the same placeholder
    assert " GID: 254:128:00:00:00:00:00:00:<IPV6-1>" in out
    assert "ib_write_bw -d mlx5_0 -x 3 --report_gbits <HOST-1>" in out


def test_multicast_groups_in_etc_hosts_are_kept() -> None:
    log = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n10.0.1.23\tgn101\n"
    out = _mask(log)
    assert "ff02::1\tip6-allnodes" in out and "ff02::2\tip6-allrouters" in out
    assert "10.0.1.23" not in out and "gn101" not in out


def test_solicited_node_multicast_carries_an_address_and_is_masked() -> None:
    out = _mask("ICMPv6 neighbor solicitation to ff02::1:ff3d:4e5f for fe80::81b:2cff:fe3d:4e5f\n")
    assert "ff3d:4e5f" not in out


def test_pdsh_labels_before_tool_output_are_masked() -> None:
    log = (
        "$ pdsh -w gn[101-102] ibstat mlx5_0\n"
        "gn101: CA 'mlx5_0'\n"
        "gn101: \tFirmware version: 20.39.1002\n"
        "gn102: CA 'mlx5_0'\n"
        "gn102: \tFirmware version: 20.39.1002\n"
        "sc-194: \tState: Active\n"
        "sc-194: \tState: Down\n"
    )
    out = _mask(log)
    assert "gn101" not in out and "gn102" not in out and "sc-194" not in out
    assert "Firmware version: 20.39.1002" in out


@pytest.mark.parametrize(
    "lines",
    [
        "debug1: Reading configuration data /etc/ssh/ssh_config\ndebug1: Connecting to port 22.\n",
        "beta1: 0.9\nbeta2: 0.999\nbeta1: 0.9\nbeta2: 0.999\n",
        "fp16: true\nfp16: true\n",
        "eth0: link up\neth0: link down\n",
        "step100: loss 2.1\nstep100: loss 2.0\n",
        "llama-3-8b: loaded\nllama-3-8b: sharded\n",
    ],
)
def test_repeated_labels_that_name_no_machine_are_kept(lines: str) -> None:
    assert _mask(lines) == lines


@pytest.mark.parametrize(
    ("log", "hosts"),
    [
        ("hosts:\n  - gn060\n  - \"gn171\"\n  - cn-05-25:8\n", ("gn060", "gn171", "cn-05-25")),
        ("nodes: [gpu-a17, gpu-a18]\n", ("gpu-a17", "gpu-a18")),
        ('"worker_hosts": ["w-1:2222", "w-2:2222"]\n', ("w-1", "w-2")),
    ],
)
def test_lists_of_machines_under_a_hosts_key_are_masked(log: str, hosts: tuple[str, ...]) -> None:
    out = _mask(log)
    assert not [h for h in hosts if h in out]
    assert "<HOST-1>" in out


def test_a_list_of_plugins_and_a_count_of_nodes_are_kept() -> None:
    log = "nodes: 4\nhosts: [localhost]\nplugins:\n  - flash-attn\n"
    assert _mask(log) == log


def test_scontrol_show_hostnames_output_is_masked() -> None:
    log = "$ scontrol show hostnames $SLURM_JOB_NODELIST\ncn162\ncn163\n+ MASTER_PORT=29500\n"
    out = _mask(log)
    assert "cn162" not in out and "cn163" not in out
    assert "+ MASTER_PORT=29500" in out


def test_nslookup_answer_and_question_are_masked() -> None:
    log = (
        "$ nslookup gw3.hpc.uio.no\nServer:\t\t127.0.0.53\nAddress:\t127.0.0.53#53\n\n"
        "Non-authoritative answer:\nName:\tgw3.hpc.uio.no\nAddress: 10.4.0.12\n"
    )
    out = _mask(log)
    assert "gw3" not in out and "10.4.0.12" not in out
    assert "Server:\t\t127.0.0.53" in out


@pytest.mark.parametrize("word", ["x.normalize", "torch.nn.functional.normalize(x)", "self.estimator.es", "a.no"])
def test_words_after_a_dot_are_no_country_hosts(word: str) -> None:
    assert _mask(word + "\n") == word + "\n"


def test_prometheus_instance_label_host_is_masked() -> None:
    log = '[FIRING:1] NodeDown\nLabels: instance="sc-120:9100" job="node_exporter" severity="critical"\n'
    out = _mask(log)
    assert "sc-120" not in out and 'instance="<HOST-1>:9100"' in out and 'job="node_exporter"' in out


def test_rocks_node_names_in_prose_are_masked() -> None:
    out = _mask("can you drain cn-07-134? it keeps throwing ECC errors\n")
    assert "cn-07-134" not in out and "ECC errors" in out


def test_vscode_remote_authority_is_a_login_at_a_machine() -> None:
    log = (
        "[10:11:12.346] Resolving ssh remote authority 'ssh-remote+hfischer@login02.hpc.uio.no' (attempt #1)\n"
        "vscode-remote://ssh-remote%2Bmtanaka%40hgx109/home/mtanaka/proj\n"
    )
    out = _mask(log)
    assert "<EMAIL" not in out
    assert "'ssh-remote+<USER-1>@<HOST-1>'" in out
    assert "ssh-remote%2B<USER-2>%40<HOST-2>/home/<USER-2>/proj" in out


def test_odbc_uid_is_masked_and_id_output_kept_numeric() -> None:
    log = (
        'conn_str = "Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql01.acme.net,1433;Database=mlmeta;Uid=lfischer;Encrypt=yes;"\n'
        "uid=0(root) gid=0(root) groups=0(root)\n"
    )
    out = _mask(log)
    assert "lfischer" not in out and "Uid=<USER-1>;" in out
    assert "uid=0(root) gid=0(root)" in out


def test_module_author_dunder_names_a_person() -> None:
    log = '__author__ = "Lukas Volkov"\n__maintainer__ = "Aisha Haddad"\n__author__ = "Data Platform"\n__version__ = "0.4.1"\n'
    out = _mask(log)
    assert "Volkov" not in out and "Haddad" not in out
    assert '__author__ = "Data Platform"' in out and '__version__ = "0.4.1"' in out


def test_zsh_prompt_with_a_git_branch_is_masked() -> None:
    out = _mask("inesm@gn122 ~/proj (main) % git pull\n")
    assert "inesm" not in out and "gn122" not in out and "(main) % git pull" in out


def test_caller_identity_text_output_masks_the_leading_account() -> None:
    log = "$ aws sts get-caller-identity --output text\n843458394745\tarn:aws:sts::843458394745:assumed-role/MLTrainingRole/botocore-session-1733\n"
    out = _mask(log)
    assert "843458394745" not in out and "<ACCOUNT-1>\tarn:aws:sts::<ACCOUNT-1>:assumed-role/MLTrainingRole/" in out


def test_url_encoded_address_after_an_encoded_slash_is_masked() -> None:
    out = _mask("302 GET /hub/login?next=%2Fhub%2Fuser%2Flukas.fischer%40acme.com%2Flab -> /hub/oauth_login\n")
    assert "lukas.fischer" not in out and "%2Fhub%2Fuser%2F<EMAIL-1>%2Flab" in out
