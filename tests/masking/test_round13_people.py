"""Round 13 (issue #16): personal data a blind corpus of ML logs still leaked.

A seeded corpus of training-log snippets with planted personal data (gcloud, MLflow, W&B,
Kaggle, pasted mail and Slack threads, tickets) was written apart from the repository and is
not kept here. These rows are its leaks, shaped as the tools print them (values synthetic),
each with what must stay beside it: the project's, experiment's or run's own words, model
names, versions, ports, dates and ids that look like numbers.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker


def _mask_log(text: str) -> str:
    # As `denpex mask` reads a log: learned whole first, then masked.
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


@pytest.mark.parametrize(
    ("log", "gone", "kept"),
    [
        # gcloud config list, then the project id where gcloud and the SDK print it again.
        (
            "$ gcloud config list\n[core]\naccount = svc@example.org\nproject = crossi-playground-683\n\n"
            "$ gcloud compute ssh tpu-vm-1 --zone us-central2-b --project crossi-playground-683\n"
            " - The resource 'projects/crossi-playground-683/zones/us-central2-b/instances/tpu-vm-1' was not found\n",
            ("crossi",),
            ("-playground-683", "us-central2-b", "tpu-vm-1"),
        ),
        # A given and a family name in a project id, and its bucket.
        (
            "project = aisha-iyer-sandbox\n$ gsutil cp gs://aisha-iyer-sandbox-ckpt/step_4200/model.safetensors .\n",
            ("aisha", "iyer"),
            ("-sandbox", "step_4200/model.safetensors"),
        ),
        ("export GOOGLE_CLOUD_PROJECT=hfischer-ml-dev\n", ("hfischer",), ("-ml-dev",)),
        # MLflow: the server refuses an experiment named after its owner's login.
        (
            "mlflow.exceptions.RestException: RESOURCE_ALREADY_EXISTS: Experiment 'nvolkov-gpt2-sweep' already exists.\n",
            ("nvolkov",),
            ("RESOURCE_ALREADY_EXISTS", "-gpt2-sweep' already exists."),
        ),
        # W&B and MLflow print the run's name: a given name and the model.
        (
            "wandb: Syncing run felipe-llama-sweep-17\n"
            "2024/03/12 14:04:01 INFO mlflow.tracking._tracking_service.client: View run felipe-run-10 at: "
            "http://127.0.0.1:5000/#/experiments/546/runs/2fad679e96f4076ddac2468841c04f74\n",
            ("felipe",),
            ("-llama-sweep-17", "-run-10", "2fad679e96f4076ddac2468841c04f74", ":5000/#/experiments/546"),
        ),
        # Kaggle: a data set's and a notebook's owner.
        (
            "$ kaggle datasets download -d oluwaseunadeyemi51/imagenet-subset-224\n"
            "See https://www.kaggle.com/code/oluwaseunadeyemi51/train-vit-baseline\n",
            ("oluwaseunadeyemi51",),
            ("/imagenet-subset-224", "/train-vit-baseline", "kaggle datasets download -d"),
        ),
        # North American phone numbers with no label, in each way they are written.
        (
            "on-call this week: Sam (415-802-2362) - page if the sweep dies\n"
            "Contact: +1-512-492-1701\nor (303) 559-1056, or 212.263.8161, fax 1 650 377 5624\n",
            ("802-2362", "492-1701", "559-1056", "263.8161", "377 5624"),
            ("on-call this week", "Contact: "),
        ),
        # Slack's member ids in a pasted message's source.
        (
            "hey <@U040J176AX> can you look at this? and <@W0123ABCDE|hannah>\n",
            ("U040J176AX", "W0123ABCDE", "hannah"),
            ("can you look at this?",),
        ),
        # A ticket's `Reported by:` field, and a letter's `Dear <given name>,`.
        (
            "Reported by: Astrid Carvalho (Employee ID: E123456)\nDear Ingrid,\nthe job died again.\n",
            ("Astrid", "Carvalho", "Ingrid"),
            ("Reported by: ", "the job died again."),
        ),
        # gcloud's own setter, images under the project, the console's query.
        (
            "$ gcloud config set project priya-sandbox\n"
            "docker push gcr.io/hfischer-ml-dev/trainer:latest\n"
            "docker pull us-central1-docker.pkg.dev/tanaka-yuki-exp/llm/trainer:v3\n"
            "https://console.cloud.google.com/vertex-ai/training?project=mbrandt-sandbox\n",
            ("priya", "hfischer", "tanaka", "yuki", "mbrandt"),
            ("-sandbox", "-ml-dev/trainer:latest", "-exp/llm/trainer:v3", "us-central1-docker.pkg.dev/"),
        ),
        # wandb's closing `Synced <run>: <url>`; a scheduler's `Submitted by <login> on`; RCC's PI account.
        (
            "wandb: Synced hannah-llama-sweep-3: https://wandb.ai/acme-ml/llama/runs/abc123\n"
            "Submitted by kwame.mensah on 2024-03-12\nsrun --account=pi-jsmith --partition=gpu\n",
            ("hannah", "kwame", "mensah", "jsmith"),
            ("-llama-sweep-3:", "on 2024-03-12", "--partition=gpu"),
        ),
        # Greetings: good morning, two people at once, a message opening with a given name.
        (
            "Good morning Beatriz,\nHi Olivia and Marcus,\nHannah, can you look at this? it died again\n",
            ("Beatriz", "Olivia", "Marcus", "Hannah"),
            ("Good morning ", "can you look at this? it died again"),
        ),
        # A contact line names the person beside the number: a given name alone, or in full.
        (
            "on-call this week: Felipe (415-802-2362) - page if the sweep dies\n"
            "# backup: Chiara Adeyemi  phone: +44 20 7946 0958\n",
            ("Felipe", "Chiara", "Adeyemi", "802-2362", "7946 0958"),
            ("on-call this week: ", "- page if the sweep dies", "# backup: ", "phone: "),
        ),
        # A signature with an international number and no label.
        ("Hannah Fischer, +44 20 7946 0958\n", ("Hannah", "Fischer", "7946 0958"), (", ",)),
        # People's own machines named in prose; Git Bash's prompt.
        (
            "Starting Jupyter on tomasz-desktop:8888\nssh into Hannahs-MacBook-Pro.local failed\n"
            "hfischer@DESKTOP-7QK2L9M MINGW64 ~/llm (main)\n",
            ("tomasz", "Hannahs", "hfischer", "DESKTOP-7QK2L9M"),
            (":8888", "ssh into ", " MINGW64 ~/llm (main)"),
        ),
        # Employee and badge numbers under their labels.
        ("Employee #: 4471923\nBadge ID: B-77120\n", ("4471923", "77120"), ("Employee #: ", "Badge ID: ")),
    ],
)
def test_personal_words_are_masked(log: str, gone: tuple[str, ...], kept: tuple[str, ...]) -> None:
    masked = _mask_log(log)
    for value in gone:
        assert value not in masked, masked
    for value in kept:
        assert value in masked, masked


@pytest.mark.parametrize(
    "line",
    [
        # Projects, experiments and runs named for what they are, not for whom.
        "project = acme-ml-prod\n",
        "$ gcloud compute tpus list --project ml-platform-prod\n",
        "mlflow.exceptions.RestException: RESOURCE_ALREADY_EXISTS: Experiment 'llama-sft-sweep' already exists.\n",
        "wandb: Syncing run glorious-sun-42\n",
        "wandb: Syncing run llama-7b-lora-r16\n",
        "$ kaggle competitions download -c titanic\n",
        # Numbers grouped unlike a phone's: dates, versions, ids, shapes, ranges.
        "2024-03-12 14:03:22 step 4200/10000 loss 2.0134\n",
        "nvidia-cudnn-cu12==8.9.2.26 cuda 12.4.127 driver 535.104.05\n",
        "job 4821734 array 100-200 ports 29500-29510 size 4155550134 bytes\n",
        "uuid 5f3a2b1c-9d8e-7f6a-5b4c-3d2e1f0a9b8c\n",
        "mlp hidden sizes 256-512-1024, heads 384.768.1536, warmup 250-500-1000 steps\n",
        # Lines opened by a capitalised word and a comma that names no one; greetings of a team.
        "Note, the loss is NaN from step 4200\nTraceback, as printed:\nGood morning all,\nHi team and everyone,\n",
        "Created by default on 2024-03-12\n",
        # A contact line's other capitalised words: tools, teams.
        "Mobile: Support Team\nemail Lightning Ray Adam Triton\n",
        "step 4200 +1.5 loss, lr 3e-4 +0.25 warmup\n",
        "gpu-box build-pc dgx-workstation home-pc test-ws lab-desktop\n",
    ],
)
def test_what_names_no_one_survives(line: str) -> None:
    assert _mask_log(line) == line


@pytest.mark.parametrize("before", ["", "Connecting to the login node\n", "[rank0]: set up done\n"],
                         ids=["first-line", "later-line", "after-a-rank-line"])
def test_an_ssh_destination_on_any_line_is_a_user_and_a_host(before: str) -> None:
    """`ssh alice@host` is a login and a machine wherever the line stands in the piece (its
    command was read only on the piece's first line, and later ones became an e-mail)."""
    out = _mask_log(before + "ssh -p 2222 dkowalski@login07.hpc.example.edu\n")
    assert "dkowalski" not in out and "login07" not in out
    assert "<USER-1>@<HOST-1>" in out and "<EMAIL" not in out
