"""IPv4 and IPv6 addresses, told apart from versions, PCI ids, GIDs' neighbours and C++ scopes."""

from __future__ import annotations

import ipaddress
import re

import regex

from bot.masking.edits import Edit

# `regex` finds the `.`/`::` literal first and only then checks the look-behind, which keeps
# these scans in the hundreds of MB/s; `re` would try the look-behind at every position.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# (Lustre names its management client for the MGS's NID: `MGC10.0.3.1@tcp`.)
# An underscore may stand on either side: names glue their parts with it (`rank3_10.42.7.19`,
# `10.42.7.19_rank0.log`); such a glued quad is judged by `_glued_address`.
_IPV4_RX = regex.compile(rf"(?:(?<![^\W_]|\.)|(?<=(?<![\w.])MGC)){_OCTET}(?:\.{_OCTET}){{3}}(?![^\W_]|\.[0-9])")
_H = r"[0-9A-Fa-f]{1,4}"
_HEX = frozenset("0123456789abcdefABCDEF")
_V4 = r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}"
# Right edge of an address: no word, colon or dotted digit after it, or a port written without
# brackets as uvicorn and gunicorn print it (`2001:db8::8a2e:370:7334:51234 - "GET /"`): five
# digits cannot be a group. A four-digit port reads as the last group, and is masked with it.
_END = r"(?:(?![\w:]|\.[0-9]|<[A-Z])|(?=:[0-9]{5}(?![\w:.])))"
# A form that starts with a group needs a non-word character before it (`G2001:db8::1` is
# not an address); one that starts with `::` may follow a letter (NCCL's `remoteGids::ffff:`).
# A placeholder next to a candidate counts as the word it replaced (`>` before, `<X` after),
# so masking a neighbour never makes an address appear on the next pass.
_IPV6_COMPRESSED_RX = regex.compile(
    rf"(?:(?<![\w:.]){_H}(?::{_H}){{0,6}}|(?<![0-9A-Fa-f:.>]))::(?:(?:{_H}:){{0,6}}(?:{_V4}|{_H}))?"
    r"(?:%[A-Za-z0-9_.]{1,16})?" + _END
)
# NCCL prints `ifname:address<port>`: `[1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>`.
_IPV6_AFTER_IFNAME_RX = regex.compile(
    rf"(?<=[A-Za-z][\w.-]{{0,15}}:)(?:{_H}(?::{_H}){{0,6}})?::(?:(?:{_H}:){{0,6}}(?:{_V4}|{_H}))?"
    r"(?:%[A-Za-z0-9_.]{1,16})?(?=<[0-9])"
)
# ... and a global address with all eight groups (`Using [0]eth0:2a05:d014:...:19d1<0>`), found
# from the colon after its first group so the scan seeks `:` (a pattern opening with a group
# would be tried at every position of every gated line).
_IPV6_EIGHT_AFTER_IFNAME_RX = regex.compile(
    rf":(?<=(?<=[A-Za-z][\w.-]{{0,15}}:){_H}:)(?:{_H}:){{6}}{_H}(?:%[A-Za-z0-9_.]{{1,16}})?(?=<[0-9])"
)
_PORT_AFTER = re.compile(r"<[0-9]")  # what both patterns above require after their match
# Full eight-group form as printed by show_gids / ibv_devinfo (zero-padded groups).
_IPV6_FULL_RX = regex.compile(r":(?<=[0-9A-Fa-f]{4}:)[0-9A-Fa-f]{4}(?::[0-9A-Fa-f]{4}){6}(?:%[A-Za-z0-9_.]{1,16})?" + _END)
# Eight groups written out with leading zeros dropped (`2001:db8:85a3:0:0:8a2e:370:7334`, as
# Python's ipaddress `exploded` does not and some tools do). Found from its first colon, so the
# scan seeks `:` rather than trying every position.
_IPV6_SHORT_GROUPS_RX = regex.compile(
    rf":(?<=(?<![\w:.]){_H}:)(?:{_H}:){{6}}{_H}(?:%[A-Za-z0-9_.]{{1,16}})?" + _END
)

_KEEP_V4 = frozenset(
    ("0.0.0.0", "172.17.0.1", "169.254.169.254", "8.8.8.8", "8.8.4.4", "1.1.1.1", "1.0.0.1")
)
# The private ranges whole (RFC 1918, carrier-grade NAT, link-local), as no-proxy lists and
# firewall rules write them: no network's own, unlike `10.42.0.0/16`.
_PRIVATE_RANGES = {"10.0.0.0": "/8", "172.16.0.0": "/12", "192.168.0.0": "/16", "100.64.0.0": "/10", "169.254.0.0": "/16"}
# (And EC2's link-local services over IPv6, the same on every instance: the metadata service,
# like 169.254.169.254, its DNS resolver and its time server.)
_KEEP_V6 = frozenset(("::", "::1", "0:0:0:0:0:0:0:1", "0:0:0:0:0:0:0:0", "fd00:ec2::254", "fd00:ec2::253", "fd00:ec2::123"))

# The word before a dotted quad that makes it a version: `CUDA Version: 12.1.3.1`,
# `nvidia-cudnn-cu12 8.9.2.26` (pip list), `tensorrt 8.6.1.6`, NGC images' `NV_CUDNN_VERSION=8.9.0.131`.
_VERSION_WORD = re.compile(
    r"(?:v|ver|version|release|rev|build|driver|runtime|cuda|cudnn|nccl|tensorrt|trt|cublas|cufft|"
    r"curand|cusolver|cusparse|nvjitlink|cupti|nvtx|triton|onnx|onnxruntime|python|torch|pytorch|"
    r"nvidia-[\w.-]*|lib[\w.+-]*|[\w.-]*[_-]cu\d{2,3}|cu\d{2,3}|[\w.-]*[_-]version)\Z",
    re.IGNORECASE,
)
# A package's name and version before its release (`ofed_info -s`: `MLNX_OFED_LINUX-23.10-1.1.9.0`):
# the dotted quad after the second dash is the release.
_PACKAGE_RELEASE_BEFORE = re.compile(r"(?<![\w.+-])[A-Za-z][\w.+-]*?-\d+(?:\.\d+)*-\Z")
# (Not a range's second address: `10.9.8.7-10.9.8.9` names two machines.)
_VERSION_AFTER = re.compile(r"-\d(?!\d{0,2}\.\d{1,3}\.\d{1,3}\.\d)|\+|~|(?:a|b|rc|post|dev)\d")
# What can follow a dotted quad and start _VERSION_AFTER (a letter would have been part of it):
# asked before the pattern, as nearly every address is followed by neither.
_VERSION_AFTER_STARTS = frozenset("-+~")


# After these a dotted quad is an address (`eth0:10.0.0.1`, `//10.0.0.1`, `@10.0.0.1`).
_ADDRESS_BEFORE = frozenset(":/@[<,;|'\"")


def _version_before(before: str) -> bool:
    """The text before a dotted quad on its line (`before`, at most 48 characters) says it is
    a version number, not an address. (The text after it and pip's `(8.9.2.26)` are the
    caller's: this reads `before` alone, so its answer holds wherever `before` recurs.)"""
    if not before or before[-1] in _ADDRESS_BEFORE:
        return False
    stripped = before.rstrip(" \t")
    if stripped.endswith(("==", ">=", "<=", "~=", "!=", "@")):
        return True
    if before.endswith("-") and len(before) > 1 and (before[-2].isalpha() or _PACKAGE_RELEASE_BEFORE.search(before)):
        return True  # libcudnn8-8.9.2.26, cuda-12.1.3.1, MLNX_OFED_LINUX-23.10-1.1.9.0
    # (A wheel's name before its version: `nvidia_cublas_cu12-12.1.3.1-py3-none-...whl`.)
    word = stripped.rstrip(":=([-").rsplit(None, 1)
    # (A quoted env entry opens its word with the quote: docker inspect's `"NV_CUDNN_VERSION=...`.)
    return bool(word) and _VERSION_WORD.match(word[-1].lstrip("\"'")) is not None


# Names glue versions with `_` as they glue addresses (`tensorrt_8.6.1.6`, `cudnn_8.9.2.26_cuda12`):
# glued, a dotted quad is an address in a private network's range (RFC 1918, carrier-grade NAT),
# where a cluster's machines are, or after a word that names a machine or a rank, never after a
# version's word.
_GLUED_ADDRESS_WORD = re.compile(
    r"(?<![A-Za-z])(?:rank|local_rank|node|host|hostname|ip|addr|address|worker|master|server|peer|client|"
    r"src|dst|from|to|nic|eth|ib|bond|head|gateway|gw)\d*_\Z",
    re.IGNORECASE,
)
_GLUED_VERSION_WORD = re.compile(r"(?<![A-Za-z0-9])([A-Za-z][\w.+-]*?)_\Z")


def _private_range(addr: str) -> bool:
    a, b = (int(x) for x in addr.split(".", 2)[:2])
    return a == 10 or (a == 172 and 16 <= b <= 31) or (a == 192 and b == 168) or (a == 100 and 64 <= b <= 127)


def _glued_address(text: str, start: int, end: int, addr: str) -> bool:
    """A dotted quad run into a name by `_` (`text[start:end]`) is an address (see above)."""
    before = text[max(0, start - 48) : start]
    if start and text[start - 1] == "_":
        if _GLUED_ADDRESS_WORD.search(before):
            return True
        word = _GLUED_VERSION_WORD.search(before)
        if word is not None and _VERSION_WORD.match(word.group(1)):
            return False  # `cuda_10.2.89.1`, `nvidia-cudnn-cu12_10.1.0.1`
    return _private_range(addr)


def _is_netmask(addr: str) -> bool:
    a, b, c, d = (int(x) for x in addr.split("."))
    value = (a << 24) | (b << 16) | (c << 8) | d
    inverted = ~value & 0xFFFFFFFF
    return value != 0 and inverted & (inverted + 1) == 0


# The line gate of find_ipv4 (bot/masking/gate.py): four dotted numbers.
IPV4_TRIGGER = r"[0-9]\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]"


_MULTICAST_V4_HEADS = frozenset(f"{octet}." for octet in range(224, 240))


def find_ipv4(text: str, edits: list[Edit]) -> None:
    """Mask IPv4 addresses; keep well-known non-personal ones, netmasks and versions."""
    if "." not in text:
        return
    # What the text before an address on its line says (a broadcast address, a version), by
    # that text: a log prints the same few prefixes before its addresses on every line (Ray's
    # `(RayTrainWorker pid=N, ip=`), read once each. Per call: log text outlives no piece.
    kept_after: dict[str, bool] = {}
    rfind = text.rfind
    for m in _IPV4_RX.finditer(text):
        start, end = m.span()
        addr = text[start:end]
        if ((start and text[start - 1] == "_") or text[end : end + 1] == "_") and not _glued_address(text, start, end, addr):
            continue
        if addr in _KEEP_V4 or (addr.startswith(("127.", "255.")) and (addr[0] == "1" or _is_netmask(addr))):
            continue
        if addr[:4] in _MULTICAST_V4_HEADS:
            continue  # 224.0.0.0/4: a multicast group (SSDP, mDNS, IGMP, SHARP) every member joins, no machine
        if addr in _PRIVATE_RANGES and text.startswith(_PRIVATE_RANGES[addr], end):
            continue  # `NO_PROXY=...,10.0.0.0/8`: RFC 1918's whole range, the same on every network
        if text[end : end + 1] in _VERSION_AFTER_STARTS and _VERSION_AFTER.match(text, end):
            continue  # 10.2.0.1-1, 8.9.2.26+cuda12 (a letter after it would have been part of it)
        lo = start - 48 if start > 48 else 0
        before = text[rfind("\n", lo, start) + 1 or lo : start]
        kept = kept_after.get(before)
        if kept is None:
            # `brd 10.20.3.255`: the subnet's broadcast address names no machine. (Its word
            # and blanks end where the address starts, on its line: in the last 12 characters.)
            kept = kept_after[before] = _BROADCAST_BEFORE.search(before[-12:]) is not None or _version_before(before)
        if kept:
            continue
        if before.endswith("("):
            wide = text[text.rfind("\n", max(0, start - 512), start) + 1 : start]
            if "==" + addr in wide:
                continue  # pip: `X==8.9.2.26 in /site-packages (from torch) (8.9.2.26)`
        edits.append((start, end, "ip", addr))


# Well-known multicast groups (`ff02::1 ip6-allnodes` in /etc/hosts, `ff02::fb` mDNS) name a
# group, not a machine; the solicited-node group `ff02::1:ff3d:4e5f` carries an address's last
# 24 bits and is masked.
_GROUP_MULTICAST = re.compile(r"(?i)ff[0-9a-f]{2}::(?!1:ff)(?:[0-9a-f]{1,4}:)?[0-9a-f]{1,4}\Z")


def _v6_plausible(addr: str, text: str, start: int) -> bool:
    """Reject `1::2` slices and `d::add` C++ scopes; accept GIDs, link-local and mapped v4."""
    core = addr.split("%", 1)[0]
    if core in _KEEP_V6 or core.lower().startswith("::ffff:127.") or not core.strip(":0"):
        return False
    if _GROUP_MULTICAST.match(core):
        return False  # ff02::1, ff02::2, ff05::1:3: a group every node of a link joins
    if "." in core:
        return True
    groups = [g for g in core.split(":") if g]
    if len(groups) >= 3:
        return True
    if core.startswith("::"):
        return False
    return len(groups) == 2 and len(groups[0]) >= 3 and (start == 0 or not text[start - 1].isalpha())


# Well-known prefixes say what kind of address it is (link-local: the wrong GID index;
# IPv4-mapped: RoCE v2) and identify nobody, so they stay; only the interface identifier or
# the embedded IPv4 is masked. The embedded IPv4 gets the same <IP-n> as its dotted form.
_LINK_LOCAL = ("fe80::", "fe80:0000:0000:0000:", "fe80:0:0:0:")
_MAPPED_HEX = "0000:0000:0000:0000:0000:ffff:"


def _v6_edit(text: str, start: int, end: int, edits: list[Edit]) -> None:
    addr = text[start:end]
    zone = addr.find("%")
    if zone != -1:  # `%veth75fa783` names an interface: diagnostic, kept
        end = start + zone
        addr = addr[:zone]
    low = addr.lower()
    dot = low.rfind(":") + 1
    if "." in low:  # ::ffff:10.0.0.1, remoteGids::ffff:10.0.0.1
        edits.append((start + dot, end, "ip", addr[dot:]))
        return
    if low.startswith(_MAPPED_HEX) and low.count(":") == 7:
        hex_part = low[len(_MAPPED_HEX) :].replace(":", "")
        value = ".".join(str(int(hex_part[i : i + 2], 16)) for i in range(0, 8, 2))
        edits.append((start + len(_MAPPED_HEX), end, "ip", value))
        return
    for prefix in _LINK_LOCAL:
        if low.startswith(prefix) and len(low) > len(prefix):
            edits.append((start + len(prefix), end, "ipv6", low))
            return
    edits.append((start, end, "ipv6", low))


# The line gate of find_ipv6 (bot/masking/gate.py): every form holds `::` or eight groups.
IPV6_TRIGGER = r"::|[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){7}|GID [0-9]{1,3} \([0-9A-F]{1,16}/"


# perftest (`ib_write_bw`, `ib_send_lat`) prints each side's GID as sixteen decimal bytes:
# `GID: 00:00:00:00:00:00:00:00:00:00:255:255:10:08:01:27` (RoCE v2, an IPv4-mapped address:
# its last four are the IPv4, masked as the dotted form's <IP-n>), `GID: 254:128:00:...` (a
# link-local prefix, kept, and the interface id).
_PERFTEST_GID = re.compile(r"GID: (?P<p>(?:\d{2,3}:){8})(?P<i>(?:\d{2,3}:){7}\d{2,3})(?![\d:])")
_MAPPED_DECIMAL = "00:00:255:255:"


_IPV6_ESCAPED_RX = re.compile(r"%5[Bb](?P<a>[0-9A-Fa-f:.]{2,45})(?:%25[\w.-]{1,16})?%5[Dd]")


def _find_perftest_gids(text: str, edits: list[Edit]) -> None:
    for m in _PERFTEST_GID.finditer(text):
        interface = m.group("i")
        if not interface.replace(":", "").strip("0"):
            continue
        if m.group("p") == "00:" * 8 and interface.startswith(_MAPPED_DECIMAL):
            start = m.start("i") + len(_MAPPED_DECIMAL)
            edits.append((start, m.end("i"), "ip", ".".join(str(int(b)) for b in interface[len(_MAPPED_DECIMAL) :].split(":"))))
        else:
            edits.append((m.start("i"), m.end("i"), "ipv6", m.group()[5:]))


# NCCL's IB transport logs the GID it connects with as two 64-bit words printed `%lX`, in the
# byte order they sit in memory: `qpn 364 mtu 5 GID 3 (0/B9D4E80AFFFF0000)` is ::ffff:10.232.212.185
# (its IPv4 masked as the dotted form's <IP-n>); `GID 0 (80FE/A2C0AFFFE9B6D2C)` a link-local
# GID (the prefix kept, the interface id masked). The index is the diagnosis; the words are not.
_NCCL_GID = re.compile(r"GID \d{1,3} \((?P<p>[0-9A-F]{1,16})/(?P<i>[0-9A-F]{1,16})\)")


def _find_nccl_gids(text: str, edits: list[Edit]) -> None:
    for m in _NCCL_GID.finditer(text):
        interface = int(m.group("i"), 16).to_bytes(8, "little")
        if not interface.strip(b"\0"):
            continue
        if int(m.group("p"), 16) == 0 and interface[:4] == b"\0\0\xff\xff":
            edits.append((m.start("i"), m.end("i"), "ip", ".".join(str(b) for b in interface[4:])))
        else:
            address = ipaddress.IPv6Address(int(m.group("p"), 16).to_bytes(8, "little") + interface)
            edits.append((m.start("i"), m.end("i"), "ipv6", address.compressed))


# netstat writes an IPv6 socket as the address and `:port` with no brackets (`fe80::2:22`,
# `2001:db8::7:443`): on its rows the last group is the port, a diagnostic fact that stays.
_NETSTAT_ROW = re.compile(r"[ \t]*(?:tcp|udp|raw|udpl)6[ \t]+\d+[ \t]+\d+[ \t]")
_PORT_GROUP = re.compile(r":\d{1,5}\Z")


def _before_netstat_port(text: str, start: int, end: int) -> int:
    """Where the address of a netstat row's `address:port` ends (`end` off such a row)."""
    lead = text.rfind("\n", 0, start) + 1
    port = _PORT_GROUP.search(text, start, end)
    if port is None or text[port.start() - 1] == ":" or not _NETSTAT_ROW.match(text, lead):
        return end
    return port.start()


def find_ipv6(text: str, edits: list[Edit]) -> None:
    """Mask IPv6 addresses, including RoCE GIDs and NCCL's localGid/remoteGid fields."""
    if "GID " in text:
        _find_nccl_gids(text, edits)
    if ":" not in text:
        return
    if "GID: " in text:
        _find_perftest_gids(text, edits)
    # gRPC writes a peer's address as a URI, its brackets escaped: `ipv6:%5B2a05:d018::7%5D:50051`.
    if "%5B" in text or "%5b" in text:
        for m in _IPV6_ESCAPED_RX.finditer(text):
            if _v6_plausible(m.group("a"), text, m.start("a")):
                _v6_edit(text, m.start("a"), m.end("a"), edits)
    # NCCL's `ifname:address<port>` forms end before `<` and a digit: most texts hold none
    # (a c10d retry flood's `[::ffff:127.0.0.1]:29500` lines), and each pattern is a sweep.
    ported = _PORT_AFTER.search(text) is not None
    if "::" in text:
        for m in _IPV6_COMPRESSED_RX.finditer(text):
            end = _before_netstat_port(text, m.start(), m.end())
            if _v6_plausible(text[m.start() : end], text, m.start()):
                _v6_edit(text, m.start(), end, edits)
        if ported:
            for m in _IPV6_AFTER_IFNAME_RX.finditer(text):
                _v6_edit(text, m.start(), m.end(), edits)
    if ported:
        for m in _IPV6_EIGHT_AFTER_IFNAME_RX.finditer(text):
            start = m.start()
            while start > m.start() - 4 and text[start - 1] in _HEX:
                start -= 1
            _v6_edit(text, start, m.end(), edits)
    for m in _IPV6_FULL_RX.finditer(text):
        start = m.start() - 4
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_:."):
            continue
        if text[start : m.end()].replace(":", "").strip("0"):
            _v6_edit(text, start, m.end(), edits)
    for m in _IPV6_SHORT_GROUPS_RX.finditer(text):
        start = m.start()
        while start > 0 and start > m.start() - 4 and text[start - 1] in _HEX:
            start -= 1
        groups = text[start : m.end()].split("%", 1)[0].split(":")
        # All four-digit groups: the loop above has it. Without a middle group of three or more
        # digits it is a Fibre Channel WWN or a byte dump (`20:00:00:25:b5:00:00:0f`), not an
        # address (and the masking prefilter's anchor for it is such a group between colons).
        if all(len(g) == 4 for g in groups) or max(map(len, groups[1:7])) < 3 or not "".join(groups).strip("0"):
            continue
        _v6_edit(text, start, m.end(), edits)


# --- hardware addresses -------------------------------------------------------------------
# (name, pattern): every shape a MAC address, an InfiniBand hardware address or a port/node
# GUID is printed in. Each is masked whole as <MAC-n>. `brd`/`broadcast` addresses and the
# all-ones/all-zeros addresses name nobody and stay (`link/ether <MAC-1> brd ff:ff:ff:ff:ff:ff`).
_XX = "[0-9A-Fa-f]{2}"
# RDMA device names as the kernel gives them (mlx5_0, mlx5_bond_0, hfi1_0, irdma0, bnxt_re0,
# efa_0, rxe0, ionic_0, erdma_0, qedr0, mthca0, qib0).
_RDMA_DEVICE = r"(?:mlx[45]_|hfi1_|irdma|bnxt_re|efa_|rxe|ionic_|erdma_|qedr|mthca|qib)\w{0,16}"
_MAC_SHAPES: list[tuple[str, re.Pattern[str]]] = [
    # `ip link`/`ip a`: `link/infiniband 80:00:00:48:fe:80:...` (20 bytes: QPN + port GID; a
    # copy cut short by a byte or two still holds the port GUID).
    ("ib-hwaddr", regex.compile(rf":(?<=(?<![\w:.-]){_XX}:)(?:{_XX}:){{16,18}}{_XX}(?![\w:])")),
    # `link/ether 0c:42:a1:9b:6d:2c`, ifconfig `ether ...`, docker `"MacAddress": "..."`.
    ("mac", regex.compile(rf":(?<=(?<![\w:.-]){_XX}:)(?:{_XX}:){{4}}{_XX}(?![\w:]|-[0-9A-Fa-f])")),
    # Windows and some switches: `0C-42-A1-9B-6D-2C`; Cisco dotted: `0c42.a19b.6d2c`.
    ("mac-dash", regex.compile(rf"-(?<=(?<![\w:.-]){_XX}-)(?:{_XX}-){{4}}{_XX}(?![\w-])")),
    # lspci -vvv's `Device Serial Number b8-ce-f6-03-00-4a-1c-2e`: a PCIe device's EUI-64, on
    # a ConnectX card its node GUID, on a NIC its MAC with `ff-fe` inside.
    ("dsn", regex.compile(rf"Device Serial Number \K{_XX}(?:-{_XX}){{7}}(?![\w-])")),
    ("mac-dotted", regex.compile(r"\.(?<=(?<![\w:.-])[0-9a-f]{4}\.)[0-9a-f]{4}\.[0-9a-f]{4}(?![\w.])")),
    # ibstat `Port GUID: 0x0c42a10300123456`, `Node GUID:`, `System image GUID:`; ibv_devinfo
    # `node_guid: 0c42:a103:0012:3456`, `sys_image_guid:`; `port_guid 0x...`.
    ("guid", regex.compile(
        r"(?i)guid[\"']?[ \t]*[:=]?[ \t]*[\"']?\K(?:0x[0-9a-f]{16}|[0-9a-f]{4}(?::[0-9a-f]{4}){3}|[0-9a-f]{2}(?::[0-9a-f]{2}){7})(?![\w:])"
    )),
    # ibnetdiscover: `Ca 1 "H-0c42a10300123456" # "a100-03 mlx5_0"`; `ibstat -p` prints GUIDs alone.
    ("guid-node", regex.compile(r"\"[HS]-\K[0-9a-f]{16}(?=\")")),
    ("guid-alone", regex.compile(r"(?m)^0x\K[0-9a-f]{16}$")),
    # ibv_devices lists each HCA's node GUID bare, under `node GUID`: `    mlx5_0   0c42a10300123456`.
    ("guid-devices", regex.compile(r"(?m)^[ \t]*" + _RDMA_DEVICE + r"[ \t]+\K[0-9a-f]{16}(?=[ \t\r]*$)")),
    # ibnetdiscover's switch rows name the port GUID at the far end: `[17]	"H-..."[1](0c42a10300123456)`.
    ("guid-peer", regex.compile(r"\[\d{1,3}\]\(\K[0-9a-f]{16}(?=\))")),
    # iblinkinfo's port GUIDs before the port's LID and number, at each end of a link:
    # `      0xe41d2d0300309251      8    1[  ] ==( 4X ...)==>  0xf45214030067c630  5  16[  ] "..."`
    # (`--line` puts the node's description between: `0x... "   ib-test-7 mlx4_0"   37    1[  ]`).
    ("guid-links", regex.compile(r"0x\K[0-9a-f]{16}(?=[ \t]+(?:\"[^\"\n]{0,128}\"[ \t]+)?\d{1,5}[ \t]+\d{1,3}\[)")),
    # ibhosts/ibswitches/ibrouters: `Ca	: 0x0c42a103009b6d2c ports 1 "a100-03 mlx5_0"`.
    # (iblinkinfo heads a switch's ports with its GUID and description: `Switch: 0x506b... MF0;SB7700:MSB7700/U1:`.)
    ("guid-ports", regex.compile(r"(?m)^[ \t]*(?:Ca|Switch|Router)[ \t]*: 0x\K[0-9a-f]{16}(?= ports \d|[ \t]\S[^\n]{0,126}:\r?$)")),
]  # fmt: skip
_KEEP_MAC = frozenset(("ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00", "ff-ff-ff-ff-ff-ff", "00-00-00-00-00-00"))
_BROADCAST_BEFORE = regex.compile(r"(?:brd|broadcast|bcast)(?::|[ \t]+)\Z", regex.IGNORECASE)
MAC_WORDS = ("guid",)
# The line gate of find_macs (bot/masking/gate.py): each shape above needs one of these on its
# line. Six hex pairs joined by `:` (the 20-byte form holds them too) or `-`, the dotted form,
# `guid` in any case (`?`: a non-ASCII letter, as the gate reads it, that folds to `i`), a
# 16-digit `0x` GUID (alone or before ` ports `), ibnetdiscover's `"H-` GUID.
MAC_TRIGGER = (
    r"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}|[0-9a-f]{4}\.[0-9a-f]{4}\.[0-9a-f]{4}"
    r"|(?i:gu[i?]d)|0x[0-9a-f]{16}|\x22[HS]-[0-9a-f]{16}\x22|[0-9]\][(][0-9a-f]{16}[)]"
    r"|(?:mlx[45]_|hfi1_|irdma|bnxt_re|efa_|rxe|ionic_|erdma_|qedr|mthca|qib)[0-9A-Za-z_]*[ \t]+[0-9a-f]{16}"
)


def find_macs(text: str, edits: list[Edit]) -> None:
    """Mask MAC addresses, InfiniBand hardware addresses and port/node GUIDs (as <MAC-n>)."""
    for name, rx in _MAC_SHAPES:
        if (name == "dsn" and "Serial Number " not in text) or (name == "guid-node" and '"H-' not in text and '"S-' not in text) or (name == "guid-ports" and " ports " not in text and "Switch: 0x" not in text) or (
            name == "guid-alone" and "\n0x" not in text and not text.startswith("0x")
        ) or (name == "guid-peer" and "](" not in text) or (name == "guid-links" and "[" not in text):
            continue
        for m in rx.finditer(text):
            start, end = m.start(), m.end()
            if not name.startswith(("guid", "dsn")):
                start -= 2 if name != "mac-dotted" else 4
            value = text[start:end]
            low = value.lower()
            if low in _KEEP_MAC or not low.strip("0:x.-") or not low.replace("f", "").strip(":.-"):
                continue
            if name == "mac-dash" and not any(c.isalpha() for c in value):
                continue  # 12-34-56-78-90-12: digits, a date or an id, not a MAC
            if _BROADCAST_BEFORE.search(text, max(0, start - 12), start):
                continue
            edits.append((start, end, "mac", low.replace("-", ":")))


# --- hardware serial numbers --------------------------------------------------------------
# A board's serial is printed on its sticker and in the vendor's RMA records: it ties a node
# (and a support case) to its owner. Shapes as the tools print them: `nvidia-smi -q`
# (`    Serial Number                         : 1321020023456`, XML `<serial>...</serial>`),
# ipmitool/fruid-util (`Board Serial : WN1502400PN1A`, `Product Serial : ...`), FreeIPMI
# (`FRU Board Serial Number: BQWF80100215`), dmidecode (`Serial Number: ...`). Only the value
# goes: `Serial Number : <SERIAL-1>`, also in a JSON log record (before its `\\n"`).
# `N/A`, `Not Specified`, `To Be Filled By O.E.M.` and values without a digit stay (they
# name no board).
_SERIAL_RXS = (
    re.compile(
        r"(?i)\bserial(?:[ _]?(?:number|no\.?|num))?[ \t]*:[ \t]*(?P<v>[A-Za-z0-9][A-Za-z0-9-]{4,39})(?=[ \t\x22]|\\[nrt]|\r?$)", re.M
    ),
    re.compile(r"<serial>(?P<v>[A-Za-z0-9][A-Za-z0-9-]{4,39})</serial>"),
    # Prose and tickets name the board by the word and its number alone (`GPU 3 serial
    # 1654923000123 Xid 79`, `serial no. 1321...`, `serial# WN15...`): a value of six digits or
    # more, so `serial 3` and `serial console` stay. (lspci's `Device Serial Number b8-ce-f6-...`,
    # eight dashed bytes, is a node GUID: the MAC pass owns it.)
    re.compile(r"(?i)\bserial(?:[ _]?(?:number|no\.?|num))?(?:[ \t]*#|[ \t]*=|[ \t])[ \t]*(?![0-9a-fA-F]{2}(?:-[0-9a-fA-F]{2}){7})(?P<v>(?=(?:[A-Za-z-]*\d){6})[A-Za-z0-9][A-Za-z0-9-]{5,39})(?![\w.:-])"),
)
SERIAL_WORDS = ("serial",)


# `nvidia-smi --query-gpu=...,serial,... --format=csv` heads its rows with the fields asked
# for (`index, name, serial, uuid`; `[units]` after some), then one GPU a row: the serial is
# the row's cell under `serial` (`3, NVIDIA H100 80GB HBM3, 1654923000123, GPU-...`).
_CSV_HEADER = re.compile(r"^[ \t]*(?P<h>[a-z][\w.]*(?: \[[^\]\n]{1,20}\])?(?:, [a-z][\w.]*(?: \[[^\]\n]{1,20}\])?){1,30})[ \t]*\r?$", re.M)
_CSV_SERIAL = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{4,39}")
CSV_SERIAL_WORDS = ("serial",)


# `--format=csv,noheader` prints no header: the fields are the command line's own
# (`nvidia-smi --query-gpu=serial,pci.bus_id --format=csv,noheader`), the rows below it.
_CSV_NOHEADER = re.compile(r"^[^\n]{0,400}?--query-gpu[= ][\"']?(?P<h>[a-z][\w.]*(?:,[a-z][\w.]*){0,30})(?![\w.,])[^\n]{0,400}\n", re.M)


def find_csv_serials(text: str, present: set[str], edits: list[Edit]) -> None:
    """Mask the serial column of nvidia-smi's CSV query output as <SERIAL-n>."""
    if "serial" not in present:
        return
    tables = [([f.split(" [", 1)[0] for f in m.group("h").split(", ")], m.end() + 1) for m in _CSV_HEADER.finditer(text)]
    if "noheader" in text:
        tables += [(m.group("h").split(","), m.end()) for m in _CSV_NOHEADER.finditer(text) if "noheader" in m.group()]
    for fields, pos in tables:
        if "serial" not in fields and "gpu_serial" not in fields:
            continue
        col = fields.index("serial") if "serial" in fields else fields.index("gpu_serial")
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            cells = text[pos:end].rstrip("\r").split(", ")
            if len(cells) != len(fields):
                break  # the table ends where a row of another shape begins
            start = pos + sum(len(c) + 2 for c in cells[:col])
            value = cells[col].strip()
            if len(fields) == 1 and not _CSV_SERIAL.fullmatch(value) and value not in ("N/A", "[N/A]"):
                break  # one column a row: the table ends at the first line no serial fills
            if _CSV_SERIAL.fullmatch(value) and any(c.isdigit() for c in value) and value.strip("0-"):
                start += len(cells[col]) - len(cells[col].lstrip())
                edits.append((start, start + len(value), "serial", value))
            pos = end + 1


# `nvme list` (nvme-cli) heads its table with `Node  [Generic]  SN  Model ...` over a ruler of
# dashes, a drive a row (`/dev/nvme0n1  /dev/ng0n1  S64ANS0T123456  SAMSUNG MZQL23T8HCLS-00A07 ...`):
# the serial is the row's word that starts in the SN column.
_NVME_HEADER = re.compile(r"^(?P<lead>[ \t]*Node[ \t]+(?:Generic[ \t]+)?)SN[ \t]+Model\b[^\n]*\n(?:[ \t]*-{4,}[ -]*\r?\n)?", re.M)
_NVME_ROW = re.compile(r"[ \t]*/dev/nvme[^\n]*")
NVME_WORDS = ("/dev/nvme",)


def find_nvme_serials(text: str, present: set[str], edits: list[Edit]) -> None:
    """Mask the SN column of `nvme list` as <SERIAL-n>."""
    if "/dev/nvme" not in present:
        return
    for header in _NVME_HEADER.finditer(text):
        col, pos = len(header.group("lead")), header.end()
        while (row := _NVME_ROW.match(text, pos)) is not None:
            cell = re.match(r"[A-Za-z0-9][A-Za-z0-9_-]{4,39}(?=[ \t])", row.group()[col:])
            if cell is not None and any(c.isdigit() for c in cell.group()):
                edits.append((pos + col, pos + col + cell.end(), "serial", cell.group()))
            pos = row.end() + 1


def find_serials(text: str, edits: list[Edit]) -> None:
    """Mask hardware serial numbers (GPU boards, FRUs, chassis) as <SERIAL-n>."""
    for rx in _SERIAL_RXS:
        for m in rx.finditer(text):
            value = m.group("v")
            if any(c.isdigit() for c in value) and value.strip("0-"):
                edits.append((m.start("v"), m.end("v"), "serial", value))
