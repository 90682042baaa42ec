package com.example.payouts;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A payout-sandbox for a test class: started on a free port and stopped, or one already running.
 * Which one comes from the environment, first found wins:
 *
 * <ul>
 *   <li>{@code PAYOUT_SANDBOX_URL}: a sandbox already running there (nothing is started or stopped);
 *   <li>{@code PAYOUT_SANDBOX_EXECUTABLE}: the standalone executable, started with {@code --port 0
 *       --data memory --clock manual --ready-file <tmp>};
 *   <li>{@code PAYOUT_SANDBOX_IMAGE} (e.g. {@code payout-sandbox:0.1.0}): the container image, run
 *       by {@code PAYOUT_SANDBOX_ENGINE} ({@code podman}, the default, or {@code docker}).
 * </ul>
 *
 * <p>{@code PAYOUT_SANDBOX_ADMIN_TOKEN}, when set, is sent as {@code Authorization: Bearer} on the
 * control API (and given to a sandbox this class starts). Webhooks: a sandbox in a container
 * reaches this machine as {@code host.containers.internal} (podman) or {@code
 * host.docker.internal} (docker), so the receiver must listen on every address; {@link
 * #webhookBindHost()} and {@link #webhookUrl(int)} say where ({@code PAYOUT_WEBHOOK_BIND} and
 * {@code PAYOUT_WEBHOOK_HOST} override them, e.g. for a sandbox in another compose service).
 */
public final class PayoutSandbox implements AutoCloseable {
    /** The demo merchant of the shipped fixtures (README, "Demo credentials"). */
    public static final Map<String, String> DEMO_HEADERS = Map.of(
            "x-merchant-email", "demo@payout-sandbox.test",
            "x-api-key", "sbx_key_demo_0001",
            "x-api-secret", "sbx_secret_demo_0001");

    /** A merchant created through the control API, with its own clock. */
    public record Merchant(String merchantId, String email, String apiKey, String apiSecret, String webhookSecret, String accountNo) {
        /** The three credential headers of the emulated API. */
        public Map<String, String> headers() {
            return Map.of("x-merchant-email", email, "x-api-key", apiKey, "x-api-secret", apiSecret);
        }
    }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private final String url;
    private final String token;
    private final String bindHost;
    private final String urlHost;
    private final Process process; // the executable, or null
    private final Path workDir; // the executable's folder (ready file, log), or null
    private final String[] engine; // the container engine with its global options, or null
    private final String container; // the container's name, or null
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private Integer exitCode;

    private PayoutSandbox(String url, String token, String bindHost, String urlHost, Process process, Path workDir, String[] engine, String container) {
        this.url = url.replaceAll("/+$", "");
        this.token = token;
        this.bindHost = env("PAYOUT_WEBHOOK_BIND", bindHost);
        this.urlHost = env("PAYOUT_WEBHOOK_HOST", urlHost);
        this.process = process;
        this.workDir = workDir;
        this.engine = engine;
        this.container = container;
        if (process != null || container != null) {
            // Stopped also when the JVM ends without stop() (a failed @BeforeAll, a SIGTERM to the test run).
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    stop();
                } catch (InterruptedException e) {
                    // the JVM is ending anyway
                }
            }));
        }
    }

    /** The sandbox the environment names (see the class comment), healthy. */
    public static PayoutSandbox start() throws IOException, InterruptedException {
        String token = env("PAYOUT_SANDBOX_ADMIN_TOKEN", null);
        String running = env("PAYOUT_SANDBOX_URL", null);
        if (running != null) {
            PayoutSandbox sandbox = new PayoutSandbox(running, token, "127.0.0.1", "127.0.0.1", null, null, null, null);
            sandbox.awaitHealthy();
            return sandbox;
        }
        String executable = env("PAYOUT_SANDBOX_EXECUTABLE", null);
        // A relative path is the caller's (it is started in a directory of its own).
        if (executable != null) return startExecutable(Path.of(executable).toAbsolutePath().toString(), token);
        String image = env("PAYOUT_SANDBOX_IMAGE", null);
        if (image != null) return startImage(image, env("PAYOUT_SANDBOX_ENGINE", "podman"), token);
        throw new IllegalStateException(
                "no sandbox: set PAYOUT_SANDBOX_EXECUTABLE (the standalone executable), PAYOUT_SANDBOX_IMAGE (e.g. payout-sandbox:0.1.0) or PAYOUT_SANDBOX_URL (one already running)");
    }

    private static PayoutSandbox startExecutable(String executable, String token) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("payout-sandbox-");
        Path ready = dir.resolve("sandbox.ready");
        List<String> command = new ArrayList<>(List.of(executable, "--port", "0", "--data", "memory", "--clock", "manual", "--ready-file", ready.toString()));
        File log = dir.resolve("sandbox.log").toFile();
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log);
        if (token != null) builder.environment().put("SANDBOX_ADMIN_TOKEN", token); // not on its command line, which ps shows
        Process process = builder.start();
        // The ready file is written (atomically) once the sandbox listens: { "url", "port", "pid", "control_url" }.
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!Files.exists(ready)) {
            if (!process.isAlive()) throw new IllegalStateException(executable + " exited " + process.exitValue() + ":\n" + Files.readString(log.toPath()));
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException(executable + ": no ready file within " + START_TIMEOUT.toSeconds() + " s:\n" + Files.readString(log.toPath()));
            }
            Thread.sleep(10);
        }
        Map<String, Object> info = Json.parseObject(Files.readString(ready));
        if (((BigDecimal) info.get("pid")).longValue() != process.pid()) throw new IllegalStateException("the ready file names another process: " + info);
        return new PayoutSandbox((String) info.get("url"), token, "127.0.0.1", "127.0.0.1", process, dir, null, null);
    }

    private static PayoutSandbox startImage(String image, String engineName, String token) throws IOException, InterruptedException {
        List<String> engine = new ArrayList<>(List.of(engineName));
        List<String> runFlags = new ArrayList<>();
        String gateway = "host.docker.internal";
        if (engineName.equals("podman")) {
            // podman's default runtime, crun, cannot set up the cgroups of some machines: runc when it is there.
            if (exec(List.of("runc", "--version")).code == 0) engine.addAll(List.of("--runtime", "runc"));
            runFlags.addAll(List.of("--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"));
            gateway = "host.containers.internal";
        } else {
            runFlags.addAll(List.of("--add-host", "host.docker.internal:host-gateway"));
        }
        int port = freePort();
        String name = "payout-sandbox-java-" + ProcessHandle.current().pid() + "-" + port;
        List<String> run = new ArrayList<>(engine);
        run.addAll(List.of("run", "-d", "--name", name)); // no --rm: stop() reads its exit code, then removes it
        run.addAll(runFlags);
        run.addAll(List.of("-p", "127.0.0.1:" + port + ":4010"));
        // Listening on every address of the container, it wants a token (its value from the engine's
        // environment, not the command line) or the explicit opt-out.
        run.addAll(token != null ? List.of("-e", "SANDBOX_ADMIN_TOKEN") : List.of("-e", "SANDBOX_INSECURE_OPEN_CONTROL=1"));
        run.addAll(List.of(image, "--data", "memory", "--clock", "manual"));
        Exec started = exec(run, token == null ? Map.of() : Map.of("SANDBOX_ADMIN_TOKEN", token));
        if (started.code != 0) {
            exec(concat(engine.toArray(String[]::new), "rm", "-f", name)); // a container created but not started
            throw new IllegalStateException(String.join(" ", run) + ": exit " + started.code + "\n" + started.output);
        }
        PayoutSandbox sandbox = new PayoutSandbox("http://127.0.0.1:" + port, token, "0.0.0.0", gateway, null, null, engine.toArray(String[]::new), name);
        try {
            sandbox.awaitHealthy();
        } catch (RuntimeException | InterruptedException e) {
            sandbox.stop();
            throw e;
        }
        return sandbox;
    }

    /** The API's base URL, e.g. {@code http://127.0.0.1:41234}. */
    public String url() {
        return url;
    }

    /** The demo merchant's credential headers. */
    public Map<String, String> demoHeaders() {
        return DEMO_HEADERS;
    }

    /** Where a webhook receiver listens so that the sandbox reaches it: 127.0.0.1, or 0.0.0.0 for a container. */
    public String webhookBindHost() {
        return bindHost;
    }

    /** The URL the sandbox sends webhooks to, for a receiver on this machine's {@code port}. */
    public String webhookUrl(int port) {
        return "http://" + urlHost + ":" + port + "/hooks";
    }

    /** A merchant of its own (isolated from other suites), with a manual clock of its own. */
    public Merchant createMerchant(BigDecimal balance, String webhookUrl) throws IOException, InterruptedException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("balance", balance);
        body.put("clock", Map.of("mode", "manual"));
        body.put("webhook_url", webhookUrl);
        Map<String, Object> m = control("POST", "/merchants", body);
        return new Merchant((String) m.get("merchant_id"), (String) m.get("email"), (String) m.get("api_key"), (String) m.get("api_secret"),
                (String) m.get("webhook_secret"), (String) m.get("account_no"));
    }

    /** Moves the merchant's clock by {@code by} (e.g. "5s", "1h"): what falls due on it (settlement, webhooks) happens now, in order. */
    public Map<String, Object> advance(String merchantId, String by) throws IOException, InterruptedException {
        return control("POST", "/merchants/" + merchantId + "/clock/advance", Map.of("by", by));
    }

    /** The merchant's integration review: { summary: { verdict, high, medium, low, … }, findings, rules }. */
    public Map<String, Object> review(String merchantId) throws IOException, InterruptedException {
        return control("GET", "/merchants/" + merchantId + "/review", null);
    }

    /** The merchant's payouts, newest first (the first 200). */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> payouts(String merchantId) throws IOException, InterruptedException {
        return (List<Map<String, Object>>) control("GET", "/merchants/" + merchantId + "/payouts?limit=200", null).get("payouts");
    }

    /** The receiver probe: forged, stale and duplicate deliveries to the merchant's webhook URL; { ok, checks }. */
    public Map<String, Object> probeWebhooks(String merchantId) throws IOException, InterruptedException {
        return control("POST", "/merchants/" + merchantId + "/webhooks/probe", Map.of());
    }

    /** Any control route ({@code /__sandbox} + path); a non-2xx answer throws, with the sandbox's error. */
    public Map<String, Object> control(String method, String path, Map<String, ?> body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url + "/__sandbox" + path)).timeout(Duration.ofSeconds(30));
        if (token != null) request.header("Authorization", "Bearer " + token);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(Json.write(body)));
        }
        HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(method + " /__sandbox" + path + ": HTTP " + response.statusCode() + " " + response.body());
        }
        return Json.parseObject(response.body());
    }

    /** Waits (at most 30 s, polling) until GET /__sandbox/health answers {"ok":true,…}. */
    private void awaitHealthy() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "";
        for (;;) {
            try {
                HttpRequest request = HttpRequest.newBuilder(URI.create(url + "/__sandbox/health")).timeout(Duration.ofSeconds(2)).build();
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200 && response.body().startsWith("{\"ok\":true")) return;
                last = "HTTP " + response.statusCode() + " " + response.body();
            } catch (IOException e) {
                last = e.toString();
            }
            if (System.nanoTime() > deadline) {
                String logs = container == null ? "" : "\n" + exec(concat(engine, "logs", container)).output;
                throw new IllegalStateException("no healthy sandbox at " + url + " within " + START_TIMEOUT.toSeconds() + " s: " + last + logs);
            }
            Thread.sleep(100);
        }
    }

    /**
     * Stops what {@link #start()} started (SIGTERM to the executable, {@code stop} to the container)
     * and returns its exit code: 0 for a clean stop. A sandbox that was already running is left
     * running (0). Calling it again returns the same code.
     */
    public synchronized int stop() throws InterruptedException {
        if (exitCode != null) return exitCode;
        if (process != null) {
            process.destroy(); // SIGTERM: the sandbox closes its sockets and files, then exits
            if (!process.waitFor(15, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
            exitCode = process.exitValue();
            if (exitCode != 0) System.err.println("payout-sandbox exited " + exitCode + ":\n" + readLog());
            deleteTree(workDir);
        } else if (container != null) {
            // Stopped and inspected before it is removed: its exit code is the container's state.
            exec(concat(engine, "stop", "-t", "15", container));
            Exec inspected = exec(concat(engine, "inspect", "--format", "{{.State.ExitCode}}", container));
            exec(concat(engine, "rm", "-f", container));
            exitCode = inspected.code == 0 ? Integer.parseInt(inspected.output.trim()) : -1;
        } else {
            exitCode = 0;
        }
        return exitCode;
    }

    /** {@link #stop()}, for try-with-resources (the exit code is not looked at). */
    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private String readLog() {
        try {
            return Files.readString(workDir.resolve("sandbox.log"));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private record Exec(int code, String output) {}

    private static Exec exec(List<String> command) {
        return exec(command, Map.of());
    }

    private static Exec exec(List<String> command, Map<String, String> env) {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(env);
            Process p = builder.start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Exec(p.waitFor(), output);
        } catch (IOException e) {
            return new Exec(127, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Exec(130, "interrupted");
        }
    }

    private static List<String> concat(String[] head, String... tail) {
        List<String> all = new ArrayList<>(List.of(head));
        all.addAll(List.of(tail));
        return all;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary folder left behind
        }
    }
}
