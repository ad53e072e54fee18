"""Verifying a signed PDF at the size of the new work (issue 28): a 50-page document issued by the
product's report builder (fpdf2, with its authenticity stamp), signed six times in incremental pyHanko
updates by six certificates of one test root, verified by `signatures.verify.verify_signed`.

    python bench/signatures_bench.py --repeat 3       # prints the figures
    (bench/run.py calls `measure`)

Untimed: the test PKI (tests/support/pki.py, real keys made with `cryptography`), the PDF, the six
signatures. Timed: `verify_signed` of the six-signature file (median of `repeat`); checked to be valid
with six valid signatures, or the figure would mean nothing.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
for _p in (str(HERE.parent / "src"), str(HERE.parent)):
    if _p not in sys.path:
        sys.path.insert(0, _p)

KEYS: tuple[str, ...] = ("signature_verify_6x50_s",)
LABELS: dict[str, str] = {"signature_verify_6x50_s": "verify a 50-page PDF with 6 signatures (verify_signed)"}
LIMIT_S = 1.0
PAGES = 50
SIGNERS = 6


def targets(r: dict[str, Any]) -> dict[str, tuple[str, bool | None]]:
    return {"signature_verify_6x50_s": (f"≤ {LIMIT_S:g} s", r["signature_verify_6x50_s"] <= LIMIT_S)}


def _page_count(data: bytes) -> int:
    from pyhanko.pdf_utils.reader import PdfFileReader

    return int(PdfFileReader(io.BytesIO(data), strict=False).root["/Pages"]["/Count"])


def issued_pdf(pages: int = PAGES) -> bytes:
    """A document of `pages` pages made as the product makes its minutes: PdfReport with a stamp."""
    from valuation.authenticity.codes import Stamp
    from valuation.exports import PdfReport

    rows_per_page = 30
    rows = rows_per_page * pages
    while True:
        report = PdfReport("Ata da rodada 1 de avaliação — contrato A-1",
                           "Comissão Interministerial — Lei 7.542/1986, art. 20 §3", orientation="L",
                           stamp=Stamp(code="ABCDE12345", base_url="https://painel.teste",
                                       nup="00000.000001/2026-11"))
        report.heading("1. Itens avaliados")
        report.table(["Item", "Descrição", "Valor"],
                     [(f"A1-{i:05d}", f"Ânfora de cerâmica nº {i}", f"R$ {i},00") for i in range(rows)],
                     col_widths=[1, 5, 2])
        data = report.bytes()
        got = _page_count(data)
        if got == pages:
            return data
        rows = max(1, rows * pages // got - (1 if got > pages else -1))


def build() -> dict[str, Any]:
    """The PKI, its trust folder, the issued PDF and the six-signature file (nothing timed)."""
    from tests.support.pki import TestPki, sign
    from valuation.signatures.trust import load_trust

    pki = TestPki.build()
    root, inter = pki.root, pki.intermediate
    valid = (pki.people["ana"].cert.not_valid_before_utc, pki.people["ana"].cert.not_valid_after_utc)
    cpfs = ["52998224725", "11144477735", "39053344705", "87748248800", "12345678909", "98765432100"]
    for i, cpf in enumerate(cpfs[3:], start=1):
        pki.add_person(f"extra{i}", f"SIGNATARIO EXTRA {i}", cpf, inter, valid)
    labels = ["ana", "bruno", "carla", "extra1", "extra2", "extra3"]
    assert all(pki.people[x].chain[-1] == root.cert for x in labels)
    registered = issued_pdf()
    data = registered
    for label in labels:
        data = sign(data, pki.person(label))
    folder = Path(tempfile.mkdtemp(prefix="bench-trust-"))
    trust = load_trust(pki.install(folder))
    return {"registered": registered, "data": data, "trust": trust,
            "cpfs": {pki.person(x).cpf for x in labels}, "pages": _page_count(data)}


def measure(repeat: int = 3, say: Any = print, profile: Path | None = None) -> dict[str, Any]:
    import resource

    from valuation.signatures.verify import verify_signed

    say(f"signatures: building a {PAGES}-page PDF and {SIGNERS} signatures (untimed)")
    built = build()

    def run() -> Any:
        return verify_signed(built["data"], registered=built["registered"], expected_cpfs=built["cpfs"],
                             trust=built["trust"])

    walls: list[float] = []
    cpus: list[float] = []
    result: Any = None
    for _ in range(max(1, repeat)):
        c0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        result = run()
        walls.append(time.perf_counter() - t0)
        c1 = resource.getrusage(resource.RUSAGE_SELF)
        cpus.append((c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime))
    if not (result.valid and len(result.signatures) == SIGNERS):
        raise RuntimeError(f"verification of the benchmark file failed: {result.reasons}")
    if profile is not None:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        run()
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").dump_stats(str(profile))
    median = statistics.median(walls)
    say(f"signature_verify_6x50_s = {median:.3f} (cpu {statistics.median(cpus):.3f})")
    return {"signature_verify_6x50_s": median,
            "details": {"signature_verify": {"runs_s": [round(w, 4) for w in walls],
                                             "cpu_s": [round(c, 4) for c in cpus],
                                             "pages": built["pages"], "bytes": len(built["data"]),
                                             "signatures": len(result.signatures)}}}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", type=Path, default=None, help="write a cProfile of one more run here")
    args = ap.parse_args(argv)
    return measure(args.repeat, profile=args.profile)


if __name__ == "__main__":
    import json
    import os

    out = main()
    out["load_avg"] = os.getloadavg()
    print(json.dumps(out, indent=1, default=str))
