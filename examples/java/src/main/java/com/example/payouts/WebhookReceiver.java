package com.example.payouts;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Payout webhooks, JDK only: verifies X-Sandbox-Signature-V2 on the raw body (never the older
 * X-Sandbox-Signature: it has no timestamp), answers 401 to a bad signature or a timestamp over
 * 300 s from the clock, and hands each delivery id to the handler once (a repeat gets 200).
 */
public final class WebhookReceiver implements AutoCloseable {
    /** Your service's work on a verified delivery; throwing answers 500, so the sandbox sends it again. */
    public interface Handler { void handle(String deliveryId, byte[] rawBody) throws Exception; }

    static final long TOLERANCE_S = 300;
    private final HttpServer server;
    private final Clock clock; // t is the real time of the attempt, even on a manual sandbox clock
    private final Handler handler;
    private final Set<String> seen = new HashSet<>(); // delivery ids handled (keep them in your database)
    private volatile byte[] secret = new byte[0];

    public WebhookReceiver(String host, int port, Clock clock, Handler handler) throws IOException {
        this.clock = clock;
        this.handler = handler;
        server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext("/hooks", this::receive);
        server.start();
    }

    /** The merchant's webhook secret (its API secret until rotated). */
    public void setSecret(String webhookSecret) { secret = webhookSecret.getBytes(UTF_8); }

    public int port() { return server.getAddress().getPort(); }

    /** Whether {@code t=<unix s>,v1=<hex>[,v1=…]} has a v1 = HMAC-SHA256 of "t." + body, and t within 300 s of nowS. */
    static boolean verifyV2(String header, byte[] body, byte[] secret, long nowS) {
        String[] parts = header == null ? new String[0] : header.split(",");
        String t = "";
        for (String part : parts) if (part.trim().startsWith("t=")) t = part.trim().substring(2);
        if (secret.length == 0 || !t.matches("[0-9]{1,12}") || Math.abs(nowS - Long.parseLong(t)) > TOLERANCE_S) return false;
        byte[] expected;
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update((t + ".").getBytes(UTF_8));
            expected = HexFormat.of().formatHex(mac.doFinal(body)).getBytes(UTF_8);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        boolean valid = false; // every v1 entry is compared, in constant time (two during a rotation's grace)
        for (String part : parts) {
            if (part.trim().startsWith("v1=")) valid |= MessageDigest.isEqual(expected, part.trim().substring(3).getBytes(UTF_8));
        }
        return valid;
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes(); // the raw bytes: verify before parsing
            String deliveryId = exchange.getRequestHeaders().getFirst("X-Sandbox-Delivery-Id");
            String signature = exchange.getRequestHeaders().getFirst("X-Sandbox-Signature-V2");
            boolean verified = verifyV2(signature, body, secret, clock.instant().getEpochSecond());
            int status = !verified ? 401 : deliveryId == null ? 400 : deliver(deliveryId, body);
            exchange.sendResponseHeaders(status, -1);
        }
    }

    private synchronized int deliver(String deliveryId, byte[] body) {
        if (seen.contains(deliveryId)) return 200; // handled before: acknowledge, do nothing
        try {
            handler.handle(deliveryId, body);
        } catch (Exception e) {
            return 500;
        }
        seen.add(deliveryId);
        return 204;
    }

    @Override public void close() { server.stop(0); }
}
