#!/usr/bin/env python3
"""hostile_http: attacks an exporter on loopback while a normal scrape goes on.

    hostile_http.py HOST:PORT

From other loopback addresses (127.0.0.2 ...), as an attacker on another
host would come: slowloris (half-open requests that trickle a header byte
now and then), thousands of connections held open, huge headers, bad
methods and paths, garbage. Meanwhile the scraper (127.0.0.1) must get
every /metrics answer 200 within its deadline. Prints one line per check,
"ok ..." or "FAIL ...", and exits 1 on any failure.
"""
import resource
import socket
import sys
import threading
import time

host, port = sys.argv[1].rsplit(":", 1)
port = int(port)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
failures = []


def say(ok, what):
    print(("ok " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def conn(src, timeout=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind((src, 0))
    s.connect((host, port))
    return s


def exchange(src, request, timeout=5.0):
    """Sends request, returns (status, body bytes) read to the close."""
    s = conn(src, timeout)
    # The server may close or reset the connection while a request is still
    # being sent (a refused huge header does), so data exists before sendall.
    data = b""
    try:
        s.sendall(request)
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError, BrokenPipeError):
        pass
    finally:
        s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return status, body


SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n"


def scrape(what, deadline=3.0):
    t0 = time.monotonic()
    try:
        status, body = exchange("127.0.0.1", SCRAPE, timeout=deadline)
    except OSError as e:
        say(False, "%s: scrape failed: %s" % (what, e))
        return
    took = time.monotonic() - t0
    say(status == 200 and len(body) > 0 and took < deadline,
        "%s: a normal scrape answers 200 (%d, %d bytes, %.3f s)" % (what, status, len(body), took))


# 1. Slowloris: 300 half-open requests from one address, each trickling.
loris = []
for i in range(300):
    try:
        s = conn("127.0.0.2", 2.0)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        loris.append(s)
    except OSError:
        pass
say(len(loris) > 0, "slowloris: %d half-open connections opened" % len(loris))
stop = threading.Event()


def trickle():
    while not stop.is_set():
        for s in list(loris):
            try:
                s.send(b"X-a: b\r\n")
            except OSError:
                loris.remove(s)
        stop.wait(0.5)


trickler = threading.Thread(target=trickle, daemon=True)
trickler.start()
for k in range(3):
    scrape("during slowloris (%d)" % k)

# 2. Thousands of connections held open from another address.
held = []
for i in range(3000):
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind(("127.0.0.3", 0))
        s.connect_ex((host, port))
        held.append(s)
    except OSError:
        break
say(len(held) >= 1000, "%d connections opened from 127.0.0.3" % len(held))
for k in range(3):
    scrape("with %d connections held (%d)" % (len(held), k))

# 3. Huge headers: refused (431/413) or cut off, never served, never a crash.
big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
try:
    status, _ = exchange("127.0.0.4", big)
except OSError:
    status = 0
say(status != 200, "a 1 MiB header is not served (status %d)" % status)
many = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(20000)) + b"\r\n"
try:
    status, _ = exchange("127.0.0.4", many)
except OSError:
    status = 0
say(status != 200, "20,000 header lines are not served (status %d)" % status)
scrape("after huge headers")

# 4. Bad methods, paths and garbage.
for req, want in [
    (b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello", 405),
    (b"DELETE / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
    (b"BREW /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405),
    (b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404),
    (b"GET /metrics/../x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 404),
    (b"GET /" + b"a" * 10000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", None),
]:
    try:
        status, _ = exchange("127.0.0.5", req)
    except OSError:
        status = 0
    line = req.split(b"\r\n", 1)[0][:60].decode("latin-1")
    if want is None:
        say(status != 200, "%s...: not served (status %d)" % (line, status))
    else:
        say(status == want, "%s: status %d, expected %d" % (line, status, want))
for junk in [b"\x00\x01\x02garbage\r\n\r\n", b"GET\r\n\r\n", b"\xff" * 5000]:
    try:
        exchange("127.0.0.5", junk, timeout=2.0)
    except OSError:
        pass
scrape("after bad requests")

stop.set()
trickler.join()
for s in loris + held:
    s.close()
scrape("after the attack")
sys.exit(1 if failures else 0)
