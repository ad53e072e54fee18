"""Signatures the product verifies (issue 27 §2): PAdES signatures on the documents it issued.

    trust    the anchors and CRLs the admin installed as files (VALUATION_TRUST_DIR, default data/trust/)
    cpf      the holder of a signing certificate: the CPF (ICP-Brasil otherName 2.16.76.1.3.1) and the name
    verify   `verify_signed(data, registered=…, expected_cpfs=…, trust=…)`: pure of the database, pyHanko
    revisions  what the update bringing the first signature may change (pyHanko's diff policy cannot vet it)
    required   who must sign each kind of document; 'assinado por N de M' (pure)
    records    `record_signed_upload(store, user, code, data)`, `signature_status(store, code)` (migration 067)
    institutional  the service's own A1 signature (PKCS#12 from the environment), optional
"""
