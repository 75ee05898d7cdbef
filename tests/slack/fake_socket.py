"""A local stand-in for Slack's Socket Mode WebSocket endpoint (RFC 6455, plain ws://).

`apps.connections.open` on the Web API stand-in hands out `url`; each client that connects
gets a `hello`, answers pings, and acknowledges envelopes by their `envelope_id` (a slash
command's answer rides in the acknowledgement's `payload`, which is kept). Tests send Events
API and slash-command envelopes on a chosen connection and drop connections to force a reconnect.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import socket
import struct
import threading
import time
import uuid
from typing import Any

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class Connection:
    def __init__(self, sock: socket.socket, number: int) -> None:
        self.sock = sock
        self.number = number
        self.lock = threading.Lock()
        self.open = True

    def send_text(self, text: str) -> None:
        payload = text.encode()
        head = bytes([0x81])
        n = len(payload)
        if n < 126:
            head += bytes([n])
        elif n < 1 << 16:
            head += bytes([126]) + struct.pack("!H", n)
        else:
            head += bytes([127]) + struct.pack("!Q", n)
        with self.lock:
            self.sock.sendall(head + payload)

    def send_frame(self, opcode: int, payload: bytes = b"") -> None:
        with self.lock:
            self.sock.sendall(bytes([0x80 | opcode, len(payload)]) + payload)

    def drop(self) -> None:
        """The connection goes away without a close frame (a network drop)."""
        self.open = False
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


class FakeSocketMode:
    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.connections: list[Connection] = []
        self.acks: list[str] = []
        self.payloads: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.server.getsockname()[1]}/link/?ticket=t"

    def stop(self) -> None:
        self.server.close()
        for c in list(self.connections):
            c.drop()

    def live(self) -> list[Connection]:
        with self.lock:
            return [c for c in self.connections if c.open]

    def wait_connections(self, count: int, timeout: float = 20.0) -> list[Connection]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.live()) >= count:
                return self.live()
            time.sleep(0.05)
        raise AssertionError(f"expected {count} live Socket Mode connections, got {len(self.live())}")

    def send_event(self, conn: Connection, body: dict[str, Any], retry_attempt: int = 0) -> str:
        envelope_id = str(uuid.uuid4())
        conn.send_text(json.dumps({
            "envelope_id": envelope_id, "type": "events_api", "payload": body,
            "accepts_response_payload": False, "retry_attempt": retry_attempt,
            "retry_reason": "timeout" if retry_attempt else "",
        }))
        return envelope_id

    def send_command(self, conn: Connection, body: dict[str, Any]) -> str:
        """A slash command, as Socket Mode sends it: its fields as a JSON payload, the answer
        expected in the acknowledgement's own `payload`."""
        envelope_id = str(uuid.uuid4())
        conn.send_text(json.dumps({"envelope_id": envelope_id, "type": "slash_commands", "payload": body,
                                   "accepts_response_payload": True}))
        return envelope_id

    def wait_ack(self, envelope_id: str, timeout: float = 10.0) -> dict[str, Any] | None:
        """Wait for the envelope's acknowledgement; the `payload` it carried, if any."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if envelope_id in self.acks:
                    return self.payloads.get(envelope_id)
            time.sleep(0.02)
        raise AssertionError(f"envelope {envelope_id} was not acknowledged")

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock: socket.socket) -> None:
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = sock.recv(4096)
            if not chunk:
                sock.close()
                return
            request += chunk
        key = b""
        for line in request.split(b"\r\n"):
            if line.lower().startswith(b"sec-websocket-key:"):
                key = line.split(b":", 1)[1].strip()
        accept = base64.b64encode(hashlib.sha1(key + _GUID).digest())
        sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
        with self.lock:
            conn = Connection(sock, len(self.connections))
            self.connections.append(conn)
        conn.send_text(json.dumps({"type": "hello", "num_connections": len(self.live()),
                                   "debug_info": {"host": "fake", "approximate_connection_time": 3600},
                                   "connection_info": {"app_id": "A0DENPEX"}}))
        with contextlib.suppress(OSError):
            self._read(conn)
        conn.open = False

    def _recv_exact(self, sock: socket.socket, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def _read(self, conn: Connection) -> None:
        while conn.open:
            b0, b1 = self._recv_exact(conn.sock, 2)
            opcode, masked, n = b0 & 0x0F, b1 & 0x80, b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self._recv_exact(conn.sock, 2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self._recv_exact(conn.sock, 8))[0]
            mask = self._recv_exact(conn.sock, 4) if masked else b"\x00" * 4
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(self._recv_exact(conn.sock, n)))
            if opcode == 0x8:  # close
                conn.send_frame(0x8, payload[:2])
                conn.drop()
                return
            if opcode == 0x9:  # ping
                conn.send_frame(0xA, payload)
            elif opcode == 0x1:
                try:
                    msg = json.loads(payload)
                except ValueError:
                    continue
                if isinstance(msg, dict) and msg.get("envelope_id"):
                    with self.lock:
                        if isinstance(msg.get("payload"), dict):
                            self.payloads[msg["envelope_id"]] = msg["payload"]
                        self.acks.append(msg["envelope_id"])
