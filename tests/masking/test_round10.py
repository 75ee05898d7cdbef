"""Round 10 (masking coverage round 8): what a corpus of ML-ops terminals (W&B and MLflow
logs, Hydra dumps, SkyPilot, dstack, Modal, VS Code tunnels, conda, ssh, git, Slack threads)
still leaked. Lines are shaped as the tools print them: OpenSSH's `ssh -v`, git's scp-like
remotes, `code tunnel` and Remote-SSH logs, `modal token set`, `conda info`, dstack's run plan."""

from __future__ import annotations

from bot.masking import Masker, mask
from bot.terminal import without_terminal_codes


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


def test_ssh_target_is_a_user_at_a_host_not_an_email() -> None:
    log = (
        "$ ssh -v hfischer@login01.ridgeline.io\n"
        "$ ssh -J hfischer@jump.ridgeline.io -i ~/.ssh/id_ed25519 hfischer@gpu07.ridgeline.io nvidia-smi\n"
        "contact hfischer@ridgeline.io for ssh access\n"
    )
    out = _mask_log(log)
    assert out.splitlines()[0] == "$ ssh -v <USER-1>@<HOST-1>", out
    assert out.splitlines()[1] == "$ ssh -J <USER-1>@<HOST-2> -i ~/.ssh/id_ed25519 <USER-1>@<HOST-3> nvidia-smi", out
    assert out.splitlines()[2] == "contact <EMAIL-1> for ssh access", out  # prose keeps its address


def test_git_scp_like_remote_masks_the_host_and_keeps_git() -> None:
    line = "upstream\tgit@git.ridgeline.io:ml/megatron-fork.git (fetch)\n"
    assert mask(line).text == "upstream\tgit@<HOST-1>:ml/megatron-fork.git (fetch)\n"


def test_hosts_under_country_suffixes_are_masked() -> None:
    log = (
        'debug1: Authenticating to bastion6.corp.ridgeline-ai.de:22 as \'hfischer\'\n'
        "Submitted from gpu1.kyoto-u.ac.jp and login2.hpc.uni-heidelberg.de\n"
    )
    out = _mask_log(log)
    for host in ("bastion6.corp.ridgeline-ai.de", "gpu1.kyoto-u.ac.jp", "login2.hpc.uni-heidelberg.de"):
        assert host not in out, out


def test_parallel_corpus_file_names_under_language_codes_survive() -> None:
    text = "reading newstest2014.en-de.de train.tok.de wmt16.de-en.de corpus.clean.fr europarl-v7.fr-en.fr\n"
    assert mask(text).text == text


def test_vscode_tunnel_and_remote_ssh_name_the_machine() -> None:
    log = (
        "2025-09-01 10:11:02.901 [info] tunnel Spawning: /opt/vscode/code-cli tunnel --accept-server-license-terms --log info --name trn180 --parent-process-id 21212\n"
        "2025-09-01 10:11:03.404 [info] [2025-09-01 10:11:03] info Creating tunnel with the name: trn180\n"
        "2025-09-01 10:11:03.405 [info] Open this link in your browser https://vscode.dev/tunnel/trn180/workspace\n"
        '[10:14:12.556] SSH Resolver called for "ssh-remote+gpubox", attempt 1\n'
        '[10:14:13.101] > Authenticated to jumpbox ([10.1.1.1]:22) using "publickey".\n'
        "$ docker run --name trainer nvcr.io/nvidia/pytorch:24.07-py3\n"
    )
    out = _mask_log(log)
    for host in ("trn180", "gpubox", "jumpbox"):
        assert host not in out, out
    assert "--name trainer" in out  # docker's container name is no machine


def test_a_number_offered_in_prose_is_a_phone() -> None:
    line = "Could you drain it? My number is +91 92110 80956 if it is easier to call.\n"
    assert mask(line).text == "Could you drain it? My number is <PHONE-1> if it is easier to call.\n"
    counts = "number of parameters: 7241732096\nnumber 1234567 of 99\n"
    assert mask(counts).text == counts


def test_modal_token_pair_is_masked_wherever_it_shows() -> None:
    log = (
        "$ modal token set --token-id ak-Qm7vX2pLr9TnB4kZw8JcYd --token-secret as-H3fN8qWzL1xVt6RpK9mBcS\n"
        "$ cat ~/.modal.toml\n"
        "[default]\n"
        'token_id = "ak-Qm7vX2pLr9TnB4kZw8JcYd"\n'
        'token_secret = "as-H3fN8qWzL1xVt6RpK9mBcS"\n'
    )
    out = _mask_log(log)
    assert "Qm7vX2pLr9TnB4kZw8JcYd" not in out and "H3fN8qWzL1xVt6RpK9mBcS" not in out, out
    assert 'token_id = "<SECRET:modal-token-1>"' in out


def test_conda_channel_token_on_a_private_server_is_masked_and_forum_slugs_kept() -> None:
    log = (
        "           channel URLs : https://conda.ridgeline.io/t/BzNGPAdzhMaFcZFA8Q0EbTe9GPrmZ94r/ml-internal/linux-64\n"
        "                          https://conda.anaconda.org/conda-forge/linux-64\n"
        "see https://discuss.pytorch.org/t/cuda-out-of-memory-error-when-training/12345\n"
    )
    out = _mask_log(log)
    assert "BzNGPAdzhMaFcZFA8Q0EbTe9GPrmZ94r" not in out, out
    assert "/t/<SECRET:anaconda-token-1>/ml-internal/linux-64" in out
    assert "https://discuss.pytorch.org/t/cuda-out-of-memory-error-when-training/12345" in out


def test_dstack_run_plan_user_is_masked() -> None:
    log = (
        "$ dstack apply -f .dstack.yml\n"
        " Project              main\n"
        " User                 meilin\n"
        " Configuration        .dstack.yml\n"
        " Type                 task\n"
    )
    out = _mask_log(log)
    assert " User                 <USER-1>\n" in out, out
    assert " Project              main\n" in out


def test_hyphenated_given_names_are_masked_alone_after_the_full_name() -> None:
    # A Slack thread: the full name heads the first message, the given name a later one.
    log = "Anne-Marie Smith-Jones  10:42 AM\nthe eval job fails\nSeo-yeon Kim  10:45 AM\nHi Anne-Marie, retrying\nSeo-yeon  10:49 AM\nthx!\n"
    out = _mask_log(log)
    assert "Anne-Marie" not in out and "Seo-yeon" not in out, out


def test_account_number_printed_by_a_query_is_masked() -> None:
    # ECR login scripts: the bare number under the command is all `--output text` prints.
    log = "$ aws sts get-caller-identity --query Account --output text\n158518675395\n$ echo 158518675395 done\n"
    out = _mask_log(log)
    assert "158518675395" not in out.splitlines()[1], out
    plain = "$ aws ec2 describe-instances --query 'Reservations[].Instances[].InstanceId' --output text\ni-0abc\n"
    assert mask(plain).text == plain


def test_hostname_file_printed_by_cat_is_masked() -> None:
    assert mask("$ cat /etc/hostname\ntrn141\n").text == "$ cat /etc/hostname\n<HOST-1>\n"


def test_docker_config_json_printed_from_a_secret_is_masked() -> None:
    # `kubectl get secret regcred -o jsonpath='{.data.\.dockerconfigjson}'` prints base64 of
    # `{"auths": {"registry...": {"username": ..., "password": ..., "auth": ...}}}`.
    value = "eyJhdXRocyI6IHsicmVnaXN0cnkucXVhbnRhZmxvdy5haSI6IHsidXNlcm5hbWUiOiAib21hciIsICJwYXNzd29yZCI6ICJQVyIsICJhdXRoIjogIlgifX19"
    log = "$ kubectl get secret regcred -o jsonpath='{.data.\\.dockerconfigjson}'\n" + value + "\n"
    out = mask(log).text
    assert value not in out and "<SECRET:docker-auth-1>" in out, out


def test_slack_export_profile_names_are_masked() -> None:
    log = '      "real_name": "Mei Lin",\n      "display_name": "meilin",\n      "realName": "Kofi Boateng"\n'
    out = _mask_log(log)
    assert "Mei Lin" not in out and "Kofi Boateng" not in out, out


def test_names_in_caseless_scripts_and_with_inner_capitals_are_masked() -> None:
    log = (
        "Author:     محمد العتيبي <malotaibi@ridgeline.io>\n"
        "Triggered by Siobhán O'Connor\n"
        "Triggered by Ronan McDonald\n"
        "contact the admin team <ops@ridgeline.io>\n"
    )
    out = _mask_log(log)
    for name in ("محمد", "O'Connor", "McDonald"):
        assert name not in out, out
    assert "contact the admin team <" in out  # prose before an address is no name


def test_url_password_with_an_unencoded_question_mark_is_masked() -> None:
    line = "pip install --index-url https://hfischer:Sunflower1994?@nexus.ridgeline.io/repository/pypi/simple x\n"
    out = mask(line).text
    assert "Sunflower1994" not in out and "hfischer" not in out, out
    query = "see https://forms.ridgeline.io/?ref=docs\n"
    assert "?ref=docs" in mask(query).text


def test_terminal_codes_written_as_escapes_are_taken_out_for_slack() -> None:
    """A notebook's JSON (`\\u001b[0;31m`), a repr (`\\x1b[31m`), a script (`\\033[1m`, `\\e[0m`):
    out of what Slack shows; a backslash before anything else stays."""
    text = r'"\u001b[0;31mOutOfMemoryError\u001b[0m: CUDA" \x1b[31mred\033[1m \e[0m C:\new\x1\e['
    assert without_terminal_codes(text) == r'"OutOfMemoryError: CUDA" red  C:\new\x1\e['
