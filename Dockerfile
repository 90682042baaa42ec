# payout-sandbox as a container image: FROM scratch, with the standalone executable (Node and the
# sandbox in one file, its shipped files inside it) and exactly the shared libraries it links.
# Build it with `npm run build:image`: that builds the executable, stages dist/image/rootfs (the
# executable, each library `ldd` lists and the loader, a passwd entry for the user below) and runs
# `podman build -f Dockerfile dist/image` (or docker), offline: there is no base image to pull.
FROM scratch
COPY rootfs/ /
# Listening on every address of the container, the sandbox needs SANDBOX_ADMIN_TOKEN (the control
# API then wants Authorization: Bearer <token>) or SANDBOX_INSECURE_OPEN_CONTROL=1: without
# either it exits at once saying so (docs/run-anywhere.md). PAYOUT_SANDBOX_IMAGE: a path it cannot
# write is then said with the `--user "$(id -u):$(id -g)"` hint (a bind mount owned by another uid).
ENV PATH=/usr/local/bin \
    SANDBOX_HOST=0.0.0.0 \
    SANDBOX_PORT=4010 \
    SANDBOX_DATA=/data/db.json \
    PAYOUT_SANDBOX_IMAGE=1
# Any uid may run it (`--user`): /data is writable by all, like /tmp; nothing else is written.
USER 10001:10001
WORKDIR /data
VOLUME /data
EXPOSE 4010
# Every second, so that compose's `service_healthy` follows the start within about a second; each
# check starts the executable (`wait` loads only its own module and asks with node:http, not fetch:
# about 0.17 s of CPU, docs/performance.md "Start-up"). A long-lived
# container can check less often: `--health-interval 30s`, or compose's `healthcheck: interval:`.
HEALTHCHECK --interval=1s --timeout=3s --start-period=2s --retries=3 CMD ["/usr/local/bin/payout-sandbox", "wait", "--timeout", "2s"]
ENTRYPOINT ["/usr/local/bin/payout-sandbox"]
