-- 010 service (issue 13): login sessions that outlive a browser connection, the runs of the
-- scheduled jobs, calendar subscription tokens, and the offices a DPC user answers for.
-- Only SHA-256 digests of tokens are stored, never a token. No unique indexes: DuckDB
-- re-inserts indexed rows on UPDATE; tokens are 256-bit random, collisions do not happen.
-- Never edit an applied migration: add a new numbered file.

CREATE SEQUENCE seq_sessions START 1;
CREATE SEQUENCE seq_job_runs START 1;
CREATE SEQUENCE seq_calendar_feeds START 1;

CREATE TABLE sessions (
    id             BIGINT PRIMARY KEY DEFAULT nextval('seq_sessions'),
    token_sha256   VARCHAR NOT NULL,          -- hex digest of the cookie's token
    user_id        BIGINT NOT NULL,           -- users.id
    created_at     TIMESTAMP NOT NULL,        -- naive UTC, as every store timestamp
    last_seen      TIMESTAMP NOT NULL,        -- idle expiry: valuation.auth.session_expired
    revoked_at     TIMESTAMP,
    revoked_reason VARCHAR                    -- logout | deactivated | role_changed | password_reset
);

CREATE TABLE job_runs (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_job_runs'),
    job         VARCHAR NOT NULL,             -- digest | backup | audit_verify
    trigger     VARCHAR NOT NULL,             -- schedule | manual
    attempt     INTEGER NOT NULL,             -- 1, or 2 for the retry
    started_at  TIMESTAMP NOT NULL,
    ended_at    TIMESTAMP,
    outcome     VARCHAR NOT NULL CHECK (outcome IN ('running', 'ok', 'failed')),
    message     VARCHAR,
    started_by  VARCHAR NOT NULL              -- 'agenda' or the admin's username
);

CREATE TABLE calendar_feeds (
    id           BIGINT PRIMARY KEY DEFAULT nextval('seq_calendar_feeds'),
    token_sha256 VARCHAR NOT NULL,
    user_id      BIGINT NOT NULL,
    office_code  VARCHAR,                     -- DPC: one office, NULL for every office; explorers: NULL
    created_at   TIMESTAMP NOT NULL,
    revoked_at   TIMESTAMP
);

-- The offices (Capitanias) a DPC user answers for: the daily digest of an office goes to them.
-- A DPC user without a row works at headquarters and gets one digest of every office.
CREATE TABLE user_offices (
    user_id     BIGINT NOT NULL,
    office_code VARCHAR NOT NULL,
    PRIMARY KEY (user_id, office_code)
);
