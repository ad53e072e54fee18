-- 016 login throttle (issue 14, item 3): growing delays per client address, per account and per
-- (account, client) pair instead of a lock that whoever knows a username controls. One row per
-- throttled key; `key` is the address, the username as typed (known or not: the answer never
-- tells them apart) or both joined by '|'. Timestamps UTC, as every store timestamp.
-- users.failed_attempts / users.locked_until are no longer used by the login.
-- Never edit an applied migration: add a new numbered file.

CREATE TABLE login_throttle (
    scope           VARCHAR NOT NULL CHECK (scope IN ('client', 'account', 'pair')),
    key             VARCHAR NOT NULL,
    failures        INTEGER NOT NULL,
    last_failure_at TIMESTAMP NOT NULL,
    blocked_until   TIMESTAMP
);
