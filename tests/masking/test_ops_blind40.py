"""What a fortieth blind corpus (MLOps and ops logs pasted when a run dies: nvidia-smi and
DCGM, Azure ML, docker compose, MySQL) found:

- a GPU board's serial where no `Serial Number :` label stands before it: the rows of
  `nvidia-smi --query-gpu=...,serial,... --format=csv,noheader` (the fields are the command
  line's), and a ticket's prose (`GPU 3 serial 1654923000123 Xid 79`) (bot/masking/addresses.py);
- the caller's object id in Azure Resource Manager's `(AuthorizationFailed) The client '...'
  with object id '<guid>'` (bot/masking/cloud.py).
Kept: a service's own database account under an env key (`POSTGRES_USER=mlflow`, so postgres'
`database "mlflow" does not exist` stays) and MySQL's `'etl'@` role, the GPU's UUID and PCI
bus id beside the serial, `serial console`, `serial 3`.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from tests.masking.test_round12 import _mask_log  # learned whole first, then masked


@pytest.mark.parametrize(
    ("log", "serials", "kept"),
    [
        (
            "$ nvidia-smi --query-gpu=serial,pci.bus_id --format=csv,noheader\n"
            "1654923000123, 00000000:18:00.0\n"
            "1654923000456, 00000000:2A:00.0\n",
            ["1654923000123", "1654923000456"],
            ["00000000:18:00.0", "00000000:2A:00.0", "--query-gpu=serial,pci.bus_id"],
        ),
        (
            "[root@gn042 ~]# nvidia-smi --format=csv,noheader --query-gpu=index,name,serial,uuid\n"
            "0, NVIDIA H100 80GB HBM3, 1652223019876, GPU-5a1b2c3d-4e5f-6789-abcd-ef0123456789\n"
            "Traceback (most recent call last):\n",
            ["1652223019876"],
            ["NVIDIA H100 80GB HBM3", "GPU-5a1b2c3d-4e5f-6789-abcd-ef0123456789", "Traceback (most recent call last):"],
        ),
        (
            "$ nvidia-smi --query-gpu=serial --format=csv,noheader\n1321020023456\n1321020023457\nNCCL WARN Cuda failure 'out of memory'\n",
            ["1321020023456", "1321020023457"],
            ["NCCL WARN Cuda failure 'out of memory'"],
        ),
        (
            "RMA request: node gn042 GPU 3 serial 1654923000789 Xid 79, fell off the bus\n",
            ["1654923000789"],
            ["Xid 79, fell off the bus"],
        ),
        ("Replaced board, old serial no. WN1502400PN1A (DCGM diag level 3: Fail)\n", ["WN1502400PN1A"], ["DCGM diag level 3: Fail"]),
    ],
)
def test_gpu_serials_without_a_label_column(log: str, serials: list[str], kept: list[str]) -> None:
    out = _mask_log(log)
    for serial in serials:
        assert serial not in out
    assert "<SERIAL-1>" in out
    for text in kept:
        assert text in out


def test_two_serials_of_a_noheader_table_get_two_placeholders() -> None:
    out = _mask_log("$ nvidia-smi --query-gpu=serial,index --format=csv,noheader\n1321020023456, 0\n1321020023457, 1\n")
    assert "<SERIAL-1>, 0" in out and "<SERIAL-2>, 1" in out


@pytest.mark.parametrize(
    "log",
    [
        "ttyS0: serial console enabled at 115200 baud\n",
        "picked serial 3 of the sweep\n",
        "$ nvidia-smi --query-gpu=index,name --format=csv,noheader\n0, NVIDIA A100-SXM4-80GB\n",
    ],
)
def test_serial_words_without_a_board_number_stay(log: str) -> None:
    assert _mask_log(log) == log


def test_arm_authorization_failed_object_id() -> None:
    log = (
        "(AuthorizationFailed) The client 'dana@acme-ai.com' with object id '7c1e2f3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b' does not "
        "have authorization to perform action 'Microsoft.MachineLearningServices/workspaces/jobs/write' over scope "
        "'/subscriptions/1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b/resourceGroups/rg-ml/providers/"
        "Microsoft.MachineLearningServices/workspaces/mlw-prod' or the scope is invalid.\n"
    )
    out = _mask_log(log)
    assert "7c1e2f3a-4b5d-4e6f-8a9b-0c1d2e3f4a5b" not in out
    assert "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b" not in out
    assert "with object id '<ACCOUNT-" in out
    assert "does not have authorization to perform action 'Microsoft.MachineLearningServices/workspaces/jobs/write'" in out
    assert "resourceGroups/rg-ml/" in out


def test_a_services_database_account_under_an_env_key_stays() -> None:
    log = (
        "    environment:\n"
        "      - POSTGRES_USER=mlflow\n"
        "      - POSTGRES_PASSWORD=Quartz512_QgUq\n"
        'db-1  | FATAL:  database "mlflow" does not exist\n'
        "mlflow-1  | INFO mlflow.server: Listening on 0.0.0.0:5000\n"
    )
    out = _mask_log(log)
    assert "Quartz512_QgUq" not in out
    assert "POSTGRES_USER=mlflow" in out
    assert 'database "mlflow" does not exist' in out
    assert "mlflow.server" in out


def test_a_persons_login_under_the_same_key_still_goes() -> None:
    out = _mask_log("      - POSTGRES_USER=ksolberg\nFATAL:  role \"ksolberg\" does not exist\n")
    assert "ksolberg" not in out


def test_mysql_pipeline_role_stays_and_its_client_address_goes() -> None:
    log = "ERROR 1045 (28000): Access denied for user 'etl'@'10.42.7.19' (using password: YES)\n"
    out = _mask_log(log)
    assert "10.42.7.19" not in out
    assert "Access denied for user 'etl'@'<IP-1>' (using password: YES)" in out


def test_nvme_list_serial_column() -> None:
    # nvme-cli 2.x's `nvme list` (the `Generic` column is new in 2.x; 1.x has none).
    log = (
        "$ sudo nvme list\n"
        "Node                  Generic               SN                   Model                                    Namespace  Usage                      Format           FW Rev\n"
        "--------------------- --------------------- -------------------- ---------------------------------------- ---------- -------------------------- ---------------- --------\n"
        "/dev/nvme0n1          /dev/ng0n1            S64ANS0T123456       SAMSUNG MZQL23T8HCLS-00A07               0x1          3.84  TB /   3.84  TB    512   B +  0 B   GDC5602Q\n"
        "/dev/nvme1n1          /dev/ng1n1            S64ANS0T123457       SAMSUNG MZQL23T8HCLS-00A07               0x1          3.84  TB /   3.84  TB    512   B +  0 B   GDC5602Q\n"
        "OSError: [Errno 5] Input/output error: '/raid/ckpt/step_1200/model.safetensors'\n"
    )
    out = _mask_log(log)
    assert "S64ANS0T123456" not in out and "S64ANS0T123457" not in out
    assert "/dev/ng0n1            <SERIAL-1>       SAMSUNG MZQL23T8HCLS-00A07" in out
    assert "<SERIAL-2>" in out
    assert "GDC5602Q" in out and "OSError: [Errno 5] Input/output error: '/raid/ckpt/step_1200/model.safetensors'" in out


def test_nvme_list_of_nvme_cli_1_without_generic() -> None:
    log = (
        "Node             SN                   Model                                    Namespace Usage                      Format           FW Rev\n"
        "---------------- -------------------- ---------------------------------------- --------- -------------------------- ---------------- --------\n"
        "/dev/nvme0n1     PHLJ912345AB4P0DGN   INTEL SSDPE2KX040T8                      1           4.00  TB /   4.00  TB    512   B +  0 B   VDV10131\n"
    )
    out = _mask_log(log)
    assert "PHLJ912345AB4P0DGN" not in out
    assert "/dev/nvme0n1     <SERIAL-1>   INTEL SSDPE2KX040T8" in out


@pytest.mark.parametrize(
    ("log", "secret", "kept"),
    [
        (
            "POST https://events.pagerduty.com/integration/e93facc04764012d7bfb002500d5d1a6/enqueue -> 400 Bad Request\n",
            "e93facc04764012d7bfb002500d5d1a6",
            "https://events.pagerduty.com/integration/<SECRET:pagerduty-key-1>/enqueue -> 400 Bad Request",
        ),
        (
            "curl -fsS -m 10 --retry 5 -o /dev/null https://hc-ping.com/eb095278-f28d-448d-87fb-7b75c171a6aa/fail\n",
            "eb095278-f28d-448d-87fb-7b75c171a6aa",
            "https://hc-ping.com/<SECRET:healthcheck-url-1>/fail",
        ),
        (
            "curl -m 10 https://hc-ping.com/fqOOd6-F4MMNuCEnzTU01w/backup-ckpt\n",
            "fqOOd6-F4MMNuCEnzTU01w",
            "https://hc-ping.com/<SECRET:healthcheck-url-1>/backup-ckpt",
        ),
    ],
)
def test_alerting_keys_in_url_paths(log: str, secret: str, kept: str) -> None:
    out = _mask_log(log)
    assert secret not in out
    assert kept in out  # the service's public host stays, as api.telegram.org's does
