# Build stage: the Rust image (same toolchain line as development).
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
# No symbol table in the shipped binary (about 3.6 MB of 21 MB); set before the dependency layer so
# both builds use the same profile.
ENV CARGO_PROFILE_RELEASE_STRIP=symbols
# Cache dependencies: build a stub crate with the real manifest first.
COPY Cargo.toml Cargo.lock ./
# Every [[bench]] the manifest declares gets a stub too (cargo reads them all).
RUN mkdir -p src benches \
    && echo 'fn main() {}' > src/main.rs \
    && touch src/lib.rs \
    && for b in $(grep -A1 '^\[\[bench\]\]' Cargo.toml | sed -n 's/^name = "\(.*\)"/\1/p'); do \
         echo 'fn main() {}' > "benches/$b.rs"; done \
    && cargo build --release --locked \
    && rm -rf src benches
COPY build.rs ./
COPY src ./src
COPY pricing ./pricing
COPY templates ./templates
COPY benches ./benches
# The validation table (its cases and sources) is compiled into the binary (GET /v1/validation).
COPY tests/data ./tests/data
RUN touch src/main.rs src/lib.rs && cargo build --release --locked

# CA certificates for https catalog URLs: Debian's bundle, taken from its package in a stage of
# its own so that the runtime image carries the bundle without the openssl and libssl3 packages the
# package pulls in (about 9 MB). Unpinned, so a rebuild takes Debian's current (security) version.
FROM debian:bookworm-slim AS certs
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*

# Run stage: slim Debian, non-root (uid and gid 10001), the binary only (the default catalog is
# embedded).
FROM debian:bookworm-slim
# The data directory (saved scenarios and catalog versions in SQLite) belongs to that user; mount
# a volume there to keep it across containers, or set FABRIC_TCO_DATABASE_URL=postgres://…
RUN groupadd --system --gid 10001 fabric \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin fabric \
    && mkdir -p /var/lib/fabric-tco \
    && chown 10001:10001 /var/lib/fabric-tco
COPY --from=certs /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /src/target/release/fabric-tco /usr/local/bin/fabric-tco
USER 10001:10001
# JSON log lines for log collectors.
ENV FABRIC_TCO_BIND=0.0.0.0:8080 \
    FABRIC_TCO_DATA_DIR=/var/lib/fabric-tco \
    FABRIC_TCO_LOG_FORMAT=json \
    RUST_LOG=info
VOLUME /var/lib/fabric-tco
EXPOSE 8080
# The binary probes its own /healthz at the address in FABRIC_TCO_BIND (whatever port the
# container is started with), so the image needs no HTTP client.
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["/usr/local/bin/fabric-tco", "healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/fabric-tco"]
