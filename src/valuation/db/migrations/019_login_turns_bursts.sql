-- 019 login throttle, third round (issue 24, items 6 and 9): the throttle never refuses the right
-- password forever, and repeated refusals are one audit row per burst.
-- New kinds of row in login_throttle (valuation/accounts/throttle.py):
--   'known' — key = 'username|address' that logged in to the account (last_failure_at: the last
--             such login): the account's delay does not apply there;
--   'turn'  — key = 'username|address' waiting its turn under the account's delay (last_failure_at:
--             when it asked; blocked_until: when its turn comes);
--   'burst' — key = the address: refusals from it in a burst (failures: wrong passwords; refused:
--             attempts refused unchecked; started_at .. last_failure_at; detail: the usernames, JSON).
-- Ephemeral security state, like the rest of the table. DuckDB cannot change a CHECK constraint:
-- the table is rebuilt with its rows. Never edit an applied migration: add a new numbered file.

CREATE TABLE login_throttle_019 (
    scope           VARCHAR NOT NULL CHECK (scope IN ('client', 'account', 'pair', 'known', 'turn', 'burst')),
    key             VARCHAR NOT NULL,
    failures        INTEGER NOT NULL,
    last_failure_at TIMESTAMP NOT NULL,
    blocked_until   TIMESTAMP,
    started_at      TIMESTAMP,
    refused         INTEGER NOT NULL DEFAULT 0,
    detail          VARCHAR
);
INSERT INTO login_throttle_019 (scope, key, failures, last_failure_at, blocked_until)
    SELECT scope, key, failures, last_failure_at, blocked_until FROM login_throttle;
DROP TABLE login_throttle;
ALTER TABLE login_throttle_019 RENAME TO login_throttle;
