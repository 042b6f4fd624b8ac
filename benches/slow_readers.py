#!/usr/bin/env python3
"""Clients that never read their answers must not lock out heavy work (#44).

Starts the release binary (as benches/starve.py does). READERS (4) clients with 4 KiB receive
buffers send the issue's sweep (`/v1/sweeps?gpus=1024&vary=gpus&from=256&to=11000&steps=10000
&format=csv`) and read nothing. Once their answers are computed, a fifth client (127.0.0.2) asks the same
sweep, an uncertainty analysis and the tornado chart, each timed. Then it waits past the write
stall (FABRIC_TCO_WRITE_STALL_SECS, default 10 s) and reports how much each silent client could
still read (its connection is cut: far less than its content-length).

PASS when the fifth client's three requests answer 200 while the silent clients hold their
answers, and every silent connection is cut after the stall.
Environment: FABRIC_TCO_BIN (skip the build), READERS [4].
Exit: 0 PASS, 1 MISS, 2 set-up failed.
"""
import http.client, os, re, socket, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from starve import binary, start  # noqa: E402

READERS = int(os.environ.get("READERS", "4"))
SWEEP = "/v1/sweeps?gpus=1024&vary=gpus&from=256&to=11000&steps=10000&format=csv"
FIFTH = [
    ("the same sweep", SWEEP),
    ("an uncertainty analysis", "/v1/plans?gpus=2048&uncertainty.samples=200"),
    ("the tornado chart", "/v1/charts/tornado?gpus=1024"),
]


def main():
    proc, host, port = start(binary())
    try:
        silent = []
        for _ in range(READERS):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect((host, port))
            s.sendall(f"GET {SWEEP} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            silent.append(s)
        time.sleep(3)  # computed (a 10,000-point sweep takes well under a second here)
        results = []
        for what, path in FIFTH:
            # Another client, another address: the silent clients' own is refused more heavy
            # work while its answers sit unread.
            c = http.client.HTTPConnection(host, port, timeout=60, source_address=("127.0.0.2", 0))
            t = time.perf_counter()
            c.request("GET", path)
            r = c.getresponse()
            body = r.read()
            ms = (time.perf_counter() - t) * 1000
            results.append((r.status == 200, f"{what}: {r.status} in {ms:.0f} ms ({len(body)} bytes)"))
        time.sleep(15)  # past the write stall
        for i, s in enumerate(silent):
            s.settimeout(5)
            got = b""
            try:
                while True:
                    part = s.recv(1 << 20)
                    if not part:
                        break
                    got += part
            except OSError:
                pass
            m = re.search(rb"content-length: (\d+)", got[:4096], re.I)
            length = int(m.group(1)) if m else 0
            if got.startswith(b"HTTP/1.1 503"):
                results.append((True, f"silent client {i + 1}: refused, 503 busy (its address holds unread answers, or the slots were computing)"))
                continue
            results.append((0 < len(got) < length,
                            f"silent client {i + 1}: read {len(got):,} of {length:,} bytes after the stall (cut)"))
        for ok, line in results:
            print(f"{'PASS' if ok else 'MISS'}: {line}")
        return 0 if all(ok for ok, _ in results) else 1
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    sys.exit(main())
