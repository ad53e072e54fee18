"""Notices (issue 42 item 4; docs/decisions/060-notices.md): every person's inbox (Avisos) and e-mail by their
own choice — at once, in a daily summary, or none. Below the capabilities that tell of their acts (it imports
none of them): they call it inside their own write, so a notice commits with its act.

    notify      `notify(tx, event_key, recipients, kind, title, body, link)`: one notice per person and event
    recipients  who: a company's people, an office's, the Commission's members (db/access's predicates)
    events      the events, each composed in pt-BR — the acts' (round opened, minutes to sign, decisions
                published, statement issued), the daily job's (values missing, deadlines near) and the hooks
                for filings, intimations and notified decisions
    inbox       the person's own notices: read, mark read, the e-mail choice
    outbox      what is still to be e-mailed (valuation.jobs.notices_mail sends it after the commit)
    kinds       the kinds and the e-mail choices (pure); text: what a notice may say, its link (pure)
"""
