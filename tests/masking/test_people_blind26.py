"""People a twenty-sixth blind corpus (personal data in git, CI, tracker, chat and Hub output)
found kept, or found where there was none:

- `git log --format=...` prints authors with no label: the format on the command line says
  where the name stands (`%an <%ae>`, `%h %an %s`, `%an, %ar : %s`, `%h%x09%an`), and
  `git blame --porcelain` prints `author <name>` above `author-mail` (bot/masking/names.py).
- A tracker's side panel copied without colons (`Assignee    Hannah Fischer`), Jira's history
  (`<name> changed the status to ...`), GitLab's `triggered by <login> (<name>)` and
  `triggered 2 hours ago by <name>` (bot/masking/names.py).
- Sign-offs: `Thanks, Evander`, `— Wei`, `Best,` above the name; `Hyun-woo (on-call)`; a
  message opening with two given names (`Juan Carlos, ...`); hyphenated given names
  (`Jean-Luc`, `Anne-Marie`) and family names in a Teams header (`El-Amin, Youssef`).
- Hub owners a person's login by its shape (`petrovicm8`, `mbrandstetter85`, `schulzha`,
  `seoyeon_kim`) and in `repo_id=`, `load_dataset(...)`, `huggingface-cli upload` (people.py).
- Kept: `Ms Word`, `the Prof said`, `cc: Training Loss dashboard`, `allenai/c4`, `hkunlp`.
All values are synthetic, in the real formats.
"""

from __future__ import annotations

import pytest

from bot.masking import Masker, mask


def _mask_log(text: str) -> str:
    """As `denpex mask` does: learn from the whole log, then mask it."""
    masker = Masker()
    masker.learn(text.encode())
    return str(masker.mask(text))


@pytest.mark.parametrize(
    ("log", "names"),
    [
        (
            "$ git log --format='%an <%ae>' -3\n"
            "Xiaoming Liu <xliu@corp.example.org>\n"
            "Chiamaka Okonkwo <c.okonkwo@corp.example.org>\n"
            "Hannelore Schulze-Berg <hsb@corp.example.org>\n",
            ["Xiaoming Liu", "Chiamaka Okonkwo", "Hannelore Schulze-Berg"],
        ),
        ("$ git log --format=%an -n 20 | sort -u\nRadoslaw Zielinski\nSneha Iyengar\n", ["Radoslaw Zielinski", "Sneha Iyengar"]),
        (
            "$ git log --pretty=format:'%h %an %s' -3\n"
            "9f3c2a1 Takumi Hasegawa Fix NaN loss with bf16 autocast\n"
            "4be81d0 Ji-woo Park bump transformers to 4.46.2\n"
            "77aa0c3 Ana de la Cruz Add Qwen2 tokenizer\n",
            ["Takumi Hasegawa", "Ji-woo Park", "Ana de la Cruz"],
        ),
        (
            "+ git log -1 --format='%an, %ar : %s'\nJean-Luc Martin-Roche, 3 days ago : pin deepspeed==0.15.4\n",
            ["Jean-Luc Martin-Roche"],
        ),
        ("$ git log --format='%h%x09%an%x09%ad' --date=short -1\n3f2a1b9\tBabajide Ogunleye\t2026-11-02\n", ["Babajide Ogunleye"]),
        ("$ git log --format='%aN' | sort | uniq -c | sort -rn\n     42 Mehmet Yildirim\n      3 Elif Kaya\n", ["Mehmet Yildirim", "Elif Kaya"]),
    ],
)
def test_git_log_format_authors_are_masked(log, names):
    out = mask(log).text
    for name in names:
        assert all(part not in out for part in name.split() if len(part) > 3), out
    assert out.splitlines()[0] == log.splitlines()[0]  # the command line stays


def test_git_log_format_keeps_the_subject_bots_and_the_output_after_it():
    log = (
        "$ git log --pretty=format:'%h %an %s' -3\n"
        "9f3c2a1 Takumi Hasegawa Fix OOM in DeepSpeed stage 3\n"
        "ab12cd3 dependabot[bot] Bump torch from 2.4.0 to 2.4.1\n"
        "$ python train.py\n"
        "Traceback (most recent call last):\n"
        "Killed\n"
    )
    out = mask(log).text
    assert "9f3c2a1 <NAME-1> Fix OOM in DeepSpeed stage 3\n" in out
    assert "ab12cd3 dependabot[bot] Bump torch from 2.4.0 to 2.4.1\n" in out
    assert out.endswith("$ python train.py\nTraceback (most recent call last):\nKilled\n")


def test_git_blame_porcelain_author_and_committer_are_masked():
    log = (
        "$ git blame --porcelain -L 88,88 trainer.py\n"
        "5e1b0c7d2f9a4e6b8c3d1a0f7e2b9c4d6a8f1e3b 88 88 1\n"
        "author Milena Petrovic\n"
        "author-mail <milena.petrovic@corp.example.org>\n"
        "author-time 1764921601\n"
        "author-tz +0100\n"
        "committer GitHub\n"
        "committer-mail <noreply@github.com>\n"
        "summary Clip grad_norm before the optimizer step\n"
    )
    out = mask(log).text
    assert "Milena" not in out and "Petrovic" not in out
    assert "author <NAME-1>\nauthor-mail <<EMAIL-1>>\n" in out
    assert "committer GitHub\ncommitter-mail <noreply@github.com>\n" in out


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Assignee    Oleksandr Kovalenko\n", "Assignee    <NAME-1>\n"),
        ("Reporter\tAnne-Marie Dubois\n", "Reporter\t<NAME-1>\n"),
        ("Funmilayo Bakare changed the status to In Review\n", "<NAME-1> changed the status to In Review\n"),
        ("Kaveh Rostami made changes - 04/Dec/26 10:41 AM\n", "<NAME-1> made changes - 04/Dec/26 10:41 AM\n"),
        ("triggered by ogunleyeb1 (Babajide Ogunleye)\n", "triggered by <USER-1> (<NAME-1>)\n"),
        ("Pipeline #48213 triggered 2 hours ago by Ingrid Halvorsen\n", "Pipeline #48213 triggered 2 hours ago by <NAME-1>\n"),
    ],
)
def test_tracker_and_ci_actors_are_masked(line, expected):
    assert mask(line).text == expected


@pytest.mark.parametrize(
    "line",
    [
        "Owner    Data Platform\n",
        "Training Loss changed the scale after warmup\n",
        "Triggered by push (Pull Request)\n",
    ],
)
def test_tracker_shapes_without_a_person_stay(line):
    assert mask(line).text == line


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("Thanks, Evander\n", "Evander"),
        ("thanks, Priyanka!\n", "Priyanka"),
        ("Regards,\n— Quentin\n", "Quentin"),
        ("Best,\nThandiwe\n", "Thandiwe"),
        ("Hyun-woo (on-call) is looking at node health now\n", "Hyun-woo"),
        ("    Juan Carlos, could you check the Qwen run?\n", "Juan Carlos"),
        ("[10:47 AM] El-Amin, Youssef\n", "El-Amin"),
        ("Jean-Luc (on-call) is looking at the NCCL timeouts\n", "Jean-Luc"),
        ("@Juan Carlos Pérez Gómez the Falcon job OOMs again\n", "Gómez"),
    ],
)
def test_thread_sign_offs_and_headers_mask_the_person(text, gone):
    out = mask(text).text
    assert gone not in out and "<NAME-1>" in out


def test_a_spanish_name_teaches_its_two_given_names():
    out = _mask_log("Assignee: Juan Carlos Pérez Gómez\n\non it, Juan Carlos. will bump the clipping\n")
    assert "Juan" not in out and "Carlos" not in out


@pytest.mark.parametrize(
    "text",
    [
        "Exported the Eval Loss table to Ms Word for the review\n",
        "the Prof said the Falcon baseline is fine\n",
        "    cc: Training Loss dashboard\n",
        "Platform (on-call) paged at 03:10\n",
        "Best\nTraining\n",
        "Thanks, Training\n",
    ],
)
def test_words_that_name_no_one_stay(text):
    assert mask(text).text == text


@pytest.mark.parametrize(
    "line",
    [
        "Repository Not Found for url: https://huggingface.co/api/models/petrovicm8/qwen2-7b-lora/revision/main.\n",
        "OSError: mbrandstetter85/llama-3-8b-sft is not a local folder and is not a valid model identifier\n",
        "https://huggingface.co/schulzha/gemma-2b-dpo\n",
        '    api.upload_folder(folder_path="out", repo_id="seoyeon_kim/falcon-7b-qlora", repo_type="model")\n',
        '  ds = load_dataset("fatima_haddad/chat-sft", split="train")\n',
        "datasets.exceptions.DatasetNotFoundError: Dataset 'nguyent1/chat-sft' doesn't exist on the Hub or cannot be accessed.\n",
        "$ huggingface-cli upload subramanianv6/falcon-7b-qlora ./checkpoints/final .\n",
        "$ huggingface-cli download --repo-type dataset schulzha/chat-sft\n",
    ],
)
def test_personal_hub_owners_are_masked(line):
    out = mask(line).text
    assert "<USER-1>/" in out


@pytest.mark.parametrize(
    "line",
    [
        '  ds = load_dataset("allenai/c4", "en")\n',
        "https://huggingface.co/hkunlp/instructor-large\n",
        'repo_id="sentence-transformers/all-MiniLM-L6-v2"\n',
        "$ hf download Qwen/Qwen2.5-7B-Instruct\n",
        "https://huggingface.co/meta-llama/Meta-Llama-3-8B\n",
    ],
)
def test_organisations_on_the_hub_stay(line):
    assert mask(line).text == line
