-- The system of record, written once for SQLite and PostgreSQL alike: TEXT, BIGINT and
-- portable constraints only (one code path over both, src/store/mod.rs). Times are
-- milliseconds since the Unix epoch, UTC.

-- Marks a database as fabric-tco's: a database with tables but without this one is refused.
CREATE TABLE fabric_tco_meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO fabric_tco_meta (name, value) VALUES ('application', 'fabric-tco');

-- Every catalog content the service has loaded, once, addressed by the SHA-256 of its bytes.
CREATE TABLE catalog_versions (
    sha256 TEXT PRIMARY KEY,
    catalog_id TEXT NOT NULL,
    version TEXT NOT NULL,
    published TEXT NOT NULL,
    first_seen_ms BIGINT NOT NULL,
    content TEXT NOT NULL
);
CREATE INDEX catalog_versions_by_id ON catalog_versions (catalog_id, first_seen_ms);

-- API keys: the secret's SHA-256 only, never the secret.
CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    team TEXT NOT NULL,
    scope TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    revoked_ms BIGINT
);

-- A saved scenario: its newest revision's name, description and tags, and the revision number
-- that If-Match compares.
CREATE TABLE scenarios (
    id TEXT PRIMARY KEY,
    team TEXT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    tags TEXT NOT NULL,
    revision BIGINT NOT NULL,
    created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL,
    idempotency_key TEXT
);
CREATE INDEX scenarios_by_name ON scenarios (team, name, id);
CREATE INDEX scenarios_by_created ON scenarios (team, created_ms, id);
CREATE INDEX scenarios_by_updated ON scenarios (team, updated_ms, id);
CREATE UNIQUE INDEX scenarios_by_idempotency_key ON scenarios (team, idempotency_key);

CREATE TABLE scenario_tags (
    scenario_id TEXT NOT NULL,
    tag TEXT NOT NULL,
    PRIMARY KEY (scenario_id, tag)
);
CREATE INDEX scenario_tags_by_tag ON scenario_tags (tag, scenario_id);

-- Every revision, kept: the normalized request (its catalog pinned), the catalog version, the
-- plan id and the headline figures at save time.
CREATE TABLE scenario_revisions (
    scenario_id TEXT NOT NULL,
    revision BIGINT NOT NULL,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    tags TEXT NOT NULL,
    request TEXT NOT NULL,
    catalog_sha256 TEXT NOT NULL REFERENCES catalog_versions (sha256),
    plan_id TEXT NOT NULL,
    headline TEXT NOT NULL,
    key_id TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    PRIMARY KEY (scenario_id, revision)
);
