"""A dying 4-rank job, as torchrun --tee prints it: rank 3 runs out of CUDA memory, the others
wait in ALLREDUCE until their watchdog fires. It holds between the two until `go` exists (the
test creates it once the alert is in Slack), so "the alert came first" is a fact, not a race."""

import os
import sys
import time

go, pid_file = sys.argv[1], sys.argv[2]
with open(pid_file, "w") as f:
    f.write(str(os.getpid()))
out, err = sys.stdout, sys.stderr
for rank in range(4):
    out.write(f"[rank{rank}]:node01:33{rank}1:33{rank}5 [{rank}] NCCL INFO comm 0x5581e0b{rank} rank {rank} nranks 4 cudaDev {rank} "
              f"nvmlDev {rank} busId {rank}b000 commId 0x8c3b61f2a1d00e17 - Init COMPLETE\n")
out.write("[rank0]:I1104 10:00:12.665375 3301 ProcessGroupNCCL.cpp:869] [PG 0 Rank 0] ProcessGroupNCCL initialization "
          "options: size: 4, global rank: 0, TIMEOUT(ms): 600000, USE_HIGH_PRIORITY_STREAM: 0, SPLIT_FROM: 0\n")
out.write("[rank0]:{'loss': 1.8123, 'grad_norm': 3.1884, 'learning_rate': 1.98e-05, 'epoch': 0.06}\n")
out.flush()
time.sleep(0.2)  # a real job prints its start-up long before a rank fails
for line in (
    "[rank3]: Traceback (most recent call last):",
    '[rank3]:   File "/workspace/train.py", line 188, in <module>',
    "[rank3]:     trainer.train()",
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU 3 has a total capacity of "
    "79.15 GiB of which 2.87 GiB is free. Process 48211 has 76.27 GiB memory in use. Of the allocated memory 74.02 GiB "
    "is allocated by PyTorch, and 1.71 GiB is reserved by PyTorch but unallocated.",
):
    err.write(line + "\n")
err.flush()
deadline = time.monotonic() + 20
while not os.path.exists(go) and time.monotonic() < deadline:
    time.sleep(0.02)
for rank in (0, 1, 2):
    err.write(f"[rank{rank}]:[E1104 10:12:14.11820{rank} 330{rank} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
              "collective operation timeout: WorkNCCL(SeqNum=2411, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
              "Timeout(ms)=600000) ran for 600041 milliseconds before timing out.\n")
err.flush()
sys.exit(1)
