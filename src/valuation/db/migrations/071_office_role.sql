-- 071 the officer of a Capitania, Delegacia or Agência (docs/decisions/003-office-officer-role.md): the role
-- `officer`, bound to one office (`users.office_code`), beside DPC headquarters (`dpc`, national scope).
-- The roles become a lookup table that valuation.db.access.ROLES fills (a test compares them): a new role is a
-- row, never again a rebuild of `users` to widen a CHECK. `users` is rebuilt this once (DuckDB cannot change a
-- CHECK): every column as it was, in the same order, then `office_code`; ids go on from seq_users; the row seals
-- of db/seals.py (named columns) still verify.
-- Never edit an applied migration: add a new numbered file.

CREATE TABLE roles (code VARCHAR PRIMARY KEY);
INSERT INTO roles VALUES ('commission'), ('commission_president'), ('dpc'), ('officer'), ('explorer'), ('admin');

CREATE TABLE users_071 (
    id                  BIGINT PRIMARY KEY DEFAULT nextval('seq_users'),
    username            VARCHAR NOT NULL UNIQUE,
    full_name           VARCHAR NOT NULL,
    email               VARCHAR,
    role                VARCHAR NOT NULL REFERENCES roles(code),
    organisation_id     BIGINT REFERENCES organisations(id),
    commission_body     VARCHAR CHECK (commission_body IN ('navy', 'culture')),
    password_hash       VARCHAR NOT NULL,
    failed_attempts     INTEGER NOT NULL DEFAULT 0,
    locked_until        TIMESTAMP,
    active              BOOLEAN NOT NULL DEFAULT true,
    created_at          TIMESTAMP NOT NULL DEFAULT current_timestamp,
    cpf                 VARCHAR,
    office_code         VARCHAR REFERENCES offices(code),
    CHECK (role <> 'explorer' OR organisation_id IS NOT NULL),
    CHECK (role <> 'officer' OR office_code IS NOT NULL)
);
INSERT INTO users_071 (id, username, full_name, email, role, organisation_id, commission_body, password_hash,
                       failed_attempts, locked_until, active, created_at, cpf)
    SELECT id, username, full_name, email, role, organisation_id, commission_body, password_hash,
           failed_attempts, locked_until, active, created_at, cpf
    FROM users ORDER BY id;
DROP TABLE users;
ALTER TABLE users_071 RENAME TO users;
