"""A payout client as a merchant's Python service would have one (standard library only).

It sends the three credential headers, reads both error envelopes, honours 429 with Retry-After,
and never pays twice: after an answer it cannot trust (a 5xx, a dropped connection, a time-out)
the payout may exist, so it looks the payout up by its client_ref_id instead of sending it again
under a new one.
"""

import json
import time
import urllib.error
import urllib.parse
import urllib.request


class PayoutError(Exception):
    """The API said no, or could not be trusted to have said anything."""

    def __init__(self, status, body, message=None):
        super().__init__(message or f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class PayoutRejected(PayoutError):
    """A business error (envelope B): nothing was debited, nothing stored."""

    @property
    def code(self):
        return (self.body.get("error") or {}).get("code")


class PayoutClient:
    def __init__(self, base_url, email, api_key, api_secret, timeout=10):
        self.base_url = base_url.rstrip("/")
        self.headers = {"x-merchant-email": email, "x-api-key": api_key, "x-api-secret": api_secret}
        self.timeout = timeout

    def _call(self, method, path, body=None, query=None):
        url = f"{self.base_url}{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        data = None if body is None else json.dumps(body).encode()
        headers = dict(self.headers, **({"content-type": "application/json"} if data else {}))
        for attempt in range(5):
            request = urllib.request.Request(url, data=data, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as res:
                    return res.status, json.loads(res.read() or b"{}")
            except urllib.error.HTTPError as err:
                payload = json.loads(err.read() or b"{}")
                if err.code == 429 and attempt < 4:  # rate limited: wait as told, then again
                    time.sleep(float(err.headers.get("Retry-After", "1")))
                    continue
                return err.code, payload
        raise PayoutError(429, {}, "still rate limited after 5 attempts")

    def initialize(self, client_ref_id, amount, debit_from, beneficiary, payment_method="1001", remarks="payout"):
        """Sends a payout; returns {ref_id, client_ref_id, status}. Raises PayoutRejected for a business error."""
        body = dict(
            beneficiary,
            client_ref_id=client_ref_id,
            transfer_type="BANK",
            amount=amount,
            payment_method=payment_method,
            debit_from=debit_from,
            purpose="VENDOR_PAYOUT",
            remarks=remarks,
        )
        try:
            status, answer = self._call("POST", "/api/v1/public/payment/transfer", body)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            status, answer = None, {}
        if status is None or status >= 500:
            # The payout may have been made: find it, never send it again under a new client_ref_id.
            found = self.find(client_ref_id)
            if found is not None:
                return {"ref_id": str(found["ref_id"]), "client_ref_id": client_ref_id, "status": found["status"]}
            raise PayoutError(status, answer, f"initialize {client_ref_id}: HTTP {status}, and no payout was made")
        if not answer.get("success", False):
            raise PayoutRejected(status, answer)
        return answer["data"]

    def find(self, client_ref_id):
        """The payout with this client_ref_id, or None when there is none (yet)."""
        status, answer = self._call("GET", "/api/v1/public/payment/transfer/status", query={"client_ref_id": client_ref_id})
        if status == 200 and answer.get("success"):
            return answer["data"]["transaction"]
        return None

    def status(self, ref_id):
        """The payout's transaction record (status, amount, fees, …)."""
        status, answer = self._call("GET", "/api/v1/public/payment/transfer/status", query={"ref_id": ref_id})
        if status != 200 or not answer.get("success"):
            raise PayoutError(status, answer)
        return answer["data"]["transaction"]
