-- 011 consensus pivot (issue 17): a round's entries in force, pre-pivoted — one row per
-- (round, item) holding every member's slot — so that recomputing a million-item round is a
-- projection of a million rows, not a GROUP BY of six million, and its stored consensus in a
-- table a whole round is rewritten in at once (valuation.store.consensus_sql).
-- Nothing is lost: assessment_log keeps every vote and value ever entered (append-only),
-- assessment_current the entry in force per member; this table is derived from them and
-- kept in step by the store in the same transaction as each entry.
-- Never edit an applied migration: add a new numbered file.

-- The members of a round and their slot (0–5), given at a member's first entry in the
-- round. A lawful panel has six members (NORMAM-10 0303 c 1 I); a seventh member entering
-- the same round gets no slot (NULL), and that round's consensus is then computed from
-- assessment_current instead of the slots.
CREATE TABLE round_members (
    round_id  BIGINT NOT NULL,
    member_id BIGINT NOT NULL,
    slot      INTEGER CHECK (slot BETWEEN 0 AND 5),
    PRIMARY KEY (round_id, member_id),
    UNIQUE (round_id, slot)
);

-- One row per round item. Slot k mirrors the assessment_current row of the member holding
-- slot k: u_k = value_brl × 10⁸ as an exact integer (NULL: no value), c_k its vote_code,
-- g_k its score_code (0: no entry; see migration 007). rev = the newest assessment_log id
-- among the item's entries in force (NULL: none yet); basis = the rev the item's stored
-- consensus was computed from (rev = basis: in step; an entry changes rev, a recompute sets
-- basis). pos = the item's place in the round in item-code order (1, 2, …): a page of a
-- round's items is a range of pos, not a sort of a million codes.
CREATE TABLE consensus_pivot (
    round_id  BIGINT NOT NULL,
    item_id   BIGINT NOT NULL,
    pos       INTEGER NOT NULL,
    u0 HUGEINT, u1 HUGEINT, u2 HUGEINT, u3 HUGEINT, u4 HUGEINT, u5 HUGEINT,
    c0 BIGINT NOT NULL DEFAULT 0, c1 BIGINT NOT NULL DEFAULT 0, c2 BIGINT NOT NULL DEFAULT 0,
    c3 BIGINT NOT NULL DEFAULT 0, c4 BIGINT NOT NULL DEFAULT 0, c5 BIGINT NOT NULL DEFAULT 0,
    g0 BIGINT NOT NULL DEFAULT 0, g1 BIGINT NOT NULL DEFAULT 0, g2 BIGINT NOT NULL DEFAULT 0,
    g3 BIGINT NOT NULL DEFAULT 0, g4 BIGINT NOT NULL DEFAULT 0, g5 BIGINT NOT NULL DEFAULT 0,
    rev       BIGINT,
    basis     BIGINT,
    PRIMARY KEY (round_id, item_id)
);

-- The stored consensus per round item, which item_consensus (002, 003) becomes a view of.
-- No index: a whole round is rewritten at once (its rows deleted and inserted again — four
-- times cheaper than updating them in place, and than keeping a key index up to date), one
-- item is found by the zone maps of its row group. One row per (round, item): the store
-- inserts a round's rows when it opens and rewrites them only as a whole
-- (valuation.store.consensus_sql). The small fields share one integer, so that a rewrite
-- writes five columns, not thirteen:
--   code = votes_for | votes_against << 12 | must_keep_votes << 24 | n_values << 36
--        | quorum_met << 48 | historical << 49 (0 none, 1 true, 2 false)
--        | decided_by << 51 (0 undecided, 1 majority, 2 president) | flagged << 53
--        | 2 × significance << 54 (0: none)
-- value_brl is stored only where it differs from median_brl (NULL: the same; with the
-- median method, always).
CREATE TABLE round_consensus (
    round_id    BIGINT NOT NULL,
    item_id     BIGINT NOT NULL,
    code        BIGINT NOT NULL,
    value_brl   DECIMAL(18,2),
    spread      DOUBLE,
    computed_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    median_brl  DECIMAL(18,2)
);

-- Existing rounds: slots in the order of the members' first entries.
INSERT INTO round_members (round_id, member_id, slot)
SELECT round_id, member_id, CASE WHEN k < 6 THEN k END
FROM (SELECT round_id, member_id, row_number() OVER (PARTITION BY round_id ORDER BY first_id) - 1 AS k
      FROM (SELECT round_id, member_id, min(id) AS first_id FROM assessment_log GROUP BY round_id, member_id))
ORDER BY round_id, member_id;

-- Existing rounds' entries, pivoted; their stored consensus was computed from them: in step.
INSERT INTO consensus_pivot
SELECT ic.round_id, ic.item_id, row_number() OVER (PARTITION BY ic.round_id ORDER BY i.item_code, ic.item_id),
       s.u0, s.u1, s.u2, s.u3, s.u4, s.u5,
       coalesce(s.c0, 0), coalesce(s.c1, 0), coalesce(s.c2, 0), coalesce(s.c3, 0), coalesce(s.c4, 0),
       coalesce(s.c5, 0),
       coalesce(s.g0, 0), coalesce(s.g1, 0), coalesce(s.g2, 0), coalesce(s.g3, 0), coalesce(s.g4, 0),
       coalesce(s.g5, 0),
       s.rev, s.rev
FROM item_consensus ic
LEFT JOIN (
    SELECT c.round_id, c.item_id, max(c.log_id) AS rev,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 0) AS u0,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 1) AS u1,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 2) AS u2,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 3) AS u3,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 4) AS u4,
           max(CAST(c.value_brl * 100000000 AS HUGEINT)) FILTER (WHERE m.slot = 5) AS u5,
           max(c.vote_code) FILTER (WHERE m.slot = 0) AS c0, max(c.vote_code) FILTER (WHERE m.slot = 1) AS c1,
           max(c.vote_code) FILTER (WHERE m.slot = 2) AS c2, max(c.vote_code) FILTER (WHERE m.slot = 3) AS c3,
           max(c.vote_code) FILTER (WHERE m.slot = 4) AS c4, max(c.vote_code) FILTER (WHERE m.slot = 5) AS c5,
           max(c.score_code) FILTER (WHERE m.slot = 0) AS g0, max(c.score_code) FILTER (WHERE m.slot = 1) AS g1,
           max(c.score_code) FILTER (WHERE m.slot = 2) AS g2, max(c.score_code) FILTER (WHERE m.slot = 3) AS g3,
           max(c.score_code) FILTER (WHERE m.slot = 4) AS g4, max(c.score_code) FILTER (WHERE m.slot = 5) AS g5
    FROM assessment_current c
    JOIN round_members m ON m.round_id = c.round_id AND m.member_id = c.member_id
    GROUP BY c.round_id, c.item_id
) s ON s.round_id = ic.round_id AND s.item_id = ic.item_id
JOIN items i ON i.id = ic.item_id
ORDER BY ic.round_id, ic.item_id;

INSERT INTO round_consensus
SELECT round_id, item_id,
       votes_for | (votes_against::BIGINT << 12) | (must_keep_votes::BIGINT << 24) | (n_values::BIGINT << 36)
       | (quorum_met::BIGINT << 48) | ((CASE historical WHEN TRUE THEN 1 WHEN FALSE THEN 2 ELSE 0 END)::BIGINT << 49)
       | ((CASE decided_by WHEN 'majority' THEN 1 WHEN 'president' THEN 2 ELSE 0 END)::BIGINT << 51)
       | (flagged::BIGINT << 53) | (coalesce(CAST(significance * 2 AS BIGINT), 0) << 54),
       CASE WHEN value_brl IS DISTINCT FROM median_brl THEN value_brl END, spread, computed_at, median_brl
FROM item_consensus ORDER BY round_id, item_id;

DROP TABLE item_consensus;

-- What the pages, the decisions and the minutes read, as before (same columns, same order).
CREATE VIEW item_consensus AS
SELECT round_id, item_id,
       CAST(code & 4095 AS INTEGER) AS votes_for,
       CAST((code >> 12) & 4095 AS INTEGER) AS votes_against,
       (code >> 48) & 1 = 1 AS quorum_met,
       CASE (code >> 49) & 3 WHEN 1 THEN TRUE WHEN 2 THEN FALSE END AS historical,
       CASE (code >> 51) & 3 WHEN 1 THEN 'majority' WHEN 2 THEN 'president' ELSE 'undecided' END AS decided_by,
       CAST((code >> 36) & 4095 AS INTEGER) AS n_values,
       coalesce(value_brl, median_brl) AS value_brl,
       spread,
       (code >> 53) & 1 = 1 AS flagged,
       CASE WHEN (code >> 54) & 15 > 0 THEN CAST(((code >> 54) & 15) * 0.5 AS DECIMAL(4,2)) END AS significance,
       CAST((code >> 24) & 4095 AS INTEGER) AS must_keep_votes,
       computed_at,
       median_brl
FROM round_consensus;
