# Build stage: the Rust image (same toolchain line as development).
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# Cache dependencies: build a stub crate with the real manifest first.
COPY Cargo.toml Cargo.lock ./
RUN mkdir -p src benches \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs \
    && echo 'fn main() {}' > benches/perf.rs \
    && cargo build --release --locked \
    && rm -rf src benches
COPY src ./src
COPY pricing ./pricing
COPY benches ./benches
RUN touch src/main.rs src/lib.rs && cargo build --release --locked

# Run stage: slim Debian, non-root (uid and gid 10001), the binary only (the default catalog is
# embedded). ca-certificates lets https catalog URLs verify; it is not pinned so that it follows
# Debian's (security) updates, and its version is recorded by the image's dpkg database.
FROM debian:bookworm-slim
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 fabric \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin fabric
COPY --from=build /src/target/release/fabric-tco /usr/local/bin/fabric-tco
USER 10001:10001
# JSON log lines for log collectors.
ENV FABRIC_TCO_BIND=0.0.0.0:8080 \
    FABRIC_TCO_LOG_FORMAT=json \
    RUST_LOG=info
EXPOSE 8080
# The binary probes its own /healthz at the address in FABRIC_TCO_BIND (whatever port the
# container is started with), so the image needs no HTTP client.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/fabric-tco", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/fabric-tco"]
