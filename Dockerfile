# syntax=docker/dockerfile:1
# Build stage: the official Rust image (same toolchain line as development).
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

# Run stage: slim Debian, non-root, the binary only (the default catalog is embedded).
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl=7.88.* ca-certificates=2025* \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin fabric
COPY --from=build /src/target/release/fabric-tco /usr/local/bin/fabric-tco
USER 10001
# JSON log lines for log collectors; ca-certificates above lets https catalog URLs verify.
ENV FABRIC_TCO_BIND=0.0.0.0:8080 \
    FABRIC_TCO_LOG_FORMAT=json \
    RUST_LOG=info
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["curl", "-fsS", "http://127.0.0.1:8080/healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/fabric-tco"]
