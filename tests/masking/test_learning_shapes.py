"""Learning reads one snippet of each shape: lines that differ only in digits, hex ids or
base64 ids teach once. What must still be learned: a name that differs from one already read
in letters that happen to be hex digits, and every line that holds an anchor word."""

from __future__ import annotations

import random

from bot.literals import LinesWith, Words
from bot.masking import Masker


def _request_lines(rng: random.Random, login: str, n: int) -> str:
    """A server's request lines, a new random id on each, and the user's prompt directory."""
    return "".join(
        f"(APIServer pid=2475703) INFO 11-30 01:07:{i % 60:02d} Received request chatcmpl-{rng.getrandbits(128):032x}: "
        f"prompt file /home/{login}/prompts/p{i}.json, params: SamplingParams(max_tokens=4096, stop_token_ids=[])\n"
        for i in range(n)
    )


def test_a_login_that_differs_only_in_hex_letters_is_learned_in_a_request_id_flood() -> None:
    """`dana` and `edna` differ only in letters that are hex digits: their request lines are
    alike with every hex digit read as 0, yet `edna`'s teach a name `dana`'s did not."""
    rng = random.Random(7)
    masker = Masker()
    masker.learn(_request_lines(rng, "dana", 300).encode())
    masker.learn(_request_lines(rng, "edna", 300).encode())
    out = masker.mask("dana and edna share the node\n")
    assert "dana" not in out and "edna" not in out, out


def test_a_request_id_flood_learns_the_name_on_its_first_line_and_in_a_later_piece() -> None:
    """The first request line of a login teaches it, and a later piece's lines of another id
    still count as read (the name is masked, its placeholder kept)."""
    rng = random.Random(11)
    masker = Masker()
    for _ in range(3):
        masker.learn(_request_lines(rng, "hfischer7", 200).encode())
    first = masker.mask("hfischer7 owns it\n")
    again = masker.mask("ask hfischer7\n")
    assert "hfischer7" not in first and first.split()[0] in again, (first, again)


def test_teaching_lines_are_the_lines_with_an_anchor_word() -> None:
    """One line end for each line that holds a word, however many it holds; `nodes ` glued to
    a letter is no word of its own; a word that holds its line end ends that line; a last
    line without a newline ends at the end of the data."""
    words = ["token", "user", "nodes ", " am\n"]
    finder = LinesWith(words, not_after_letter=("nodes ",))
    data = (
        b"max_tokens=16 stop_token_ids=[] <|im_start|>user\n"
        b"nRanks 16 nNodes 2 localRanks 8\n"
        b"Nodes gpu1,gpu2 are down\n"
        b"nothing here\n"
        b"at 10:42 AM\n"
        b"USER=alice"
    )
    lines = data.split(b"\n")
    ends = finder.ends(data)
    assert [data[data.rfind(b"\n", 0, end) + 1 : end] for end in ends] == [lines[0], lines[2], lines[4], lines[5]]
    # The lines `Words` finds a word on, read one by one, are the same.
    every = Words(words)
    assert [i for i, line in enumerate(lines) if every.find(line + b"\n")] == [0, 1, 2, 4, 5]  # (`nNodes ` too)


def test_two_base64_values_under_one_secret_key_are_both_learned() -> None:
    """Padded base64 ids of lines of one shape are read as one (S3's `x-amz-id-2`), but not
    under a secret's key: the second password, in a later piece, is a value of its own, and
    where it recurs bare it is masked."""
    first, second = "QWxpY2VTZWNyZXQxMjM0NTY3OA==", "Qm9iU2VjcmV0OTg3NjU0MzIxMA=="
    masker = Masker()
    masker.learn(f"step 1\ndb_password: {first}\nstep 2\n".encode())
    masker.learn(f"step 3\ndb_password: {second}\nstep 4\n".encode())
    out = masker.mask(f"+ echo {second} | base64 -d\n+ echo {first} | base64 -d\n")
    assert first not in out and second not in out, out
