"""The audit log read by a person: actions, objects, fields and values in pt-BR.

`changes(action, before_json, after_json)` lists each changed field as (label, before,
after) texts; `summary(...)` is the same on one line ("Situação: aberta → encerrada; …").
Field keys never reach the reader: every key the product writes has a label here (an
unknown key is shown as words, never as a snake_case identifier). Wreck positions read
"sigilosa" whatever the row holds (the admin is not cleared for positions), and so do the free
texts of a confidential record (`changes(entity=…)`: a wreck's notes and signalling, a found
thing's place and notes; issue 24). Timestamps are
stored in UTC and shown in Brasília time (`brasilia`).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from functools import cache
from typing import Any

from valuation.accounts.people import person
from valuation.core import law
from valuation.core.clock import brasilia
from valuation.core.law import years_text
from valuation.core.money import format_brl, format_date_br, format_datetime_br

MASKED = "sigilosa"
BLANK = "—"
MAX_LIST = 8          # list values show their first items, then "… e mais N"
HASH_SHOWN = 12

ACTION_LABELS: dict[str, str] = {
    "correct": "Correção de cadastro", "contract_act": "Ato de situação de contrato registrado",
    "load_directory": "Diretório de Capitanias, Delegacias e Agências carregado",
    "login": "Entrada no sistema", "login_failed": "Tentativa de entrada recusada",
    "login_sso": "Entrada por login único", "login_govbr": "Entrada pelo gov.br",
    "login_govbr_refused": "Entrada pelo gov.br recusada", "account_locked": "Conta bloqueada por tentativas",
    "login_throttled": "Tentativa de entrada recusada durante a espera",
    "login_throttle": "Espera imposta a novas tentativas de entrada",
    "login_inactive": "Entrada recusada: usuário desativado",
    "login_busy": "Tentativa de entrada recusada: senhas demais sendo conferidas ao mesmo tempo",
    "login_failed_burst": "Tentativas de entrada recusadas em sequência (resumo)",
    "audit_sealed": "Cadeia de auditoria selada com a chave",
    "load_started": "Início de carga de dados", "load_complete": "Carga de dados concluída",
    "rows_sealed": "Conteúdo de tabelas protegidas registrado na cadeia",
    "restore_broken_chain_accepted": "Restauração aceitou cadeia de auditoria rompida",
    "backup_taken": "Cópia de segurança gravada (conteúdo atestado)",
    "recovery_point_late": "Aviso: a cópia de segurança comprovada mais recente passou do ponto de recuperação",
    "create": "Cadastro", "set_role": "Perfil alterado", "activate": "Usuário reativado",
    "deactivate": "Usuário desativado", "unlock": "Usuário desbloqueado", "reset_password": "Senha redefinida",
    "demo.seed": "Carga dos dados de demonstração", "bench.seed": "Carga dos dados de teste de desempenho",
    "seed_deadline_demo": "Carga dos eventos de prazo de demonstração",
    "set_policy": "Política alterada", "add_local_holiday": "Feriado municipal incluído",
    "remove_local_holiday": "Feriado municipal excluído",
    "record_deadline_event": "Evento de prazo registrado", "void_deadline_event": "Evento de prazo anulado",
    "waive_deadline": "Prazo dispensado", "revoke_deadline_waiver": "Dispensa de prazo revogada",
    "rates_imported": "Taxas de câmbio importadas", "rate_added": "Taxa de câmbio incluída",
    "rate_replaced": "Taxa de câmbio substituída",
    "round_opened": "Rodada de avaliação aberta", "round_closed": "Rodada de avaliação encerrada",
    "round_published": "Rodada de avaliação publicada", "decisions_recorded": "Decisões registradas",
    "consensus_computed": "Consenso calculado", "assessment_recorded": "Avaliação registrada",
    "assessment_corrected": "Avaliação corrigida", "assessments_imported": "Planilha de avaliações importada",
    "assessments_recorded": "Avaliações registradas em lote",
    "items_imported": "Bens importados", "items_delivered": "Entrega de bens registrada",
    "items_delivery_corrected": "Entrega de bens corrigida",
    "found_thing_registered": "Coisa achada registrada", "found_thing_event": "Andamento de coisa achada",
    "found_thing_cost": "Despesa de guarda e conservação de coisa achada (art. 29 §1)",
    "contract_terms_set": "Termos do contrato alterados", "valuation_date_set": "Data de avaliação do contrato fixada",
    "difficulty_assessed": "Dificuldade avaliada",
    "cancellation_compensation_set": "Compensação por cancelamento definida",
    "selection_locks_set": "Bens fixados na escolha", "selection_saved": "Escolha da União gravada",
    "statement_drafted": "Rascunho de demonstrativo gravado", "statement_issued": "Demonstrativo emitido",
    "document_issued": "Documento emitido com código de verificação",
    "signed_upload_verified": "Documento assinado enviado e verificado",
    "signed_upload_refused": "Envio de documento assinado recusado",
    "document_signed_institutionally": "Documento assinado com o certificado institucional (A1) do serviço",
    "protocol_unit_set": "Unidade protocolizadora da OM cadastrada",
    "nup_assigned": "Número único de processo (NUP) atribuído",
    "nup_adopted": "NUP do sistema de protocolo adotado pelo processo",
    "process_documents_filed": "Atos registrados como documentos dos seus processos",
    "survey_cost_sheet_filed": "Planilha de custos de pesquisa protocolada",
    "survey_actual_costs": "Custos realizados da pesquisa informados",
    "survey_overrun_approved": "Excesso de custo aprovado",
    "inspection_expense_recorded": "Despesa de fiscalização registrada",
    "audit_anchor_missing": "Âncora da cadeia ausente (registrada pela aplicação)",
    "logout": "Saída do sistema", "set_offices": "Capitanias do usuário definidas",
    "calendar_feed_created": "Assinatura de calendário criada",
    "calendar_feed_revoked": "Assinatura de calendário revogada",
    "start_job": "Tarefa agendada iniciada", "finish_job": "Tarefa agendada concluída",
    "attachment_upload": "Arquivo anexado", "attachment_download": "Arquivo anexado baixado",
    "attachment_replace": "Arquivo anexado substituído (nova versão)",
    "attachment_withdraw": "Arquivo anexado retirado",
    "attachment_principal": "Foto principal escolhida", "attachment_bulk_upload": "Fotos anexadas em lote (ZIP)",
    "attachment_photo_sheet": "Anexo de fotos gerado",
    "comparables_recorded": "Decisões publicadas incluídas nos comparáveis",
    "comparables_flagged": "Consensos fora da faixa dos comparáveis sinalizados",
    "add_early_closing": "Encerramento antecipado incluído", "remove_early_closing": "Encerramento antecipado excluído",
    "record_removal_order": "Determinação de remoção registrada", "change_removal_dates": "Prazos da remoção alterados",
    "record_removal_start": "Início da remoção registrado",
    "record_edital_publication": "Publicação do edital registrada (art. 9 §2)",
    "record_removal_takeover": "Remoção assumida pela Autoridade Naval",
    "end_removal_order": "Determinação de remoção encerrada", "record_owner_balance": "Saldo do responsável registrado",
    "record_balance_paid": "Saldo entregue ao responsável",
    "record_co_signature": "Coassinatura do Ministério da Cultura registrada",
    "seed_legal_demo": "Carga dos registros legais de demonstração",
    # issue 25: sites (Constituição art. 20 X), cessions (Lei 7.542 art. 8), cargo (arts. 13 §1, 14), salvage
    "record_archaeological_site": "Sítio arqueológico registrado",
    "record_cession": "Cessão dos direitos do responsável registrada",
    "record_cession_communicated": "Comunicação de cessão à Autoridade Naval registrada",
    "record_cargo": "Carga e seu responsável registrados", "record_licence_request": "Pedido de responsável registrado",
    "salvage_assessed": "Remuneração por assistência e salvamento fixada com os fatores",
    "seed_wreck_law_demo": "Carga dos registros de demonstração de sítios, cessões, cargas e salvamento",
    # issue 26: requests and their process (Lei 9.784/1999)
    "file_request": "Requerimento protocolado", "filing": "Documento protocolado",
    "filing_review": "Protocolo examinado pela OM", "intimation_issued": "Intimação emitida",
    "intimation_ciencia": "Ciência de intimação registrada", "record_request_step": "Etapa de requerimento registrada",
    "seed_requests_demo": "Carga dos requerimentos de demonstração",
    # issue 26 §2: the Authority's decisions and the appeals (Lei 7.542 art. 33; Lei 9.784/1999 arts. 56–65)
    "record_administrative_decision": "Decisão da Autoridade registrada, com a sua ciência",
    "file_appeal": "Recurso administrativo interposto", "record_appeal_step": "Etapa de recurso registrada",
    "decision_reformed_by_appeal": "Decisão reformada por recurso",
    "record_appeal_notice": "Ciência da decisão de recurso registrada (Lei 9.784/1999 art. 59)",
    # issue 44: the calendar DPC keeps
    "add_calendar_record": "Dia do calendário registrado pela DPC, com a sua fonte",
    "withdraw_calendar_record": "Registro do calendário retirado",
    "seed_calendar_records_demo": "Carga dos registros do calendário de demonstração", "seed_appeals_demo":
        "Carga das decisões e recursos de demonstração",
    # issue 42 item 4: notices (Avisos)
    "notice_read": "Aviso marcado como lido", "notices_read": "Avisos marcados como lidos",
    "notice_mail_chosen": "Escolha de e-mail dos avisos alterada", "notices_written": "Avisos do dia gerados",
    "notices_mailed": "Avisos enviados por e-mail",
    # issue 42 item 5: a record made by mistake is annulled with its reason (Lei 9.784/1999 arts. 50 and 53)
    "annul_deadline_event": "Evento de prazo anulado por engano, com o motivo (Lei 9.784/1999 art. 53)",
    "annul_request_step": "Etapa de requerimento anulada por engano, com o motivo (Lei 9.784/1999 art. 53)",
    "annul_appeal_step": "Etapa de recurso anulada por engano, com o motivo (Lei 9.784/1999 art. 53)",
}

ENTITY_LABELS: dict[str, str] = {
    "process_documents": "Documentos de processo",
    "backup": "Cópia de segurança", "issued_document": "Documento emitido (código de verificação)",
    "signed_upload_refusal": "Envio recusado de documento assinado",
    "office": "Capitania/Delegacia/Agência", "protocol_units": "Unidades protocolizadoras",
    "round": "Rodada da Comissão",
    "user": "Usuário", "users": "Usuários", "owner": "Responsável", "owners": "Responsáveis",
    "organisation": "Empresa", "organisations": "Empresas", "wreck": "Naufrágio", "wrecks": "Naufrágios",
    "wreck_suspensions": f"Suspensões do prazo de {years_text(law.LAPSE_YEARS.value)}",
    "contract": "Contrato", "contracts": "Contratos",
    "items": "Bens resgatados", "item_deliveries": "Entregas de bens", "offices": "Capitanias",
    "local_holidays": "Feriados municipais", "local_holiday": "Feriado municipal", "policy": "Política",
    "deadline_event": "Evento de prazo", "deadline": "Prazo", "fx_rate": "Taxa de câmbio",
    "assessment_round": "Rodada de avaliação", "assessment": "Avaliação", "statement": "Demonstrativo",
    "found_thing": "Coisa achada", "audit_log": "Registro de auditoria", "job_run": "Execução de tarefa",
    "item": "Bem resgatado", "attachment": "Arquivo anexado",
    "login_throttle": "Espera entre tentativas de entrada", "demo": "Dados de demonstração",
    "row_seals": "Selos de conteúdo",
    "early_closing": "Encerramento antecipado", "removal_order": "Determinação de remoção",
    "owner_balance": "Saldo do responsável",
    "request": "Requerimento", "filing": "Protocolo", "intimation": "Intimação",
    "archaeological_site": "Sítio arqueológico", "cession": "Cessão de direitos", "wreck_cargo": "Carga do naufrágio",
    "licence_request": "Pedido de responsável",
    "administrative_decision": "Decisão da Autoridade", "appeal": "Recurso administrativo",
    "calendar_record": "Registro do calendário", "notice": "Aviso", "notices": "Avisos",
}

FIELD_LABELS: dict[str, str] = {
    # people and access
    "outcome": "Resultado", "verification": "Verificação da assinatura", "signed_by": "Assinaturas",
    "reasons": "Motivos",
    "username": "Usuário", "full_name": "Nome", "email": "E-mail", "role": "Perfil", "organisation_id": "Empresa nº",
    "commission_body": "Órgão na Comissão", "active": "Ativo", "failed_attempts": "Tentativas falhas",
    "locked_until": "Bloqueado até", "member_id": "Membro nº", "president": "Presidente",
    # imports and seeds
    "rows": "Registros", "seed": "Semente", "events": "Eventos", "as_of": "Data de referência", "kinds": "Tipos",
    "added": "Incluídas", "unchanged": "Sem alteração", "currencies": "Moedas", "file": "Arquivo",
    "archive": "Arquivo ZIP", "files": "Arquivos", "media_type": "Tipo de conteúdo", "size": "Tamanho (bytes)",
    "principal": "Foto principal", "dimensions": "Dimensões", "outside_comparables": "Fora dos comparáveis",
    "owner_kind": "Anexado a", "variant": "Versão do arquivo",
    "file_name": "Arquivo", "sha256": "Resumo SHA-256", "import_id": "Importação nº", "new": "Novos",
    "corrections": "Correções", "format": "Formato", "encoding": "Codificação", "separator": "Separador",
    "channel": "Canal", "survey": "Pesquisa", "wreck": "Naufrágio",
    # commission
    "contract": "Contrato", "from_round": "Rodada de origem", "items": "Itens", "method": "Método",
    "number": "Número", "quorum": "Quórum", "spread_threshold": "Limite de dispersão", "amount": "Valor",
    "currency": "Moeda", "historical": "Voto (valor histórico)", "id": "Nº", "item_id": "Item nº",
    "must_keep": "Proposta de manter na União", "price_date": "Data do preço", "rate": "Taxa de câmbio",
    "rate_date": "Data da taxa", "conversion_date": "Data de avaliação usada na conversão (art. 21 §3)",
    "conversion_rate_date": "Data da taxa na data de avaliação", "valuation_date": "Data de avaliação (art. 21 §3)",
    "round_id": "Rodada nº", "significance": "Significância",
    "source": "Fonte do valor", "source_note": "Observação sobre a fonte", "supersedes": "Substitui o nº",
    "value_brl": "Valor em R$", "status": "Situação", "flagged": "Sinalizados para nova rodada",
    "undecided": "Sem decisão", "mode": "Forma", "written": "Gravados", "valuations_published": "Valores publicados",
    "scope": "Abrangência", "brl": "Cotação em R$",
    # partition, costs, statements
    "filed_on": "Protocolada em", "lines": "Linhas de custo", "line": "Linha", "planned": "Previsto",
    "actual": "Realizado", "new_lines": "Novas linhas", "reported_on": "Informado em",
    "approved_overrun": "Excesso aprovado", "line_no": "Linha nº", "reason": "Motivo", "kind": "Tipo",
    "cost_id": "Despesa nº",
    "incurred_on": "Data da despesa", "scores": "Notas", "suggested_share": "Parcela sugerida", "weights": "Pesos",
    "compensation_form": "Forma da compensação", "compensation_share": "Parcela da compensação",
    "sale_proceeds": "Produto da venda dos bens", "gap": "Diferença certificada", "pool": "Conjunto",
    "run_id": "Execução nº", "selected": "Bens escolhidos", "selected_value": "Valor escolhido", "target": "Alvo",
    "tolerance": "Tolerância", "blockers": "Pendências", "net": "Valor líquido",
    "correction_reason": "Motivo da correção", "draft": "Rascunho nº", "pdf_sha256": "Resumo SHA-256 do PDF",
    "version": "Versão", "closed_on": "Encerrada em", "effective_on": "Data de efeito",
    "offices": "Capitanias, Delegacias e Agências", "local_holidays": "Feriados municipais",
    "directory_source": "Fonte do diretório", "holiday_source": "Fonte dos feriados",
    "modality": "Modalidade de pagamento (art. 21)",
    "historical_share": "Recompensa pelos bens históricos", "historical_payment": "Forma de pagamento da recompensa",
    "other_share": "Parcela dos demais bens", "fixed_amount": "Soma em dinheiro (modalidade I)",
    "salvage_award": "Valor por assistência e salvamento", "value_fixed": "Valor fixado (art. 21 §3)",
    # custody, found things, deadlines, calendars
    "delivered_on": "Entregue em", "received_by": "Recebido por", "place": "Local", "note": "Observação",
    "item_codes": "Códigos dos itens", "item_codes_total": "Total de itens", "lot": "Lote",
    "recovered_to": "Recuperados até", "skipped": "Ignorados", "event_id": "Evento nº", "event_date": "Data do evento",
    "party": "Responsável / adquirente", "origin": "Procedência", "reference": "Referência", "notes": "Observações",
    "office_code": "Capitania/Delegacia/Agência", "day": "Data", "name": "Nome", "description": "Descrição",
    "quantity": "Quantidade", "found_on": "Data do achado", "collected_on": "Data do recolhimento",
    "finder_name": "Quem achou", "finder_document": "Documento de quem achou",
    "finder_contact": "Contato de quem achou", "wreck_id": "Naufrágio nº", "wreck_code": "Naufrágio",
    "contract_id": "Contrato nº", "state": "Situação", "voided_by_event": "Anulado pelo evento nº",
    "waiver_id": "Dispensa nº", "revoked": "Revogação", "effective_from": "Vigência",
    "head_id": "Último registro da cadeia na cópia", "digest": "Resumo do conteúdo (sha256)",
    "sealed": "Atestado selado com a chave",
    "rows_found": "Registros encontrados", "last_id": "Último registro", "last_hash": "Último hash",
    # registry: wrecks, organisations, owners
    "code": "Código", "vessel_type": "Tipo de embarcação", "flag": "Bandeira", "hull_material": "Material do casco",
    "casualty_type": "Tipo de sinistro", "casualty_year": "Ano do sinistro", "casualty_month": "Mês do sinistro",
    "casualty_day": "Dia do sinistro", "casualty_precision": "Precisão da data do sinistro",
    "situation": "Situação", "visible_high_tide": "Visível na preamar", "visible_low_tide": "Visível na baixa-mar",
    "signalling": "Sinalização", "protected_area": "Em área protegida", "owner_id": "Responsável nº",
    "owner_declared_lost": "Declaração de perda", "owner_licence_requested": "Pedido de licença",
    "court_known_on": "Conhecimento do sinistro", "trade_name": "Nome fantasia", "country": "País",
    "nationality": "Nacionalidade", "cnpj": "CNPJ", "address": "Endereço", "city": "Cidade", "state_uf": "UF",
    "phone": "Telefone", "representative_name": "Representante legal", "representative_cpf": "CPF do representante",
    "experience": "Experiência comprovada", "registered_on": "Data de inscrição", "doc_kind": "Tipo de documento",
    "doc_number": "Número do documento", "whereabouts_known": "Paradeiro conhecido",
    "recorded_by": "Registrado por", "recorded_at": "Registrado em",
    # login throttling and the audit chain (issue 14)
    "failures": "Falhas contadas", "load": "Carga", "client": "Endereço de origem", "blocked_until": "Espera até",
    "refused": "Recusadas sem conferir a senha", "usernames": "Usuários tentados", "first_at": "Primeira em",
    "last_at": "Última em",
    "rotated": "Troca de chave",
    # removal orders, owner's balances, co-signatures, dated policies (issue 15)
    "act": "Ato", "ordered_on": "Determinada em", "notice": "Intimação", "notified_on": "Intimado em",
    "published_on": "Edital publicado em", "starts_by": "Início fixado", "ends_by": "Término fixado",
    "started_on": "Iniciada em", "taken_over_on": "Assumida pela Autoridade em", "ended_on": "Encerrada em",
    "end_kind": "Como terminou", "removal_order_id": "Determinação nº", "outlet": "Veículo da publicação",
    "last_publication": "Última publicação do edital", "disposed_on": "Alienação em",
    "proceeds": "Produto da alienação", "union_costs": "Despesas da União", "balance": "Saldo",
    "paid_on": "Entregue em", "signed_on": "Assinada em", "signatory": "Signatário", "basis": "Referência legal",
    "co_signatures": "Coassinaturas", "removal_orders": "Determinações de remoção",
    "owner_balances": "Saldos do responsável", "policies": "Políticas",
    # issue 25
    "authority": "Órgão", "archaeological_sites": "Sítios arqueológicos", "owners": "Responsáveis",
    "cedent_id": "Cedente nº",
    "cessionary_id": "Cessionário nº", "ceded_on": "Cedida em", "communicated_on": "Comunicada em",
    "requester_id": "Requerente nº", "requested_on": "Pedido em", "cessions": "Cessões", "part": "Coisas",
    "declared_lost": "Declarada perdida em",
    "wreck_cargoes": "Cargas", "licence_requests": "Pedidos de responsáveis",
    # issue 26
    "requests": "Requerimentos", "request_steps": "Etapas de requerimentos",
    "matter": "Assunto", "step_id": "Etapa nº",
    "reference_day": "Data marcada (comparecimento, diligência ou prazo fixado)",
    "licence_request_id": "Pedido de responsável nº",
    "administrative_decisions": "Decisões da Autoridade", "appeals": "Recursos", "appeal_steps": "Etapas de recursos",
    "appeal_id": "Recurso nº", "decision_id": "Decisão nº", "record_id": "Registro decidido nº",
    "decided_on": "Decidida em", "summary": "Teor da decisão", "instance": "Instância", "appellant": "Recorrente",
    "grounds": "Razões do recurso", "on_time": "No prazo", "late": "Fora do prazo (Lei 9.784/1999 art. 63 I)",
    "suspensive": "Efeito suspensivo concedido", "suspensive_reason": "Razão do efeito suspensivo",
    "cause": "Causa", "appeal_notices": "Ciências das decisões de recursos",
    "annulments": "Anulações de registros", "annulment_id": "Anulação nº",
    "calendar_record": "Registro do calendário", "calendar_records": "Registros do calendário",
    "effect": "Efeito", "moved_from": "Transferido de",
    "withdrawn_by": "Retirado por", "withdrawn_at": "Retirado em", "withdrawn_reason": "Motivo da retirada",
    "appearance": "Ciência suprida pelo comparecimento (Lei 9.784/1999 art. 26 §5)",
    "salvage_assessments": "Fixações de remuneração por salvamento", "assessment": "Fixação nº",
    "success": "Êxito obtido", "efforts": "Esforços e habilidade", "danger": "Perigo", "time_spent": "Tempo empregado",
    "risk": "Riscos dos salvadores", "equipment": "Equipamento empregado", "damage_avoided": "Danos evitados",
    "valuation_dates": "Datas de avaliação (art. 21 §3)", "found_things": "Coisas achadas",
    "nup": "NUP (número único de processo)", "office": "Capitania/Delegacia/Agência", "record": "Registro",
    "unit_code": "Código da unidade protocolizadora",
    # issue 42 item 4: notices
    "read": "Avisos lidos", "mail": "Receber os avisos", "notices": "Avisos", "recipients": "Destinatários",
    "messages": "Mensagens",
    # positions (always masked)
    "lat_deg": "Latitude (graus)", "lat_min": "Latitude (minutos)", "lat_hem": "Latitude (hemisfério)",
    "lon_deg": "Longitude (graus)", "lon_min": "Longitude (minutos)", "lon_hem": "Longitude (hemisfério)",
    "datum": "Datum", "position_approximate": "Posição aproximada", "depth_m": "Profundidade (m)",
    "latitude": "Latitude", "longitude": "Longitude",
}
POSITION_FIELDS = frozenset(("lat_deg", "lat_min", "lat_hem", "lon_deg", "lon_min", "lon_hem", "datum",
                             "position_approximate", "depth_m", "latitude", "longitude"))
MONEY_FIELDS = frozenset(("amount", "value_brl", "planned", "actual", "approved_overrun", "net", "target",
                          "selected_value", "sale_proceeds", "fixed_amount", "salvage_award", "proceeds",
                          "union_costs", "balance"))
SHARE_FIELDS = frozenset(("suggested_share", "compensation_share", "historical_share", "other_share", "tolerance",
                          "spread_threshold", "gap"))
HASH_FIELDS = frozenset(("sha256", "pdf_sha256", "last_hash", "digest"))
DATETIME_FIELDS = frozenset(("locked_until", "recorded_at", "blocked_until", "first_at", "last_at"))
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
_DECIMAL = re.compile(r"^-?\d+\.\d+$")
_SNAKE = re.compile(r"^[a-z]+(_[a-z0-9]+)+$")


ATTACHMENT_ACTIONS = ("attachment_upload", "attachment_bulk_upload", "attachment_replace", "attachment_withdraw",
                      "attachment_download", "attachment_principal", "attachment_photo_sheet")


@cache
def _value_labels() -> dict[str, Mapping[Any, str]]:
    """Labels of stored codes, by field: taken from the modules that own each concept."""
    from valuation.accounts import throttle
    from valuation.attachments.kinds import KIND_LABELS, OWNER_LABELS, VARIANT_LABELS
    from valuation.commission.sheet import SOURCES
    from valuation.core.calendar import POLICY_DAY_LABELS
    from valuation.db import access
    from valuation.deadlines import calendar_records
    from valuation.deadlines.vocabulary import EVENT_KINDS
    from valuation.inventory import found_things
    from valuation.jobs.runs import OUTCOME_LABELS
    from valuation.partition import choice, survey_sheets
    from valuation.partition import documents as statement_docs
    from valuation.policies.fields import METHOD_LABELS
    from valuation.registry.removal_orders import END_LABELS, NOTICE_LABELS

    return {
        "role": access.ROLE_LABELS, "commission_body": access.COMMISSION_BODY_LABELS, "source": SOURCES,
        "method": {k: v.lower() for k, v in METHOD_LABELS.items()},
        "pool": choice.POOL_LABELS, "modality": statement_docs.MODALITY_LABELS,
        "historical_payment": statement_docs.PAYMENT_LABELS, "value_fixed": statement_docs.VALUE_FIXED_LABELS,
        "compensation_form": {"adjudication": "adjudicação de bens", "sale_proceeds": "produto da venda"},
        "mode": {"consensus": "pelo consenso da rodada", "explicit": "decisão informada pela presidência"},
        "scope": {"round": "rodada inteira", "items": "itens escolhidos"},
        "casualty_precision": {"day": "dia", "month": "mês", "year": "ano", "century": "século"},
        "channel": {"page": "painel", "cli": "linha de comando"},
        "origin": found_things.ORIGIN_LABELS, "policy_days": POLICY_DAY_LABELS,
        "kinds": {k.key: k.label for k in EVENT_KINDS},
        "record_deadline_event.kind": {k.key: k.label for k in EVENT_KINDS},
        "annul_deadline_event.kind": {k.key: k.label for k in EVENT_KINDS},
        "found_thing_event.kind": found_things.EVENT_LABELS, "found_thing_event.state": found_things.STATE_LABELS,
        "selection_saved.status": choice.STATUS_PT,
        "inspection_expense_recorded.kind": survey_sheets.EXPENSE_LABELS,
        "login_throttle.scope": throttle.SCOPE_LABELS,
        "notice": NOTICE_LABELS, "end_kind": END_LABELS,
        "add_calendar_record.kind": calendar_records.KINDS, "add_calendar_record.effect": calendar_records.EFFECTS,
        "add_calendar_record.scope": {calendar_records.NATIONAL: calendar_records.NATIONAL_LABEL},
        "withdraw_calendar_record.effect": calendar_records.EFFECTS,
        "withdraw_calendar_record.scope": {calendar_records.NATIONAL: calendar_records.NATIONAL_LABEL},
        "owner_kind": OWNER_LABELS, "variant": VARIANT_LABELS, "outcome": OUTCOME_LABELS,
        **{f"{action}.kind": KIND_LABELS for action in ATTACHMENT_ACTIONS},
    }






def action_label(action: object) -> str:
    return ACTION_LABELS.get(str(action), _words(str(action)))


def entity_label(entity: object) -> str:
    return ENTITY_LABELS.get(str(entity), _words(str(entity)))


def field_label(key: str) -> str:
    from valuation.policies.defaults import DEFAULT_BY_KEY

    if key in FIELD_LABELS:
        return FIELD_LABELS[key]
    if key in DEFAULT_BY_KEY:
        return DEFAULT_BY_KEY[key].label
    if key.isdigit():
        return f"Linha {key}"
    return _words(key)


def subject(entity: object, entity_id: object) -> str:
    """'Rodada de avaliação nº 1', 'Contrato DPC-EX-2015/01', 'Naufrágios (carga inteira)'."""
    label = entity_label(entity)
    if entity_id is None or (isinstance(entity_id, str) and not entity_id.strip()):
        return label
    if str(entity_id) == "*":
        return f"{label} (carga inteira)"
    return f"{label} nº {entity_id}" if str(entity_id).isdigit() else f"{label} {entity_id}"


def _words(code: str) -> str:
    """Last resort for a code without a label: words, never a snake_case identifier."""
    text = code.replace("_", " ").replace(".", " ").strip()
    return text[:1].upper() + text[1:] if text else BLANK


def _number(d: Decimal) -> str:
    text = f"{d:,f}" if d != d.to_integral() else f"{int(d):,}"
    return text.replace(",", "\x00").replace(".", ",").replace("\x00", ".")


def _as_decimal(value: object) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str) and _DECIMAL.match(value):
        try:
            return Decimal(value)
        except InvalidOperation:
            return None
    return None


def _scalar(field: str, value: object, labels: Mapping[Any, str] | None) -> str:
    if value is None:
        return BLANK
    if isinstance(value, bool):
        return "sim" if value else "não"
    if labels is not None and isinstance(value, str) and value in labels:
        return labels[value]
    d = _as_decimal(value)
    if d is None and field in MONEY_FIELDS | SHARE_FIELDS and isinstance(value, str) and value.isdigit():
        d = Decimal(value)
    if d is not None and field in MONEY_FIELDS:
        return format_brl(d)
    if d is not None and field in SHARE_FIELDS:
        return f"{_number((d * 100).normalize())} %"
    if d is not None and not field.endswith("_id") and field not in ("id", "seed", "number", "casualty_year"):
        return _number(d.normalize() if isinstance(value, str) else d)
    if isinstance(value, str):
        return _text(field, value)
    return str(value)


def _text(field: str, value: str) -> str:
    if field in HASH_FIELDS and len(value) > HASH_SHOWN:
        return value[:HASH_SHOWN] + "…"
    if _ISO_DATE.match(value):
        return format_date_br(date.fromisoformat(value[:10]))
    if _ISO_DATETIME.match(value):
        try:
            at = brasilia(datetime.fromisoformat(value))
        except ValueError:
            return value
        return format_datetime_br(at) if at else value
    if _SNAKE.match(value):
        return _words(value)
    return value


def value_text(action: str, field: str, value: object) -> str:
    """One field's value in pt-BR (positions masked; codes through their labels; lists shortened)."""
    if field in POSITION_FIELDS:
        return BLANK if value is None else MASKED
    if action == "set_policy" or field == "policy_days":
        policy = _policy_text(field, value)
        if policy is not None:
            return policy
    if field == "effective_from" and value is None:
        return "imediata"
    all_labels = _value_labels()
    labels = all_labels.get(f"{action}.{field}", all_labels.get(field))
    if isinstance(value, Mapping):
        return ", ".join(f"{field_label(str(k))}: {value_text(action, _child(field, str(k)), v)}"
                         for k, v in value.items()) or BLANK
    if isinstance(value, (list, tuple)):
        shown = [value_text(action, field, v) for v in value[:MAX_LIST]]
        more = len(value) - MAX_LIST
        sep = "; " if any(isinstance(v, Mapping) for v in value) else ", "
        return (sep.join(shown) + (f" … e mais {more}" if more > 0 else "")) if shown else "nenhum"
    return _scalar(field, value, labels)


def _child(parent: str, key: str) -> str:
    """The field whose format a nested key takes: line numbers keep their parent's (money)."""
    return parent if key.isdigit() else key


def _policy_text(field: str, value: object) -> str | None:
    from valuation.policies import fields as policy_fields
    from valuation.policies.defaults import DEFAULT_BY_KEY

    if field not in DEFAULT_BY_KEY:
        return None
    try:
        return policy_fields.display(field, policy_fields.from_json(field, json.dumps(value, default=str)))
    except (ValueError, TypeError):
        return None


def _load(text: object) -> dict[str, Any]:
    if not isinstance(text, str) or not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"": text}
    return value if isinstance(value, dict) else {"": value}


def changes(action: str, before_json: object, after_json: object, *,
            entity: object = None) -> list[tuple[str, str, str]]:
    """(field label, before, after) for every field present on either side, in the stored order;
    unchanged fields of an edit are left out. The free texts of a confidential record of `entity`
    (a wreck's notes and signalling, a found thing's place and notes) read "sigilosa" whatever the row
    holds (issue 24: rows written before the log redacted them); the row's `sigilo` digest is not shown."""
    from valuation.db.audit import CONFIDENTIAL_TEXT, SIGILO_KEY

    before, after = _load(before_json), _load(after_json)
    hidden = CONFIDENTIAL_TEXT.get(str(entity), frozenset())
    keys = [k for k in dict.fromkeys([*before, *after]) if k != SIGILO_KEY]
    out = []
    for key in keys:
        b = _shown(action, key, before[key], hidden) if key in before else None
        a = _shown(action, key, after[key], hidden) if key in after else None
        b, a = b or BLANK, a or BLANK
        if b == a:
            continue  # unchanged, or blank on both sides
        out.append((_label(action, key), b, a))
    return out


def _shown(action: str, key: str, value: object, hidden: frozenset[str]) -> str:
    if key in hidden:
        return BLANK if value is None else MASKED
    return value_text(action, key, value)


def _label(action: str, key: str) -> str:
    from valuation.policies.defaults import DEFAULT_BY_KEY

    if not key:
        return "Valor"
    if action == "set_policy" and key in DEFAULT_BY_KEY:
        return DEFAULT_BY_KEY[key].label
    return field_label(key)


def summary(action: str, before_json: object, after_json: object, *, limit: int = 6, entity: object = None) -> str:
    """The change on one line: 'Situação: aberta → encerrada; Itens: 240' (a field without a value
    before shows its new value only)."""
    parts = []
    rows = changes(action, before_json, after_json, entity=entity)
    for label, b, a in rows[:limit]:
        parts.append(f"{label}: {a}" if b == BLANK else f"{label}: {b} → {a}")
    if len(rows) > limit:
        parts.append(f"… e mais {len(rows) - limit} campo(s)")
    return "; ".join(parts) or "sem detalhes"


def unlabelled(keys: Iterable[str]) -> list[str]:
    """The keys of `keys` that have no label of their own (for tests and reviews)."""
    from valuation.policies.defaults import DEFAULT_BY_KEY

    return sorted({k for k in keys if k and not k.isdigit() and k not in FIELD_LABELS and k not in DEFAULT_BY_KEY})


READABLE_COLUMNS = ("Nº", "Data e hora (Brasília)", "Usuário", "Ação", "Objeto", "Alteração")


def readable(rows: Any, *, names: Mapping[str, str], with_hash: bool = False) -> Any:
    """Audit rows (a DataFrame of the log's columns) as the reader sees them: one row per record,
    Brasília time, the person by name (`names`: {login: full name}, accounts.people), labels for action
    and object, the change on one line (pt-BR). The export (`with_hash`) adds the login and the hash."""
    import pandas as pd

    out = []
    for r in rows.to_dict("records"):
        row = {"Nº": int(r["id"]), "Data e hora (Brasília)": brasilia(pd.Timestamp(r["at"]).to_pydatetime()),
               "Usuário": person(names, r["actor"]), "Ação": action_label(r["action"]),
               "Objeto": subject(r["entity"], r["entity_id"]),
               "Alteração": summary(str(r["action"]), r["before_json"], r["after_json"], limit=50 if with_hash else 6,
                                    entity=r["entity"])}
        if with_hash:
            row["Login"] = r["actor"]
            row["Hash"] = r["hash"]
        out.append(row)
    return pd.DataFrame(out, columns=[*READABLE_COLUMNS, *(("Login", "Hash") if with_hash else ())])
