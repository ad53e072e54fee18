-- 003 commission extras (issue 3): what the assessment workflow needs beyond 002.
-- Never edit an applied migration: add a new numbered file.

-- The president of a round (users.id of the commission_president who opened it): the
-- tie-break vote is this member's (Lei 2.180 art. 70 by analogy; NORMAM-10 0303 c 1 I).
ALTER TABLE assessment_rounds ADD COLUMN president_id BIGINT;
-- Who published the round's decisions (published_at is in 002).
ALTER TABLE assessment_rounds ADD COLUMN published_by VARCHAR;

-- The sheet an entry came from (imports.id, kind 'avaliacoes_comissao'); NULL for one-at-a-time entry.
ALTER TABLE assessment_log ADD COLUMN import_id BIGINT;

-- The anonymous median of the members' values (rounded once, half-up, to the cent), shown to
-- the members after the round closes whatever the round's consensus method is.
ALTER TABLE item_consensus ADD COLUMN median_brl DECIMAL(18,2);
