"""Loopback ports for the servers the tests start (redis-server, the bot, stand-ins)."""

from __future__ import annotations

import random
import socket
from pathlib import Path


def _ephemeral_ports() -> tuple[int, int]:
    """The range the kernel picks a client socket's local port from."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


_PICK = random.SystemRandom()  # not the seeded `random`: xdist workers must not pick alike


def free_port(with_bus: bool = False) -> int:
    """A loopback TCP port nobody listens on right now.

    with_bus: also keep port + 10000 free and valid, as a cluster node needs it for its bus.

    Both come from below the ephemeral range where there is room: a port in that range can be
    taken by any client socket's connect() between this check and the server's bind (a cluster
    node once failed with `bind: Address already in use` on its bus port that way).
    """
    low = _ephemeral_ports()[0]
    top = low - 1 - (10000 if with_bus else 0)
    for _ in range(200):
        if top >= 12000:
            port = _PICK.randint(12000, top)
        else:  # an unusual range leaves no room below it: let the kernel choose
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
        wanted = (port, port + 10000) if with_bus else (port,)
        if wanted[-1] > 65535:
            continue
        try:
            for p in wanted:
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free loopback port (pair) for a redis-server")
