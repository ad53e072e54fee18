-- 014 event kinds in Portuguese (issue 12 "one language for stored codes"): the stored codes of the
-- registry and deadline tables are Portuguese, as the law and NORMAM-10 name the facts
-- ('vigente', 'pesquisa', 'madeira', 'soçobrada' already were); the deadline events' kinds were
-- English. Rule names (`monthly_report`, …) are identifiers of the public CLI (cli.md) and stay.
-- Never edit an applied migration: add a new numbered file.
UPDATE deadline_events SET kind = CASE kind
    WHEN 'monthly_report_delivered' THEN 'relatório_mensal_entregue'
    WHEN 'final_report_delivered' THEN 'relatório_final_entregue'
    WHEN 'operations_started' THEN 'operações_iniciadas'
    WHEN 'extension_requested' THEN 'prorrogação_requerida'
    WHEN 'notice_published' THEN 'edital_de_preferência_publicado'
    WHEN 'recovery_for_owner' THEN 'resgate_por_conta_do_responsável'
    WHEN 'excursion_notified' THEN 'excursão_comunicada'
    WHEN 'wreck_map_sent' THEN 'mapa_de_naufrágios_enviado'
    WHEN 'court_inquiry_opened' THEN 'inquérito_instaurado'
    WHEN 'court_steps_concluded' THEN 'diligências_concluídas'
    WHEN 'court_report_done' THEN 'relatório_do_inquérito_concluído'
    WHEN 'court_parties_notified' THEN 'ciência_das_conclusões'
    WHEN 'court_defence_filed' THEN 'defesa_prévia_apresentada'
    WHEN 'court_inquiry_sent' THEN 'inquérito_enviado_ao_tribunal'
    WHEN 'court_representation_filed' THEN 'representação_apresentada'
    WHEN 'court_decided' THEN 'decisão_do_tribunal'
    WHEN 'deadline_met' THEN 'prazo_cumprido'
    ELSE kind END;
