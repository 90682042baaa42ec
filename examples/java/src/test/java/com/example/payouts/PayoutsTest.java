package com.example.payouts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.example.payouts.PayoutClient.Payout;
import com.example.payouts.PayoutClient.PayoutException;
import com.example.payouts.PayoutClient.PayoutRejected;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The merchant's integration tests, against a payout-sandbox (see {@link PayoutSandbox} for which
 * one). The class has a merchant of its own with a manual clock of its own: time moves only when
 * a test advances it, so nothing here sleeps; webhooks are waited for with a bounded wait. The
 * review gate runs last: it judges everything the tests before it did.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PayoutsTest {
    static final Map<String, String> PAYEE = Map.of(
            "beneficiary_name", "Ravi Kumar",
            "beneficiary_email", "ravi@example.com",
            "beneficiary_mobile", "9812345670",
            "account_number", "50100012345678",
            "ifsc_code", "HDFC0001234");
    static final Duration WEBHOOK_WAIT = Duration.ofSeconds(10);

    /** A payout status change the receiver took: which delivery told it, and the transaction record. */
    record Webhook(String deliveryId, Map<String, Object> transaction) {}

    static PayoutSandbox sandbox;
    static PayoutSandbox.Merchant merchant;
    static PayoutClient client;
    static WebhookReceiver receiver;
    static final List<Webhook> webhooks = new ArrayList<>();

    @BeforeAll
    static void startSandbox() throws Exception {
        sandbox = PayoutSandbox.start();
        // t in X-Sandbox-Signature-V2 is the real time of the attempt, whatever the merchant's manual clock says.
        receiver = new WebhookReceiver(sandbox.webhookBindHost(), 0, Clock.systemUTC(), PayoutsTest::handle);
        merchant = sandbox.createMerchant(new BigDecimal("100000"), sandbox.webhookUrl(receiver.port()));
        receiver.setSecret(merchant.webhookSecret());
        client = new PayoutClient(sandbox.url(), merchant.headers());
    }

    @AfterAll
    static void stopSandbox() throws Exception {
        if (receiver != null) receiver.close();
        if (sandbox != null) assertEquals(0, sandbox.stop(), "the sandbox's exit code after SIGTERM");
    }

    /** What the merchant's service does with a verified delivery (here: remembers it). */
    static void handle(String deliveryId, byte[] rawBody) {
        Map<String, Object> event = Json.parseObject(new String(rawBody, UTF_8));
        Object transaction = event.containsKey("transaction") ? event.get("transaction") : PayoutClient.object(event.get("data")).get("transaction"); // V1 or V2
        synchronized (webhooks) {
            webhooks.add(new Webhook(deliveryId, PayoutClient.object(transaction)));
            webhooks.notifyAll();
        }
    }

    /** The webhook saying payout {@code refId} is {@code status}, once it has come (at most WEBHOOK_WAIT). */
    static Webhook awaitWebhook(String refId, String status) throws InterruptedException {
        long deadline = System.nanoTime() + WEBHOOK_WAIT.toNanos();
        synchronized (webhooks) {
            for (;;) {
                for (Webhook w : webhooks) {
                    if (refId.equals(String.valueOf(w.transaction().get("ref_id"))) && status.equals(w.transaction().get("status"))) return w;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) fail("no webhook saying " + refId + " is " + status + " within " + WEBHOOK_WAIT.toSeconds() + " s; got " + webhooks);
                webhooks.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    static int webhookCount() {
        synchronized (webhooks) {
            return webhooks.size();
        }
    }

    static void advance(String by) throws Exception {
        sandbox.advance(merchant.merchantId(), by);
    }

    @Test
    @Order(1)
    void aPayoutIsPendingThenSettlesAndItsSignedWebhookArrives() throws Exception {
        Payout payout = client.initialize("JAVA-0001", new BigDecimal("1500.50"), merchant.accountNo(), PAYEE);
        assertEquals("Pending", payout.status());
        assertEquals("Pending", client.status(payout.refId()).get("status"));
        advance("5s");
        assertEquals("Success", client.status(payout.refId()).get("status"));
        Webhook settled = awaitWebhook(payout.refId(), "Success"); // it passed the V2 signature check to get here
        assertEquals("JAVA-0001", settled.transaction().get("client_ref_id"));
        assertEquals(0, new BigDecimal("1500.50").compareTo((BigDecimal) settled.transaction().get("amount")));
    }

    @Test
    @Order(2)
    void rejectionsNameTheirCodeAndStoreNothing() {
        assertAll(
                () -> assertEquals("INSUFFICIENT_BALANCE", rejected("JAVA-0002", "1001.02").code()),
                () -> assertEquals("TRANSACTION_LIMIT_EXCEEDED", rejected("JAVA-0003", "1001.01").code()),
                () -> assertEquals("INVALID_BENEFICIARY", rejected("JAVA-0004", "1001.05").code()),
                () -> assertNull(client.find("JAVA-0002"), "a rejection stores nothing"),
                () -> {
                    // Envelope A: a field that fails its rule (HTTP 400, no error.code).
                    PayoutException invalid = assertThrows(PayoutException.class, () -> client.initialize("J-1", BigDecimal.TEN, merchant.accountNo(), PAYEE));
                    assertEquals(400, invalid.status);
                    assertTrue(invalid.getMessage().contains("The client ref id field must be between 5 and 30 characters."), invalid.getMessage());
                },
                () -> {
                    // 3003.03: HTTP 503, no payout made: the client looks it up, finds none, and says so.
                    PayoutException unavailable = assertThrows(PayoutException.class, () -> client.initialize("JAVA-0005", new BigDecimal("3003.03"), merchant.accountNo(), PAYEE));
                    assertEquals(503, unavailable.status);
                });
    }

    static PayoutRejected rejected(String clientRefId, String magicAmount) {
        return assertThrows(PayoutRejected.class, () -> client.initialize(clientRefId, new BigDecimal(magicAmount), merchant.accountNo(), PAYEE));
    }

    @Test
    @Order(3)
    void anUnknownPayoutIsNotAFailureAndSettlesLater() throws Exception {
        Payout succeeds = client.initialize("JAVA-0006", new BigDecimal("2002.03"), merchant.accountNo(), PAYEE);
        Payout fails = client.initialize("JAVA-0007", new BigDecimal("2002.04"), merchant.accountNo(), PAYEE);
        advance("5s");
        assertEquals("Unknown", client.status(succeeds.refId()).get("status"));
        assertEquals("Unknown", client.status(fails.refId()).get("status"));
        // Unknown is "marked for reconciliation": not paid again, checked again later.
        advance("1h");
        assertEquals("Success", client.status(succeeds.refId()).get("status"));
        Map<String, Object> failed = client.status(fails.refId());
        assertEquals("Failed", failed.get("status"));
        awaitWebhook(succeeds.refId(), "Success");
        awaitWebhook(fails.refId(), "Failed");
    }

    @Test
    @Order(4)
    void onlyWebhooksSignedWithTheSecretAndAFreshTimestampAreTaken() throws Exception {
        Payout payout = client.initialize("JAVA-0008", new BigDecimal("250"), merchant.accountNo(), PAYEE);
        advance("5s");
        Webhook handled = awaitWebhook(payout.refId(), "Success"); // a delivery the receiver has handled
        String body = "{\"transaction\":{\"ref_id\":1234567890,\"client_ref_id\":\"FORGED-0001\",\"status\":\"Success\"}}";
        long now = System.currentTimeMillis() / 1000;
        int before = webhookCount();
        assertAll(
                () -> assertEquals(401, post(body, "whd_90000001", "t=" + now + ",v1=" + sign("not-the-secret", now, body)), "forged"),
                () -> assertEquals(401, post(body, "whd_90000002", "t=" + (now - 600) + ",v1=" + sign(merchant.webhookSecret(), now - 600, body)), "stale"),
                () -> assertEquals(401, post(body, "whd_90000003", null), "no V2 signature"),
                () -> assertEquals(200, post(body, handled.deliveryId(), "t=" + now + ",v1=" + sign(merchant.webhookSecret(), now, body)), "a repeat"),
                () -> assertEquals(before, webhookCount(), "none of them handled"));
        // The sandbox's own probe: a genuine delivery, a forged one, a stale one, a duplicate, …
        Map<String, Object> probe = sandbox.probeWebhooks(merchant.merchantId());
        assertEquals(Boolean.TRUE, probe.get("ok"), () -> "receiver probe: " + Json.write(probe.get("checks")));
    }

    /** Posts {@code body} to the receiver as the sandbox would; the HTTP status it answered. */
    static int post(String body, String deliveryId, String signatureV2) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + receiver.port() + "/hooks"))
                .header("Content-Type", "application/json")
                .header("X-Sandbox-Delivery-Id", deliveryId)
                // The older header, correctly signed: a receiver must not take it alone.
                .header("X-Sandbox-Signature", "sha256=" + HexFormat.of().formatHex(hmac(merchant.webhookSecret(), body.getBytes(UTF_8))))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (signatureV2 != null) request.header("X-Sandbox-Signature-V2", signatureV2);
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    static String sign(String secret, long t, String body) throws Exception {
        return HexFormat.of().formatHex(hmac(secret, (t + "." + body).getBytes(UTF_8)));
    }

    static byte[] hmac(String secret, byte[] data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(UTF_8), "HmacSHA256"));
        return mac.doFinal(data);
    }

    @Test
    @Order(5)
    void aPayoutWhoseInitializeAnswered500IsFoundNotSentAgain() throws Exception {
        // 3003.01: HTTP 500, but the payout is made. The client must not pay it again under a new client_ref_id.
        Payout payout = client.initialize("JAVA-0500", new BigDecimal("3003.01"), merchant.accountNo(), PAYEE);
        assertEquals("JAVA-0500", payout.clientRefId());
        assertEquals("Pending", payout.status());
        List<Map<String, Object>> made = sandbox.payouts(merchant.merchantId()).stream()
                .filter(p -> new BigDecimal("3003.01").compareTo((BigDecimal) p.get("amount")) == 0)
                .collect(Collectors.toList());
        assertEquals(1, made.size(), () -> "payouts of 3003.01: " + made.stream().map(p -> p.get("client_ref_id")).collect(Collectors.toList()));
        assertEquals("JAVA-0500", made.get(0).get("client_ref_id"));
        advance("5s");
        assertEquals("Success", client.status(payout.refId()).get("status"));
    }

    @Test
    @Order(6)
    void aRefusedStatusCheckIsWaitedOutOnTheSandboxClockNotInRealTime() throws Exception {
        // The reference allows 3 status checks of a payout a minute; the 4th is answered 429 with Retry-After.
        // On a manual clock the client advances it by that much instead of sleeping. A merchant of its own:
        // this polls over the limit on purpose, which the main merchant's review would rightly count.
        PayoutSandbox.Merchant poller = sandbox.createMerchant(new BigDecimal("1000"), null);
        List<Duration> waited = new ArrayList<>();
        PayoutClient onTheClock = new PayoutClient(sandbox.url(), poller.headers()).waitingWith(d -> {
            waited.add(d);
            sandbox.advance(poller.merchantId(), d.toSeconds() + "s");
        });
        Payout payout = onTheClock.initialize("JAVA-0429", new BigDecimal("10"), poller.accountNo(), PAYEE);
        for (int i = 0; i < 4; i++) assertNotNull(onTheClock.status(payout.refId()).get("status"));
        assertEquals(List.of(Duration.ofSeconds(60)), waited, "the 4th check's Retry-After, waited out once by advancing the clock");
    }

    @Test
    @Order(7)
    void reviewGateNoHighFinding() throws Exception {
        Map<String, Object> review = sandbox.review(merchant.merchantId());
        Map<String, Object> summary = PayoutClient.object(review.get("summary"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> findings = (List<Map<String, Object>>) review.get("findings");
        String described = findings.stream()
                .map(f -> f.get("rule") + " (" + f.get("severity") + "): " + f.get("detail"))
                .collect(Collectors.joining("\n  ", "findings:\n  ", ""));
        assertEquals(0, ((BigDecimal) summary.get("high")).intValue(), () -> "high findings in the integration review; " + described);
        // …and the dangerous situations were really made to happen, so "no finding" means something.
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> rules = (List<Map<String, Object>>) review.get("rules");
        Map<String, Object> results = rules.stream().collect(Collectors.toMap(r -> (String) r.get("rule"), r -> r.get("result")));
        for (String rule : List.of("double-payout-after-timeout", "double-payout-while-unresolved", "webhook-forged-accepted", "webhook-stale-accepted")) {
            assertEquals("passed", results.get(rule), () -> rule + " was not exercised; " + described);
        }
    }
}
