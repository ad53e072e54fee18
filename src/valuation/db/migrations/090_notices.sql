-- 090 notices (issue 42 item 4; docs/decisions/060-notices.md): each person's inbox (Avisos) and how they want
-- it by e-mail. Never edit an applied migration: add a new numbered file.
--
-- `notice_kinds` lists the kinds valuation.notices.kinds.KINDS defines (a test compares them): a new kind is a
-- row added by a later migration, never a rebuild of `notices` to widen a CHECK.
--
-- `notices`: one row per (recipient, event) — the event's key is the writer's (`round_opened:12`,
-- `deadline:monthly_report:A-1:2025-03:due_soon`), so notifying the same event again writes nothing
-- (UNIQUE (user_id, event_key), INSERT … ON CONFLICT DO NOTHING). Written inside the write of the act it tells
-- of, so it commits or rolls back with it. Its text is pt-BR, written by the product (never a wreck's position,
-- an open round's values or an amount: valuation.notices.text refuses them); `link` is a page of the app with an
-- optional query ('statements', 'commission?rodada=12'). `mail` is the person's e-mail choice when the notice was
-- written — 'now', 'daily' or 'none' ('none' too when the person had no address then) —, so a change of choice
-- applies to the notices written after it.
-- Append-only except two columns, each set once from NULL to the instant and never changed again (the writers
-- update `WHERE … IS NULL`):
--   read_at     when the person marked it read: the inbox's own state, which they change on the page — a notice
--               is a message about an act of record, not the act, and reading it is not the ciência of an
--               intimation (that is the intimation's own record);
--   emailed_at  when its e-mail was handed to the SMTP server: a notice stays NULL while the server cannot be
--               reached, and the next run sends it (nothing is lost; at worst a message is sent twice).
-- Keeping both beside the notice lets the inbox read one table by person (≤ a few ms for thousands of notices)
-- instead of an anti-join with two more tables on every page view. Not sealed: it is no fact of record (the acts
-- it tells of are audited, and sealed where they are facts of record); it is backed up and restored with the rest.
--
-- `notice_preferences`: each person's choice, append-only (the latest row per user counts; no row: 'now').

CREATE TABLE notice_kinds (code VARCHAR PRIMARY KEY);
INSERT INTO notice_kinds VALUES ('round_opened'), ('values_missing'), ('act_to_sign'), ('decision_published'),
    ('statement_issued'), ('deadline_near'), ('intimation_issued'), ('decision_notified'), ('filing_received'),
    ('authority_deadline_near');

CREATE SEQUENCE seq_notices START 1;
CREATE TABLE notices (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_notices'),
    user_id     BIGINT NOT NULL,                 -- users.id: the recipient
    event_key   VARCHAR NOT NULL,                -- the event's key, from its writer
    kind        VARCHAR NOT NULL REFERENCES notice_kinds(code),
    title       VARCHAR NOT NULL,
    body        VARCHAR NOT NULL,
    link        VARCHAR NOT NULL,                -- a page of the app, with an optional query
    created_at  TIMESTAMP NOT NULL,              -- naive UTC, as every store timestamp
    mail        VARCHAR NOT NULL CHECK (mail IN ('now', 'daily', 'none')),
    read_at     TIMESTAMP,
    emailed_at  TIMESTAMP,
    UNIQUE (user_id, event_key)
);

CREATE SEQUENCE seq_notice_preferences START 1;
CREATE TABLE notice_preferences (
    id          BIGINT PRIMARY KEY DEFAULT nextval('seq_notice_preferences'),
    user_id     BIGINT NOT NULL,                 -- users.id
    mail        VARCHAR NOT NULL CHECK (mail IN ('now', 'daily', 'none')),
    chosen_at   TIMESTAMP NOT NULL
);
