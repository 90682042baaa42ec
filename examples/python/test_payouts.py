"""The merchant's integration tests, against a running payout-sandbox (standard library only).

    PAYOUT_SANDBOX_URL=http://127.0.0.1:4010 python3 -m unittest -v

The suite creates a merchant of its own with a manual clock (so it can share a sandbox with other
suites) and points that merchant's webhooks at its receiver. With an admin token set on the
sandbox, give it as PAYOUT_SANDBOX_ADMIN_TOKEN. The receiver listens on 127.0.0.1; when the sandbox
runs elsewhere (another container), set PAYOUT_WEBHOOK_BIND=0.0.0.0 and PAYOUT_WEBHOOK_HOST to the
name the sandbox reaches this machine by (examples/docker-compose.yml does).
"""

import json
import os
import unittest
import urllib.error
import urllib.request

from payout_client import PayoutClient, PayoutRejected
from webhook_receiver import WebhookReceiver

BASE = os.environ.get("PAYOUT_SANDBOX_URL", "http://127.0.0.1:4010").rstrip("/")
TOKEN = os.environ.get("PAYOUT_SANDBOX_ADMIN_TOKEN", "")
PAYEE = {
    "beneficiary_name": "Ravi Kumar",
    "beneficiary_email": "ravi@example.com",
    "beneficiary_mobile": "9812345670",
    "account_number": "50100012345678",
    "ifsc_code": "HDFC0001234",
}


def control(method, path, body=None):
    """The sandbox's control API (/__sandbox): merchants, clocks, webhooks."""
    headers = {"content-type": "application/json"}
    if TOKEN:
        headers["authorization"] = f"Bearer {TOKEN}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{BASE}/__sandbox{path}", data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as res:
        return json.loads(res.read() or b"{}")


class PayoutIntegration(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.receiver = WebhookReceiver(
            host=os.environ.get("PAYOUT_WEBHOOK_BIND", "127.0.0.1"), url_host=os.environ.get("PAYOUT_WEBHOOK_HOST") or None
        )
        merchant = control("POST", "/merchants", {"balance": 100000, "clock": {"mode": "manual"}, "webhook_url": cls.receiver.url})
        cls.receiver.secret = merchant["webhook_secret"]
        cls.merchant = merchant
        cls.client = PayoutClient(BASE, merchant["email"], merchant["api_key"], merchant["api_secret"])

    @classmethod
    def tearDownClass(cls):
        cls.receiver.stop()

    def advance(self, by):
        """Moves this merchant's clock only: what is due on it (settlement, webhooks) happens now."""
        control("POST", f"/merchants/{self.merchant['merchant_id']}/clock/advance", {"by": by})

    def test_a_payout_settles_and_its_signed_webhook_arrives(self):
        payout = self.client.initialize("PY-0001", 1500.50, self.merchant["account_no"], PAYEE)
        self.assertEqual(payout["status"], "Pending")
        self.advance("5s")
        self.assertEqual(self.client.status(payout["ref_id"])["status"], "Success")
        settled = self.receiver.wait_for(payout["ref_id"], "Success")
        self.assertEqual(settled["client_ref_id"], "PY-0001")

    def test_a_rejection_names_its_code_and_debits_nothing(self):
        with self.assertRaises(PayoutRejected) as rejected:
            self.client.initialize("PY-0002", 1001.02, self.merchant["account_no"], PAYEE)  # magic amount
        self.assertEqual(rejected.exception.code, "INSUFFICIENT_BALANCE")
        self.assertIsNone(self.client.find("PY-0002"))

    def test_after_a_500_that_made_the_payout_it_is_found_not_sent_again(self):
        payout = self.client.initialize("PY-0003", 3003.01, self.merchant["account_no"], PAYEE)  # HTTP 500, payout made
        self.assertEqual(self.client.find("PY-0003")["ref_id"], int(payout["ref_id"]))
        review = control("GET", f"/merchants/{self.merchant['merchant_id']}/review")
        self.assertNotIn("double-payout-after-timeout", [f["rule"] for f in review["findings"]])

    def test_a_forged_webhook_is_refused(self):
        before = self.receiver.refused
        forged = urllib.request.Request(
            self.receiver.url,
            data=b'{"transaction":{"ref_id":1,"status":"Success"}}',
            headers={"content-type": "application/json", "X-Sandbox-Signature-V2": "t=1,v1=00"},
        )
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(forged, timeout=5)
        self.assertEqual(refused.exception.code, 401)
        self.assertEqual(self.receiver.refused, before + 1)


if __name__ == "__main__":
    unittest.main()
