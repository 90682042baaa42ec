"""A payout webhook receiver (standard library only): verifies X-Sandbox-Signature-V2 over the raw
body with a fresh timestamp, answers 401 to anything else, and acts on each delivery once (a
delivery seen before is acknowledged and ignored)."""

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOLERANCE_S = 300


def verify_v2(header, raw_body, secret, now=None):
    """Whether `t=<unix s>,v1=<hex HMAC-SHA256 of "t." + body>` verifies (any v1 entry: rotations send two)."""
    pairs = [p.strip().split("=", 1) for p in (header or "").split(",")]
    pairs = [(p[0], p[1]) for p in pairs if len(p) == 2]
    t = next((v for k, v in pairs if k == "t"), "")
    if not (t.isascii() and t.isdigit()) or abs((now or time.time()) - int(t)) > TOLERANCE_S:
        return False
    expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).hexdigest().encode()
    # As bytes: compare_digest refuses str with non-ASCII characters (a header can carry any).
    return any(k == "v1" and hmac.compare_digest(v.encode(), expected) for k, v in pairs)


class WebhookReceiver:
    """Listens on host:port (port 0: a free one) in a thread of its own; `url` is where the sandbox
    sends to: on `url_host` when given (the name the sandbox reaches this machine by, e.g. a compose
    service), else on `host`."""

    def __init__(self, secret="", host="127.0.0.1", port=0, url_host=None):
        self.secret = secret
        self.transactions = []  # each payout status change, once
        self.refused = 0
        self._seen = set()
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                self.send_response(receiver._receive(self.headers, raw))
                self.end_headers()

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer((host, port), Handler)
        self.url = f"http://{url_host or host}:{self._server.server_address[1]}/hooks"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _receive(self, headers, raw):
        if not verify_v2(headers.get("X-Sandbox-Signature-V2"), raw, self.secret):
            self.refused += 1
            return 401
        delivery = headers.get("X-Sandbox-Delivery-Id")
        with self._changed:
            if delivery in self._seen:
                return 200  # handled before: acknowledge, do nothing
            self._seen.add(delivery)
            event = json.loads(raw)
            self.transactions.append(event.get("transaction") or event["data"]["transaction"])  # V1 or V2 body
            self._changed.notify_all()
        return 204

    def wait_for(self, ref_id, status, timeout=10):
        """The transaction once a webhook said the payout `ref_id` is `status`; AssertionError after `timeout` s."""
        with self._changed:
            found = self._changed.wait_for(
                lambda: next((t for t in self.transactions if str(t["ref_id"]) == str(ref_id) and t["status"] == status), None), timeout
            )
        if found is None:
            raise AssertionError(f"no webhook saying {ref_id} is {status} within {timeout} s (got {self.transactions})")
        return found

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
