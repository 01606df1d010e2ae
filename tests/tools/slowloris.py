#!/usr/bin/env python3
"""slowloris: idle and half-sent connections to gpur's exporter, all from
127.0.0.1 (the scraper's own address: there is no limit per address), and
what they cost it.

    slowloris.py plain HOST:PORT PID N
        200 connections (half idle, half with half a request head), a scrape
        answered within 1 s; then N in all, the scrape still answered, gpur's
        VmHWM before and after (its growth per connection printed); all let
        go, gpur closes them too.
    slowloris.py tls HOST:PORT PID N CAFILE READY RELEASE
        N TLS connections that never finish the handshake (half only TCP,
        half a partial ClientHello), an HTTPS scrape (Python's ssl) answered;
        then READY is written and they are held until RELEASE exists (the
        shell scrapes with curl meanwhile).
    slowloris.py limit HOST:PORT PID
        gpur runs under a low RLIMIT_NOFILE: its connection limit L is that
        limit less 512, its soft limit L - L/16. Opens L - 3 half-sent
        connections: none is shut before it waited 3 s; then the oldest are
        shut until no more than the soft limit are open, while a fresh scrape
        gets through; the rest are closed by the 10 s timeout.

PID is gpur's process, read in /proc: its VmHWM, and the connections it
holds (its sockets on the port, in /proc/net/tcp). Prints "ok<TAB>WHAT", "fail<TAB>WHAT"
or "info<TAB>TEXT" lines; the shell counts them.
"""
import os
import resource
import select
import socket
import ssl
import sys
import time

mode, addr, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
host, port = addr.rsplit(":", 1)
port = int(port)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

HALF = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow"
SCRAPE = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def say(cond, what):
    print(("ok" if cond else "fail") + "\t" + what, flush=True)
    return cond


def info(text):
    print("info\t" + text, flush=True)


def status_kb(key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return -1


def nfds():
    """gpur's accepted connections: its descriptors that are TCP sockets on
    the served port, other than the listening one (other descriptors, such
    as a replay's file, come and go)."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            t = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if t.startswith("socket:["):
            inodes.add(t[8:-1])
    n = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if int(f[1].rsplit(":", 1)[1], 16) == port and f[3] != "0A" and f[9] in inodes:
                n += 1
    return n


def wait_for(cond, seconds):
    """Polls cond until true or the deadline; returns its last value."""
    end = time.monotonic() + seconds
    while True:
        v = cond()
        if v or time.monotonic() > end:
            return v
        time.sleep(0.02)


def connect(timeout=10.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.bind(("127.0.0.1", 0))
    s.connect((host, port))
    return s


def read_all(s):
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except (socket.timeout, ConnectionResetError, ssl.SSLError):
        pass
    return data


def scrape(ctx=None, deadline=5.0):
    """A whole GET /metrics on a new connection: (status, body length, s)."""
    t0 = time.monotonic()
    try:
        s = connect(deadline)
        if ctx:
            s = ctx.wrap_socket(s, server_hostname="localhost")
        s.sendall(SCRAPE)
        data = read_all(s)
        s.close()
    except OSError as e:
        return 0, str(e), time.monotonic() - t0
    head, _, body = data.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return status, len(body), time.monotonic() - t0


def still_open(socks):
    """Those of socks the server has not closed (nothing to read, no EOF)."""
    return len(socks) - len(poll_readable(socks))


def poll_readable(socks):
    p = select.poll()
    for s in socks:
        p.register(s, select.POLLIN | select.POLLHUP | select.POLLERR)
    return [fd for fd, _ in p.poll(0)]


def open_many(n, first_kind, send, before=0):
    """n connections; every other one sends send(i) (half a head), the rest
    nothing. before: ours already open. Every 50 it waits for gpur to have
    accepted all but 100, so that the listen backlog (128) never overflows
    and no connect waits for a SYN retransmitted a second later. Returns the
    sockets and their opening times."""
    socks, times = [], []
    for i in range(n):
        if i % 50 == 0 and i >= 100:
            wait_for(lambda: nfds() >= before + i - 100, 5)
        s = connect()
        if (i + first_kind) % 2:
            s.sendall(send(i))
        socks.append(s)
        times.append(time.monotonic())
    return socks, times


def young(socks, times, age=8.5):
    """Those of socks opened less than age s ago: the 10 s timeout may
    rightly have closed the others."""
    now = time.monotonic()
    return [s for s, t in zip(socks, times) if now - t < age]


def plain(total):
    for _ in range(3):
        scrape()
    hwm0, rss0, fd0 = status_kb("VmHWM"), status_kb("VmRSS"), nfds()
    info("before: VmHWM %d kB, VmRSS %d kB, %d connections" % (hwm0, rss0, fd0))
    socks, times = open_many(200, 0, lambda i: HALF)
    say(wait_for(lambda: nfds() >= 200, 10), "gpur holds the 200 connections (%d)" % nfds())
    st, n, took = scrape(deadline=5)
    say(st == 200 and took < 1.0,
        "200 idle or half-sent connections from 127.0.0.1: a scrape from 127.0.0.1 answered 200 within 1 s "
        "(status %d, %s bytes, %.3f s)" % (st, n, took))
    t0 = time.monotonic()
    more, mtimes = open_many(total - 200, 1, lambda i: HALF, 200)
    socks += more
    times += mtimes
    info("%d connections opened in %.1f s" % (total, time.monotonic() - t0))
    say(wait_for(lambda: nfds() >= total, 30), "gpur holds the %d connections (%d)" % (total, nfds()))
    st, n, took = scrape(deadline=5)
    say(st == 200 and isinstance(n, int) and n > 1000,
        "%d idle or half-sent connections: a scrape still answered 200 (%s bytes, %.3f s)" % (total, n, took))
    st, n, took = scrape(deadline=5)
    say(st == 200, "and another (%.3f s)" % took)
    hwm1, rss1 = status_kb("VmHWM"), status_kb("VmRSS")
    yng = young(socks, times)
    left = still_open(yng)
    say(left == len(yng) >= total // 2, "none of the %d was closed by gpur under its limits (%d of the %d opened in the "
        "last 8.5 s still open)" % (total, left, len(yng)))
    grew = hwm1 - hwm0
    info("after %d connections: VmHWM %d kB (+%d kB), VmRSS %d kB (+%d kB): %.1f kB a connection" %
         (total, hwm1, grew, rss1, rss1 - rss0, grew / total))
    # ThreadSanitizer's shadow memory multiplies every allocation, so the
    # bound is a normal (or AddressSanitizer) build's.
    if os.environ.get("TSAN_OPTIONS"):
        info("under ThreadSanitizer: the memory bound is not checked")
    else:
        say(grew < 64 * 1024, "VmHWM grew less than 64 MiB for %d connections (%d kB, %.1f kB each)" % (total, grew, grew / total))
    for s in socks:
        s.close()
    back = wait_for(lambda: nfds() == 0, 20)
    say(back, "gpur lets go of them once they close (%d connections left)" % nfds())
    st, n, took = scrape(deadline=5)
    say(st == 200, "and scrapes go on (%.3f s)" % took)


def client_hello():
    """The first bytes of a real TLS ClientHello."""
    ctx = ssl.create_default_context()
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="localhost")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    hello = out.read()
    return hello[: max(len(hello) // 2, 10)]


def tls(total, cafile, ready, release):
    ctx = ssl.create_default_context(cafile=cafile)
    for _ in range(3):
        scrape(ctx)
    hwm0, rss0, fd0 = status_kb("VmHWM"), status_kb("VmRSS"), nfds()
    info("TLS before: VmHWM %d kB, VmRSS %d kB, %d connections" % (hwm0, rss0, fd0))
    hello = client_hello()
    t0 = time.monotonic()
    socks, times = open_many(total, 0, lambda i: hello)
    info("%d half-open TLS connections (%d bytes of a ClientHello on half) in %.1f s" %
         (total, len(hello), time.monotonic() - t0))
    say(wait_for(lambda: nfds() >= total, 30), "gpur holds the %d TLS connections (%d)" % (total, nfds()))
    st, n, took = scrape(ctx)
    say(st == 200, "%d half-open TLS connections: an HTTPS scrape answered 200 (%s bytes, %.3f s)" % (total, n, took))
    hwm1, rss1 = status_kb("VmHWM"), status_kb("VmRSS")
    grew = hwm1 - hwm0
    info("after %d TLS connections: VmHWM %d kB (+%d kB), VmRSS %d kB (+%d kB): %.1f kB a connection" %
         (total, hwm1, grew, rss1, rss1 - rss0, grew / total))
    if os.environ.get("TSAN_OPTIONS"):
        info("under ThreadSanitizer: the memory bound is not checked")
    else:
        say(grew < 64 * 1024, "VmHWM grew less than 64 MiB for %d TLS connections (%d kB, %.1f kB each)" % (total, grew, grew / total))
    with open(ready, "w") as f:
        f.write("%d\n" % total)
    wait_for(lambda: os.path.exists(release), 60)
    yng = young(socks, times)
    left = still_open(yng)
    say(left == len(yng) >= total // 4, "none of the %d TLS connections was closed under the limits (%d of the %d "
        "opened in the last 8.5 s still open)" % (total, left, len(yng)))
    for s in socks:
        s.close()


def fd_limit():
    with open("/proc/%d/limits" % pid) as f:
        for line in f:
            if line.startswith("Max open files"):
                return int(line.split()[3])
    return -1


def limit():
    lim = fd_limit()
    conns = lim - 512
    soft = conns - conns // 16
    total = conns - 3
    info("gpur's RLIMIT_NOFILE %d: a connection limit of %d, %d before the oldest waiting are shut; %d opened"
         % (lim, conns, soft, total))
    if not say(0 < soft < total < conns, "the limits leave room for the test (%d < %d < %d)" % (soft, total, conns)):
        return
    fd0 = nfds()
    socks, opened = [], []
    for i in range(total):
        s = connect()
        s.sendall(HALF)
        socks.append(s)
        opened.append(time.monotonic())
    say(wait_for(lambda: nfds() >= total, 10), "gpur holds the %d connections (%d)" % (total, nfds()))
    st, n, took = scrape()
    say(st == 200, "%d half-sent connections, under the limit of %d: a scrape answered (%.3f s)" % (total, conns, took))
    # Watch every connection until all are closed (the timeout ends them).
    closed = {}
    fd_to = {s.fileno(): i for i, s in enumerate(socks)}
    p = select.poll()
    for s in socks:
        p.register(s, select.POLLIN | select.POLLHUP | select.POLLERR)
    end = time.monotonic() + 16
    scraped_after = None
    while len(closed) < total and time.monotonic() < end:
        for fd, _ in p.poll(50):
            i = fd_to[fd]
            if i in closed:
                continue
            try:
                data = socks[i].recv(4096)
            except OSError:
                data = b""
            if data:
                continue  # an answer would be wrong, but is not a close
            closed[i] = time.monotonic()
            p.unregister(fd)
        # Once the sweep has shut some, a fresh scrape gets through.
        if scraped_after is None and any(closed[i] - opened[i] < 8 for i in closed):
            scraped_after = scrape()
    ages = {i: closed[i] - opened[i] for i in closed}
    swept = sorted(i for i in ages if ages[i] < 8)
    timed = sorted(i for i in ages if ages[i] >= 8)
    info("closed: %d by the sweep (ages %.2f to %.2f s, positions %s), %d by the timeout (ages %.2f to %.2f s), %d never"
         % (len(swept), min((ages[i] for i in swept), default=0), max((ages[i] for i in swept), default=0),
            swept[:12], len(timed), min((ages[i] for i in timed), default=0), max((ages[i] for i in timed), default=0),
            total - len(closed)))
    say(all(a >= 2.95 for a in ages.values()),
        "no connection shut before it waited 3 s (youngest at close: %.2f s)" % min(ages.values(), default=99))
    want = total - soft
    say(want <= len(swept) <= want + 2,
        "the sweep shut %d connections: those above the soft limit of %d (%d), and the scrape's own" % (len(swept), soft, want))
    say(swept and max(swept) < len(swept) + 10, "the oldest first (positions %s)" % swept[:12])
    say(all(ages[i] <= 3 + 1.5 for i in swept), "shut within 1.5 s of their 3 s (oldest shut at %.2f s)"
        % max((ages[i] for i in swept), default=0))
    if scraped_after is None:
        say(False, "a fresh scrape after the sweep (none was shut)")
    else:
        st, n, took = scraped_after
        say(st == 200, "a fresh scrape after the sweep answered 200 (%s bytes, %.3f s)" % (n, took))
    say(len(closed) == total and all(9.5 <= ages[i] <= 12.5 for i in timed),
        "the rest closed by the 10 s timeout (%d of %d, ages %.2f to %.2f s)"
        % (len(timed), total - len(swept), min((ages[i] for i in timed), default=0), max((ages[i] for i in timed), default=0)))
    for s in socks:
        s.close()
    st, n, took = scrape()
    say(st == 200, "scrapes go on (%.3f s)" % took)


if mode == "plain":
    plain(int(sys.argv[4]))
elif mode == "tls":
    tls(int(sys.argv[4]), sys.argv[5], sys.argv[6], sys.argv[7])
elif mode == "limit":
    limit()
else:
    sys.exit("usage: slowloris.py plain|tls|limit HOST:PORT PID ...")
