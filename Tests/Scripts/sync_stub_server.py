#!/usr/bin/env python3
"""A scripted HTTP/1.1 responder for the unit tests of MedVault's HTTP sync transport:
it answers whatever the test queued, and records every request, so the tests can check
error mapping, retries, Retry-After, size limits and redirects without the sync server.
Python standard library only.

Usage: sync_stub_server.py
Listens on 127.0.0.1 on a free port, prints "PORT <n>" on standard output, and exits
when its standard input closes (the test process ended) or when killed.

Control (paths starting with /_):
  POST /_script     body: a JSON list of answers, queued in order; each answer is
                    {"status": 200, "headers": {...}, "body": "<text>", "size": N (a body of N bytes of 'x'),
                     "delay": seconds before answering}
                    Once the queue is empty, the last answer repeats.
  GET  /_requests   the requests received so far (not /_ ones):
                    [{"method", "path", "headers": {lower-case name: value}, "body": "<base64>"}]
  GET  /_stolen     any request here is counted as a followed redirect
  GET  /_stats      {"stolen": <count of requests to /_stolen>}
"""
import base64
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
SCRIPT = []
LAST = {"status": 500, "body": "{\"error\":\"internal_error\",\"message\":\"no script\"}"}
REQUESTS = []
STOLEN = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status, body=b"", headers=None):
        self.send_response(status)
        headers = dict(headers or {})
        headers.setdefault("Content-Type", "application/json")
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body:
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    def _handle(self):
        global LAST
        body = self._body()
        path = self.path
        if path.startswith("/_script"):
            with LOCK:
                SCRIPT.extend(json.loads(body))
            return self._send(204)
        if path.startswith("/_requests"):
            with LOCK:
                data = json.dumps(REQUESTS).encode()
            return self._send(200, data)
        if path.startswith("/_stats"):
            with LOCK:
                data = json.dumps({"stolen": STOLEN[0]}).encode()
            return self._send(200, data)
        if path.startswith("/_stolen"):
            with LOCK:
                STOLEN[0] += 1
            return self._send(200, b"{}")
        with LOCK:
            REQUESTS.append({
                "method": self.command, "path": path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": base64.b64encode(body).decode(),
            })
            if SCRIPT:
                LAST = SCRIPT.pop(0)
            answer = LAST
        if answer.get("delay"):
            time.sleep(answer["delay"])
        payload = b"x" * answer["size"] if "size" in answer else answer.get("body", "").encode()
        headers = dict(answer.get("headers") or {})
        if "Location" in headers and headers["Location"].startswith("/"):
            headers["Location"] = "http://127.0.0.1:%d%s" % (self.server.server_port, headers["Location"])
        self._send(answer.get("status", 200), payload, headers)

    do_GET = do_POST = do_PUT = do_DELETE = _handle


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT %d" % server.server_port, flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The lifeline: exit once the test process closes our standard input.
    sys.stdin.buffer.read()


if __name__ == "__main__":
    main()
