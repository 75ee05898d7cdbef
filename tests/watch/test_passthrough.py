"""`denpex watch -- CMD`: the child's bytes, exit status and signals, as if it ran alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.watch.child import DRAIN_IDLE_S
from tests.slack.conftest import ROOT, free_port

# Binary junk, a lone CR, invalid UTF-8, a partial line without a newline: all must pass as is.
OUT = b"plain line\n\x00\x01\xff\xfe half" + b"x" * 70_000 + b"\r\n\xe2\x82 no newline at the end"
ERR = b"warning: something\n" + bytes(range(256)) + b"\nlast"


def watch(*cmd: str, env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bot", "watch", *cmd], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def child(code: str) -> list[str]:
    return ["--", sys.executable, "-c", code]


def test_output_passes_through_byte_for_byte_with_the_exit_code() -> None:
    """Odd bytes and all, the output comes out unchanged (--quiet: no lines of ours); exit code 7 stays 7."""
    code = (f"import os,sys; os.write(1, {OUT!r}); os.write(2, {ERR!r}); sys.exit(7)")
    p = watch("--quiet", *child(code))
    out, err = p.communicate(timeout=60)
    assert p.returncode == 7
    assert out == OUT
    assert err == ERR


@pytest.mark.parametrize("quiet", [True, False])
def test_many_small_writes_to_both_streams_pass_through_unchanged(quiet: bool) -> None:
    """Thousands of writes of odd sizes, stdout and stderr interleaved, lines cut anywhere, an
    OOM among them (so matching and an alert run alongside), neither stream ending in a newline:
    each stream comes out as written. Without --quiet our lines go on stderr only between the
    child's lines (the last one after a newline of ours: the child's stderr ended mid-line)."""
    code = (
        "import os, random\n"
        "rng = random.Random(7)\n"
        "text = b''.join(b'[rank%d]:step %d loss 1.%d \\xff\\x00 ' % (i % 8, i, i) + b'x' * rng.randrange(0, 300) + b'\\n'"
        " for i in range(4000))\n"
        "oom = b'[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 5 has a total "
        "capacity of 79.15 GiB of which 2.87 GiB is free.\\n'\n"
        "streams = {1: text + b'stdout tail', 2: text[:200000] + oom + text[200000:] + b'stderr tail'}\n"
        "at = {1: 0, 2: 0}\n"
        "while any(at[fd] < len(streams[fd]) for fd in at):\n"
        "    fd = rng.choice([fd for fd in at if at[fd] < len(streams[fd])])\n"
        "    n = rng.choice([1, 7, 80, 512, 4096, 70000])\n"
        "    os.write(fd, streams[fd][at[fd]:at[fd] + n])\n"
        "    at[fd] += n\n"
        "open(os.environ['EXPECT'] + '.out', 'wb').write(streams[1])\n"
        "open(os.environ['EXPECT'] + '.err', 'wb').write(streams[2])\n"
        "raise SystemExit(3)\n"
    )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        expect = os.path.join(tmp, "expect")
        p = watch(*(["--quiet"] if quiet else []), *child(code), env={"EXPECT": expect})
        out, err = p.communicate(timeout=120)
        assert p.returncode == 3
        assert out == Path(expect + ".out").read_bytes()
        expected_err = Path(expect + ".err").read_bytes()
        if quiet:
            assert err == expected_err
            return
        ours = [line for line in err.splitlines(keepends=True) if line.startswith(b"denpex watch:")]
        theirs = b"".join(line for line in err.splitlines(keepends=True) if not line.startswith(b"denpex watch:"))
        assert theirs == expected_err + b"\n" and ours[-1] == err.splitlines(keepends=True)[-1]
        assert any(b"ALERT: CUDA Out of Memory" in line for line in ours)


@pytest.mark.parametrize("fd", [1, 2])
def test_a_prompt_after_a_burst_reaches_the_reader_while_the_job_waits_for_an_answer(fd: int) -> None:
    """The job writes lines without pause (the pump gathers them), then a prompt with no newline,
    and waits on its stdin: the prompt reaches our reader while the job waits, not once it writes
    again or ends. A pump that held gathered output back for more (or a whole line) would leave
    both waiting: the job gives up after 30 s with exit code 9 and the prompt comes too late."""
    burst = b"".join(b"[rank%d]:step %d loss 1.25\n" % (i % 8, i) for i in range(3000))
    code = (
        "import os, select, sys\n"
        f"for line in {burst!r}.splitlines(keepends=True):\n    os.write({fd}, line)\n"
        f"os.write({fd}, b'continue? [y/n] ')\n"
        "if not select.select([0], [], [], 30)[0]:\n    sys.exit(9)\n"
        "os.write(1, b'got ' + os.read(0, 100))\n"
        "sys.exit(5)\n"
    )
    p = watch("--quiet", *child(code), stdin=subprocess.PIPE)
    assert p.stdin is not None and p.stdout is not None and p.stderr is not None
    stream = (p.stdout if fd == 1 else p.stderr).fileno()
    seen = b""
    while not seen.endswith(b"continue? [y/n] "):
        piece = os.read(stream, 1 << 16)
        assert piece, seen[-200:]
        seen += piece
    out, err = p.communicate(b"y\n", timeout=60)
    assert p.returncode == 5
    assert seen + (out if fd == 1 else err) == burst + b"continue? [y/n] " + (b"got y\n" if fd == 1 else b"")
    if fd == 2:
        assert out == b"got y\n"


def test_alerts_on_stderr_never_split_a_line_of_the_child() -> None:
    """Our lines go between the child's lines: its own bytes stay in order, each line whole."""
    lines = [b"[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total "
             b"capacity of 79.15 GiB of which 1.10 GiB is free.\n", b"partial ", b"line finished later\n", b"tail\n"]
    code = "import os,time\n" + "".join(f"os.write(2, {c!r}); time.sleep(0.15)\n" for c in lines) + "raise SystemExit(1)"
    p = watch(*child(code))
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1
    ours = [line for line in err.splitlines(keepends=True) if line.startswith(b"denpex watch:")]
    theirs = b"".join(line for line in err.splitlines(keepends=True) if not line.startswith(b"denpex watch:"))
    assert theirs == b"".join(lines)
    assert any(b"ALERT: CUDA Out of Memory" in line for line in ours)
    assert b"partial line finished later\n" in err


def test_a_job_writing_faster_than_the_gathering_serves_is_not_held_back() -> None:
    """Gathering waits GATHER_S between wake-ups that each read up to READ_BYTES: a job writing
    faster than that (a block-buffered dump) would be held back by its full pipe. A full read is
    followed by the next at once. GATHER_S and GATHER_MAX_S are made 0.5 s, so that a pause per
    64 KB read makes the 16 MB job take 128 s, where reading on takes a second or two past
    watch's start-up (tens of seconds on a loaded machine: the bound leaves room for that)."""
    size = 16 << 20
    job = f"import os\nblock = b'x' * 1023 + b'\\n'\nfor _ in range({size >> 20}):\n    os.write(1, block * 1024)\n"
    run = ("import runpy, sys\nimport bot.watch.child as child\nchild.GATHER_S = child.GATHER_MAX_S = 0.5\n"
           f"sys.argv = ['bot', 'watch', '--quiet', '--', sys.executable, '-c', {job!r}]\n"
           "runpy.run_module('bot', run_name='__main__')\n")
    started = time.monotonic()
    p = subprocess.run([sys.executable, "-c", run], cwd=ROOT, stdout=subprocess.PIPE, timeout=280, check=False)
    assert p.returncode == 0 and len(p.stdout) == size and p.stdout == (b"x" * 1023 + b"\n") * (size >> 10)
    assert time.monotonic() - started < 64


def test_a_reader_that_pauses_gets_all_the_output_of_a_job_that_ended_meanwhile() -> None:
    """A job writes a megabyte and exits while our reader (a paused pager) reads nothing for
    longer than the grandchild grace: all of it still comes, none of it is dropped at exit."""
    body = (b"x" * 1023 + b"\n") * 1024
    code = f"import os\nos.write(1, b'ready\\n')\nos.write(1, {body[:1024]!r} * 1024)\n"
    p = watch("--quiet", *child(code))
    assert p.stdout is not None
    # The pipe itself, not a buffered readline: communicate reads the pipe, past any buffer.
    assert os.read(p.stdout.fileno(), 6) == b"ready\n"
    time.sleep(DRAIN_IDLE_S + 2)
    out, _ = p.communicate(timeout=60)
    assert p.returncode == 0 and out == body


def test_a_ctrl_c_while_the_output_waits_for_a_paused_reader_ends_watch() -> None:
    """The job is gone and watch waits for our reader to take the rest of its output: the
    Ctrl-C is watch's own now (there is no job to pass it to), and ends it."""
    line = b"x" * 1023 + b"\n"
    code = f"import os\nos.write(1, b'ready\\n')\nos.write(1, {line!r} * 1024)\n"
    p = watch("--quiet", *child(code))
    _started(p, b"ready")
    time.sleep(3)  # the job has written its megabyte and exited; watch waits on our stdout pipe
    p.send_signal(signal.SIGINT)
    assert p.wait(timeout=30) == 130


def test_a_grandchild_holding_the_pipes_open_does_not_keep_watch_waiting() -> None:
    """The job starts a background process that inherits its stdout and exits: watch ends soon
    after, with the job's output and exit code, while the grandchild still runs."""
    code = ("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; print(\"grandchild\", flush=True); "
            "time.sleep(60)'])\nprint('job done', flush=True)\nsys.exit(4)")
    started = time.monotonic()
    p = watch("--quiet", *child(code))
    assert p.stdout is not None
    out = b""
    while b"grandchild" not in out or b"job done" not in out:
        line = p.stdout.readline()
        assert line, out
        out += line
    assert p.wait(timeout=60) == 4
    assert time.monotonic() - started < DRAIN_IDLE_S + 30


def _started(p: subprocess.Popen, marker: bytes) -> None:
    assert p.stdout is not None
    got = p.stdout.readline()
    assert got.strip() == marker, got


def test_sigterm_reaches_the_child_and_its_exit_code_comes_back() -> None:
    code = ("import signal,sys,time\n"
            "signal.signal(signal.SIGTERM, lambda *a: (print('child got SIGTERM', flush=True), sys.exit(3)))\n"
            "print('ready', flush=True)\ntime.sleep(30)")
    p = watch(*child(code))
    _started(p, b"ready")
    p.send_signal(signal.SIGTERM)
    out, _ = p.communicate(timeout=30)
    assert b"child got SIGTERM" in out
    assert p.returncode == 3


def test_a_child_killed_by_sigint_kills_the_watcher_the_same_way() -> None:
    """SIGINT forwarded once; a child that dies of it makes watch die of it too."""
    code = "import signal,time\nsignal.signal(signal.SIGINT, signal.SIG_DFL)\nprint('ready', flush=True)\ntime.sleep(30)"
    p = watch(*child(code))
    _started(p, b"ready")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == -signal.SIGINT
    assert b"job ended" not in err  # stopped by a person, nothing found: not a failure to report


def test_an_unreachable_bot_leaves_the_job_alone() -> None:
    """The alert is on stderr, delivery is retried in the background, the job's exit code is kept."""
    code = ("import sys\nsys.stderr.write('[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
            "GPU 0 has a total capacity of 79.15 GiB of which 1.10 GiB is free.\\n')\nprint('done')\nsys.exit(1)")
    env = {"DENPEX_ALERT_URL": f"http://127.0.0.1:{free_port()}", "DENPEX_ALERT_TOKEN": "dpx1.T0TEST001." + "a" * 43}
    started = time.monotonic()
    p = watch("--flush-wait", "1.5", *child(code), env=env)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 1 and out == b"done\n"
    assert b"ALERT: CUDA Out of Memory" in err
    assert b"retrying in the background" in err and b"not delivered" in err
    assert b"a" * 43 not in err  # the token is never printed
    assert time.monotonic() - started < 20


def test_usage_errors_are_one_clear_line(tmp_path: Path) -> None:
    p = watch("--to", "http://127.0.0.1:9", *child("pass"))
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and b"--token (or DENPEX_ALERT_TOKEN) is missing" in err
    p = watch("--", str(tmp_path / "no-such-program"))
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and b"cannot run" in err
    p = watch()
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and b"nothing to watch" in err


def test_a_job_without_the_separator_is_pointed_at_it() -> None:
    """`denpex watch python train.py` would follow a file named `python`: say how to run it."""
    p = watch("python3", "train.py")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 2 and b"put it after `--`: denpex watch -- python3 train.py" in err
