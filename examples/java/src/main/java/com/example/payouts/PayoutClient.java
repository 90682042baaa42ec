package com.example.payouts;

import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A payout client as a merchant's Java service would have one (JDK only: java.net.http).
 *
 * <p>It sends the three credential headers, reads both error envelopes (A: {@code success,
 * http_code, message}; B: {@code status, message, error.code}), honours 429 with Retry-After, and
 * never pays twice: after an answer it cannot trust (a 5xx, a dropped connection, a time-out) the
 * payout may exist, so it looks the payout up by its client_ref_id instead of sending it again
 * under a new one.
 */
public final class PayoutClient {
    static final String TRANSFER = "/api/v1/public/payment/transfer";
    static final String STATUS = "/api/v1/public/payment/transfer/status";
    static final String NOT_FOUND = "Unable to find transaction using provided ID";

    /** What initialize answered (or what the look-up found after an answer that could not be trusted). */
    public record Payout(String refId, String clientRefId, String status) {}

    /** The API said no, or could not be trusted to have said anything; {@code status} is -1 when no answer came. */
    public static class PayoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final int status;
        public final Map<String, Object> body;

        PayoutException(int status, Map<String, Object> body, String message) {
            super(message);
            this.status = status;
            this.body = body;
        }
    }

    /** A business error (envelope B, HTTP 400): nothing was debited, nothing stored. */
    public static final class PayoutRejected extends PayoutException {
        private static final long serialVersionUID = 1L;

        PayoutRejected(int status, Map<String, Object> body) {
            super(status, body, "HTTP " + status + ": " + Json.write(body));
        }

        /** {@code error.code}, e.g. INSUFFICIENT_BALANCE. */
        public String code() {
            return body.get("error") instanceof Map<?, ?> error ? String.valueOf(error.get("code")) : null;
        }
    }

    /** An HTTP answer: its status (-1: none came), its JSON body, its Retry-After. */
    record Answer(int status, Map<String, Object> body, String retryAfter) {}

    /** How the client waits out a 429's Retry-After: in real time by default; on a manual clock, by advancing it. */
    @FunctionalInterface
    public interface Waiter {
        void waitFor(Duration retryAfter) throws Exception;
    }

    private final String baseUrl;
    private final Map<String, String> headers;
    private final HttpClient http;
    private final Duration timeout;
    private final Waiter waiter;

    /** {@code headers}: x-merchant-email, x-api-key and x-api-secret. */
    public PayoutClient(String baseUrl, Map<String, String> headers) {
        this(baseUrl, headers, Duration.ofSeconds(10));
    }

    public PayoutClient(String baseUrl, Map<String, String> headers, Duration timeout) {
        this(baseUrl, headers, timeout, d -> Thread.sleep(d.toMillis()));
    }

    private PayoutClient(String baseUrl, Map<String, String> headers, Duration timeout, Waiter waiter) {
        this.baseUrl = baseUrl.replaceAll("/+$", "");
        this.headers = Map.copyOf(headers);
        this.timeout = timeout;
        this.waiter = waiter;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    /**
     * The same client, waiting out a 429's Retry-After with {@code waiter} instead of sleeping: in a
     * test on a manual clock, {@code d -> sandbox.advance(merchantId, d.toSeconds() + "s")}, so a
     * refused status check costs no real time.
     */
    public PayoutClient waitingWith(Waiter waiter) {
        return new PayoutClient(baseUrl, headers, timeout, waiter);
    }

    /**
     * Sends a payout to {@code beneficiary} (a {@code beneficiary_id}, or the inline
     * {@code beneficiary_name, beneficiary_email, beneficiary_mobile, account_number, ifsc_code}).
     * Throws {@link PayoutRejected} for a business error, {@link PayoutException} when no payout
     * was made or none can be known to have been.
     */
    public Payout initialize(String clientRefId, BigDecimal amount, String debitFrom, Map<String, ?> beneficiary) {
        Map<String, Object> body = new LinkedHashMap<>(beneficiary);
        body.put("client_ref_id", clientRefId);
        body.put("transfer_type", "BANK");
        body.put("amount", amount);
        body.put("payment_method", "1001");
        body.put("debit_from", debitFrom);
        body.put("purpose", "VENDOR_PAYOUT");
        body.put("remarks", "payout " + clientRefId);
        Answer answer = call("POST", TRANSFER, body);
        if (answer.status() < 0 || answer.status() >= 500) {
            // The payout may have been made: find it by its client_ref_id, never send it again under a new one.
            // naive-switch
            Map<String, Object> found = find(clientRefId);
            if (found != null) return new Payout(String.valueOf(found.get("ref_id")), String.valueOf(found.get("client_ref_id")), (String) found.get("status"));
            // Not found is not "not made": a payout just made may not be visible yet (read-after-write lag). The caller
            // must not pay again under a new id: it retries this one with the same client_ref_id later.
            throw new PayoutException(answer.status(), answer.body(), "initialize " + clientRefId + ": HTTP " + answer.status()
                + ", and no payout found by its client_ref_id yet: it may still have been made; retry with the same client_ref_id, never a new one");
        }
        if (!Boolean.TRUE.equals(answer.body().get("success"))) {
            if (answer.body().get("error") instanceof Map) throw new PayoutRejected(answer.status(), answer.body());
            throw new PayoutException(answer.status(), answer.body(), "initialize " + clientRefId + ": HTTP " + answer.status() + ": " + answer.body().get("message"));
        }
        Map<String, Object> data = object(answer.body().get("data"));
        return new Payout(String.valueOf(data.get("ref_id")), (String) data.get("client_ref_id"), (String) data.get("status"));
    }

    /** The payout with this client_ref_id (its transaction record), or null when there is none (yet). */
    public Map<String, Object> find(String clientRefId) {
        return lookUp("client_ref_id", clientRefId);
    }

    /** The payout's transaction record (status, amount, fees, …); a PayoutException when there is none. */
    public Map<String, Object> status(String refId) {
        Map<String, Object> transaction = lookUp("ref_id", refId);
        if (transaction == null) throw new PayoutException(400, Map.of(), "no payout " + refId + ": " + NOT_FOUND);
        return transaction;
    }

    private Map<String, Object> lookUp(String key, String value) {
        Answer answer = call("GET", STATUS + "?" + key + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8), null);
        if (answer.status() == 200 && Boolean.TRUE.equals(answer.body().get("success"))) {
            return object(object(answer.body().get("data")).get("transaction"));
        }
        // Envelope B "not found": none (yet: a payout just made may not be visible for a moment).
        if (answer.body().get("error") instanceof Map<?, ?> error && NOT_FOUND.equals(error.get("message"))) return null;
        throw new PayoutException(answer.status(), answer.body(), "status of " + key + "=" + value + ": HTTP " + answer.status() + ": " + Json.write(answer.body()));
    }

    /** One request, again after a 429 once its Retry-After has passed (at most 5 tries); status -1 when no answer came. */
    Answer call(String method, String path, Map<String, Object> body) {
        for (int attempt = 1; ; attempt++) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout);
            headers.forEach(request::header);
            if (body == null) {
                request.method(method, HttpRequest.BodyPublishers.noBody());
            } else {
                request.header("Content-Type", "application/json"); // without it the sandbox reads no body
                request.method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)));
            }
            HttpResponse<String> response;
            try {
                response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            } catch (IOException e) { // refused, dropped with no answer, timed out
                return new Answer(-1, Map.of(), null);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PayoutException(-1, Map.of(), "interrupted");
            }
            String retryAfter = response.headers().firstValue("Retry-After").orElse(null);
            Answer answer = new Answer(response.statusCode(), parse(response), retryAfter);
            if (answer.status() != 429 || attempt == 5) return answer;
            waitOut(retryAfter);
        }
    }

    private static Map<String, Object> parse(HttpResponse<String> response) {
        try {
            return Json.parseObject(response.body());
        } catch (IllegalArgumentException e) {
            // Not JSON (a proxy's error page): a 5xx is still an answer that cannot be trusted.
            if (response.statusCode() >= 500) return Map.of();
            throw new PayoutException(response.statusCode(), Map.of(), "HTTP " + response.statusCode() + ", not JSON: " + e.getMessage());
        }
    }

    /** Waits the Retry-After's seconds (1 when it is absent or not a number) with the client's waiter. */
    private void waitOut(String retryAfter) {
        double seconds;
        try {
            seconds = Math.max(0, Double.parseDouble(retryAfter == null ? "1" : retryAfter));
        } catch (NumberFormatException e) {
            seconds = 1;
        }
        try {
            waiter.waitFor(Duration.ofMillis(Math.round(1000 * seconds)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PayoutException(429, Map.of(), "interrupted while waiting for Retry-After");
        } catch (Exception e) {
            throw new PayoutException(429, Map.of(), "could not wait out Retry-After: " + e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Object value) {
        if (value instanceof Map) return (Map<String, Object>) value;
        throw new PayoutException(200, Map.of(), "expected a JSON object, got " + value);
    }
}
