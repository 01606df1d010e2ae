#!/usr/bin/env python3
"""fake_prometheus: a tiny stand-in for Prometheus's /api/v1/query, for the
fleet view's fault tests.

  fake_prometheus.py PORTFILE MODEFILE LOGFILE

Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE once
listening). Each request reads MODEFILE (one word) and answers:
  ok       a success: two hosts, node-1 and a hostile name (an escape
           sequence, a newline, 300 bytes), two GPUs each
  500      HTTP 500 with a body that is not JSON
  error    HTTP 422 with Prometheus's error envelope
  hang     nothing for 60 s (the client must give up)
  slow     as ok, after 0.3 s
  partial  a success cut off in the middle
  together as ok, but a query with a `time` waits (up to 10 s) until a
           second query for that same evaluation time has arrived: a client
           that sends a poll's queries one after another times out on the
           first, one that sends them at once is answered (a query without
           `time`, such as a client's first probe, is answered at once)
Each request appends "<monotonic seconds> <mode>" to LOGFILE.
"""
import json
import os
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, MODEFILE, LOGFILE = sys.argv[1:4]
HOSTILE = "evil\x1b[31m\nhost" + "x" * 300
VALUES = {
    "DCGM_FI_DEV_GPU_UTIL": 40, "DCGM_FI_DEV_FB_USED": 1024, "DCGM_FI_DEV_FB_FREE": 3072,
    "DCGM_FI_DEV_GPU_TEMP": 50, "DCGM_FI_DEV_POWER_USAGE": 100.5,
}
lock = threading.Lock()
# "together": how many queries have arrived for each evaluation time.
flight = threading.Condition()
arrived = {}


def answer(query):
    result = []
    for metric, v in VALUES.items():
        if metric in query:
            for host in ("node-1", HOSTILE):
                for g in range(2):
                    result.append({"metric": {"__name__": metric, "Hostname": host, "gpu": str(g),
                                              "UUID": "GPU-%d-%d" % (len(host), g), "instance": "x:9400"},
                                   "value": [time.time(), str(v)]})
    return {"status": "success", "data": {"resultType": "vector", "result": result}}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def wait_for_company(self):
        """True once a second query for this one's evaluation time came."""
        t = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("time", [None])[0]
        if t is None:
            return True
        with flight:
            arrived[t] = arrived.get(t, 0) + 1
            flight.notify_all()
            return flight.wait_for(lambda: arrived[t] >= 2, timeout=10)

    def do_GET(self):
        try:
            mode = open(MODEFILE).read().split()[0]
        except (OSError, IndexError):
            mode = "ok"
        with lock:
            with open(LOGFILE, "a") as f:
                f.write("%.3f %s\n" % (time.monotonic(), mode))
        q = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
        if mode == "hang":
            time.sleep(60)
            return
        if mode == "together" and not self.wait_for_company():
            return
        if mode == "slow":
            time.sleep(0.3)
        if mode == "500":
            body, code = b"<html>internal error</html>", 500
        elif mode == "error":
            body = json.dumps({"status": "error", "errorType": "execution", "error": "query timed out"}).encode()
            code = 422
        else:
            body, code = json.dumps(answer(q)).encode(), 200
            if mode == "partial":
                body = body[: len(body) // 2]
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class Server(ThreadingHTTPServer):
    # A poll's queries come at once, each on its own connection: a listen
    # backlog of socketserver's 5 would drop the rest (retried a second
    # later). Prometheus's own is the kernel's somaxconn.
    request_queue_size = 128


server = Server(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(PORTFILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(PORTFILE + ".tmp", PORTFILE)
server.serve_forever()
