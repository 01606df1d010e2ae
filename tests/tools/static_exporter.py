#!/usr/bin/env python3
"""static_exporter: serves a fixed exposition file as a scrape target.

  static_exporter.py PORTFILE FILE

Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE once
listening) and answers GET /metrics with FILE's bytes as text format 0.0.4,
read at every request; any other path is 404. It stands in for an exporter
that gpur cannot run here, such as dcgm-exporter of one version or another.
"""
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORTFILE, FILE = sys.argv[1:3]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.split("?")[0] != "/metrics":
            self.send_error(404)
            return
        with open(FILE, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
tmp = PORTFILE + ".tmp"
with open(tmp, "w") as f:
    f.write("%d\n" % server.server_address[1])
os.rename(tmp, PORTFILE)
server.serve_forever()
