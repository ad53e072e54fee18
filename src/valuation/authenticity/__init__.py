"""Authenticity of issued documents (issue 27, section 1): a verification code and a CRC on every
issued PDF, a sealed registry of what was issued, and the answers of the public /verificar route.

    codes      the code (random, 10 letters of a 32-letter alphabet = 50 bits) and the CRC, pure
    registry   the `issued_documents` table: register an issue, look a code up, compare uploaded bytes
    limiter    /verificar's per-address rate limit (in memory, like a throttle that is never restored)
"""
