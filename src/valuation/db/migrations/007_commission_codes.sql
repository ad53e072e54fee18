-- 007 commission codes (issue 3): per-row counters of assessment_current, kept in step by the
-- store (valuation.store.commission), so that the consensus of a million-item round sums two
-- integers per row instead of evaluating nine conditions (valuation.store.consensus_sql).
-- Never edit an applied migration: add a new numbered file.

-- vote_code = 1 (historical) | 1 << 12 (not historical) | 1 << 24 (must keep)
--           | 1 << 36 (the round's president voted historical) | 2 << 36 (… not historical)
ALTER TABLE assessment_current ADD COLUMN vote_code BIGINT NOT NULL DEFAULT 0;
-- score_code = 1 << (12 × (significance − 1)); 0 without a significance
ALTER TABLE assessment_current ADD COLUMN score_code BIGINT NOT NULL DEFAULT 0;
