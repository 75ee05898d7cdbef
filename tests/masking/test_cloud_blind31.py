"""Cloud identifiers, storage hosts and shell-integration fragments a thirty-first blind round
found leaking or over-masked (Azure's and Terraform's environment, `kubectl describe node` on
AKS, `az account list`, `az vmss list-instances`, Azure's and EC2's metadata services, `df`,
`mount` and beegfs-check-servers, Lustre's NIDs, iTerm2's `]1337;RemoteHost=`, botocore's and
s3cmd's `b'...'` bodies, `gcloud projects describe` and `compute instances list`).

- Azure's client, app and principal ids (`AZURE_CLIENT_ID=`, `ARM_CLIENT_ID=`, `client_id =`
  in Terraform's provider, `"appId"`), Entra ID's AADSTS refusals and `az account list`'s
  table; a GCP organisation's number; an S3 owner's canonical id.
- Machines: an AKS scale set (`aks-nodepool1-12345678-vmss`, its `_0` instances: the node
  name with a base-36 suffix), an EC2 instance id, an Azure VM's name in its resource id and
  `computerName`, storage servers named for their role (`beegfs-stor03`, `nfs-home01`), a
  Lustre NID's server (`mds01@tcp:/scratch` is no account at a machine called `tcp`).
- A login run into the text before it when a terminal title lost its escape and bell.
- An XML element's secret (`<SecretAccessKey>`) in STS's answer.
- Over-masks: IPv4 multicast groups, `hub.docker.com/v2/users/login`, the lines after a
  gcloud table, `tcp` learned from a Lustre NID.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

from bot.masking import mask
from tests.masking.test_round12 import _mask_log  # learned whole first, then masked

_SUB = "0b1c2d3e-4f5a-4b6c-8d7e-1f2a3b4c5d6e"
_TENANT = "72f9a8bf-86f1-41af-91ab-2d7cd0a1db47"
_CLIENT = "3f2b8c1e-7a4d-4e9b-9c21-5d8e6f0a1b2c"


def _masked(text: str, *values: str) -> str:
    out = _mask_log(text)
    for value in values:
        assert value not in out, (value, out)
    assert len(out.splitlines()) == len(text.splitlines()), out
    return out


def test_azure_client_tenant_and_subscription_ids_in_env_and_config() -> None:
    text = (
        f"AZURE_CLIENT_ID={_CLIENT}\n"
        f"ARM_TENANT_ID={_TENANT}\n"
        f"  azure_client_id: \"{_CLIENT}\"\n"
        'provider "azurerm" {\n'
        f'  subscription_id = "{_SUB}"\n'
        f'  client_id       = "{_CLIENT}"\n'
        "}\n"
        "AZURE_AUTHORITY_HOST=https://login.microsoftonline.com/\n"
    )
    out = _masked(text, _CLIENT, _TENANT, _SUB)
    assert "AZURE_CLIENT_ID=<ACCOUNT-" in out and "AZURE_AUTHORITY_HOST=https://login.microsoftonline.com/" in out, out


def test_aadsts_refusal_and_az_account_list_table() -> None:
    other = "a4f98d8b-2619-43b6-981e-cb9e1d198459"
    text = (
        "ClientSecretCredential.get_token failed: Authentication failed: AADSTS700016: Application with identifier "
        f"'{_CLIENT}' was not found in the directory '{_TENANT}'.\n"
        "Name                 CloudName    SubscriptionId                        TenantId                              State    IsDefault\n"
        f"ml-prod              AzureCloud   {_SUB}  {_TENANT}  Enabled  True\n"
        f"ml-dev               AzureCloud   {other}  {_TENANT}  Enabled  False\n"
        "x-ms-client-request-id: 6a1b2c3d-1111-4222-8333-944455556666\n"
    )
    out = _masked(text, _CLIENT, _TENANT, _SUB, other)
    assert "AADSTS700016: Application with identifier '<ACCOUNT-" in out, out
    # A request's id is no one's: Azure's SDK prints one per call.
    assert "x-ms-client-request-id: 6a1b2c3d-1111-4222-8333-944455556666" in out, out


def test_aks_node_scale_set_and_its_instances_are_hosts() -> None:
    text = (
        "Name:               aks-gpupool-31415926-vmss000003\n"
        f"ProviderID:                 azure:///subscriptions/{_SUB}/resourceGroups/mc_rg-ml_aks-gpu_westeurope/providers/"
        "Microsoft.Compute/virtualMachineScaleSets/aks-gpupool-31415926-vmss/virtualMachines/3\n"
        "0             True                  westeurope  VirtualMachineScaleSet    aks-gpupool-31415926-vmss_0        Succeeded\n"
        "  nvidia.com/gpu:     1\n"
    )
    out = _masked(text, _SUB, "aks-gpupool-31415926-vmss", "31415926")
    # The kind of resource and the instance's number stay: they say which VM of the set failed.
    assert "/providers/Microsoft.Compute/virtualMachineScaleSets/<HOST-" in out and "/virtualMachines/3\n" in out, out
    assert "  nvidia.com/gpu:     1" in out, out


def test_azure_vm_name_in_its_resource_id_and_imds_compute_name() -> None:
    text = (
        '  "name": "nd96-vm-02",\n'
        '  "osProfile": {"adminUsername": "hfischer", "computerName": "nd96-vm-02", "disablePasswordAuthentication": "true"},\n'
        f'  "resourceId": "/subscriptions/{_SUB}/resourceGroups/rg-ml/providers/Microsoft.Compute/virtualMachines/gpu-box-a",\n'
        '  "vmSize": "Standard_ND96asr_v4"\n'
    )
    out = _masked(text, "nd96-vm-02", "gpu-box-a", "hfischer", _SUB)
    assert '"vmSize": "Standard_ND96asr_v4"' in out, out


def test_ec2_instance_ids_are_the_machines_names() -> None:
    iid = "i-0863b603f9c8929a1"
    text = (
        f"2026-12-04T10:11:12Z WARN spot interruption notice received for {iid}: instance-action terminate\n"
        f'{{"message":"deleted node","provider-id":"aws:///us-west-2a/{iid}"}}\n'
        '"StateReason": {"Code": "Server.SpotInstanceTermination"}\n'
    )
    out = _masked(text, iid)
    assert "instance-action terminate" in out and "Server.SpotInstanceTermination" in out, out


def test_storage_servers_in_df_mount_and_beegfs_check_servers() -> None:
    text = (
        "Filesystem                        Size  Used Avail Use% Mounted on\n"
        "nfs-home01:/export/home           20T   19T  1.0T  95% /home\n"
        "beegfs-stor03 [ID: 3]: UNREACHABLE\n"
        "$ ssh lustre-oss12 'lctl get_param obdfilter.*.stats'\n"
        "nfs-common/jammy-updates,now 1:2.6.1-1ubuntu1.2 amd64 [installed]\n"
        "ceph-osd/jammy-updates 17.2.7-0ubuntu0.22.04.1 amd64\n"
        "LustreError: 11-0: scratch-OST000c-osc-ffff9a8b: operation ost_connect to node 0@lo failed: rc = -19\n"
    )
    out = _masked(text, "nfs-home01", "beegfs-stor03", "lustre-oss12")
    # Packages and Lustre's targets are no machines.
    assert "nfs-common/jammy-updates" in out and "ceph-osd/jammy-updates" in out, out
    assert "scratch-OST000c-osc-ffff9a8b" in out, out


def test_lustre_nids_name_a_server_not_an_account() -> None:
    text = (
        "mds01@tcp:/scratch on /scratch type lustre (rw,flock,lazystatfs)\n"
        "Lustre: MGC10.2.0.1@tcp: Connection restored to mds01@tcp (at 10.2.0.1@tcp)\n"
        "tcp        0      0 0.0.0.0:22              0.0.0.0:*               LISTEN      1021/sshd\n"
    )
    out = _masked(text, "mds01", "10.2.0.1")
    assert "<HOST-1>@tcp:/scratch" in out, out
    # `tcp` was learned as a host and taken from netstat's Proto column.
    assert "\ntcp        0      0 0.0.0.0:22" in out, out
    assert "<USER-" not in out, out


def test_iterm_shell_integration_and_a_title_that_lost_its_escape() -> None:
    text = (
        "\\033]133;D;0\\007\\033]1337;RemoteHost=mateo.iyer@login80\\007\\033]1337;CurrentDir=/home/mateo.iyer/llm\\007\n"
        "]0;hannah21@gpu-node-17: ~/llmhannah21@gpu-node-17:~/llm$ python train.py\n"
        "Traceback (most recent call last):\n"
    )
    out = _masked(text, "mateo.iyer", "login80", "hannah21", "gpu-node-17")
    assert "\\033]1337;RemoteHost=<USER-1>@<HOST-1>\\007" in out, out


def test_a_title_run_into_a_folder_ending_in_a_digit_and_an_address_s_tail() -> None:
    """A prompt run into a folder whose name ends in a digit (`~/llama3hannah21@...`) still
    loses its login; a login glued after an IPv4 address's last digit is left as it stands, so
    that masking it does not make a bounded address for a second pass."""
    text = "]0;hannah21@gpu-node-17: ~/llama3hannah21@gpu-node-17:~/llama3$ python train.py\n"
    out = _masked(text, "hannah21", "gpu-node-17")
    assert "~/llama3<USER-1>@<HOST-1>:~/llama3$" in out, out
    glued = mask("USER=hannah21 see 10.0.0.1hannah21@fe80::1\n").text
    assert mask(glued).text == glued


def test_secret_access_key_in_an_sts_xml_body() -> None:
    secret = "oqW6fwavukRKJJgnaFt/yrEJeVvKq0ZpQ7vR2mK9x"
    text = (
        "2026-12-04 10:11:12,304 botocore.parsers [DEBUG] Response body:\n"
        "b'<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\\n    <Credentials>\\n"
        f"      <AccessKeyId>ASIAZ7QXJ3W5EXAMPLE9</AccessKeyId>\\n      <SecretAccessKey>{secret}</SecretAccessKey>\\n"
        "      <Expiration>2026-12-04T11:11:12Z</Expiration>\\n'\n"
        "  <key>CFBundleIdentifier</key>\n"
        "<Code>InvalidAccessKeyId</Code>\n"
    )
    out = _masked(text, secret, "ASIAZ7QXJ3W5EXAMPLE9")
    assert "<SecretAccessKey><SECRET:aws-secret-key-1></SecretAccessKey>" in out, out
    assert "<key>CFBundleIdentifier</key>" in out and "<Code>InvalidAccessKeyId</Code>" in out, out


def test_s3_canonical_owner_and_gcp_organisation_numbers() -> None:
    canon = "9dda2b5129877b4e350a5dfb4d1f0e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7"
    text = (
        "{'data': b'<ListAllMyBucketsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        f"<Owner><ID>{canon}</ID><DisplayName>ops</DisplayName></Owner>', 'status': 200}}\n"
        "parent:\n"
        "  id: '281890876329'\n"
        "  type: organization\n"
        "projectNumber: '123456789012'\n"
        "lifecycleState: ACTIVE\n"
    )
    out = _masked(text, canon, "281890876329", "123456789012")
    assert "  type: organization" in out and "lifecycleState: ACTIVE" in out, out


def test_multicast_groups_docker_hub_login_and_lines_after_a_gcloud_table_are_kept() -> None:
    text = (
        "\tinet  239.255.255.250\n"
        "mDNS query to 224.0.0.251:5353\n"
        "NCCL INFO NET/IB : Using multicast address 239.1.1.1 for SHARP\n"
        "DEBU[0000] POST https://hub.docker.com/v2/users/login\n"
        "NAME        ZONE           MACHINE_TYPE   PREEMPTIBLE  INTERNAL_IP  EXTERNAL_IP  STATUS\n"
        "a100-ml-07  us-central1-a  a2-highgpu-8g               10.4.2.9               RUNNING\n"
        "Warning: Permanently added the ECDSA host key for IP address to the list of known hosts.\n"
        "azure.core.exceptions.ClientAuthenticationError: DefaultAzureCredential failed to retrieve a token\n"
        "see https://hub.docker.com/v2/users/hfischer/\n"
        "inet 10.4.2.10\n"
    )
    out = _masked(text, "a100-ml-07", "10.4.2.9", "hfischer", "10.4.2.10")
    for kept in (
        "239.255.255.250",
        "224.0.0.251:5353",
        "239.1.1.1 for SHARP",
        "https://hub.docker.com/v2/users/login",
        "Warning: Permanently added the ECDSA",
        "ClientAuthenticationError: DefaultAzureCredential failed",
    ):
        assert kept in out, (kept, out)


def test_ids_and_logins_found_late_are_masked_on_earlier_lines_too() -> None:
    text = (
        f"Selected subscription {_SUB} as the default one.\n"
        "ping hfischer about the quota\n"
        f"az account set --subscription {_SUB}\n"
        "Contact: hfischer@acme-labs.io\n"
        "ops@acme-labs.io will page the on-call\n"
        "the ops team restarted it\n"
    )
    out = _masked(text, _SUB, "hfischer")
    assert out.startswith("Selected subscription <ACCOUNT-1> as the default one.\nping <USER-"), out
    # A team's mailbox teaches no login: the word stays in prose.
    assert "the ops team restarted it" in out, out


def test_netstat_ipv6_rows_keep_their_ports() -> None:
    text = (
        "Proto Recv-Q Send-Q Local Address           Foreign Address         State       PID/Program name\n"
        "tcp6       0      0 :::22                   :::*                    LISTEN      1021/sshd\n"
        "tcp6       0      0 ::1:6379                :::*                    LISTEN      988/redis-server\n"
        "tcp6       0      0 fe80::2:22              :::*                    LISTEN      1021/sshd\n"
        "tcp6       0      0 2001:db8:10::7:29500    2a05:d014:abc::19:51234 ESTABLISHED 48213/python\n"
    )
    out = _masked(text, "2001:db8:10::7", "2a05:d014:abc::19")
    assert "tcp6       0      0 :::22 " in out and "::1:6379" in out, out
    assert "fe80::<IPV6-1>:22 " in out and "<IPV6-2>:29500" in out and "<IPV6-3>:51234" in out, out
