"""Body extraction quality and speed, side by side with trafilatura and readability-lxml.

Run by hand, in the benchmark environment (trafilatura and readability-lxml are not
dependencies of the package)::

    make bench-env
    benchmarks/.venv/bin/python benchmarks/extract_eval.py [--evaldata ../shared/evaldata]

For every extraction set of the evaluation data: token precision / recall / F1,
mean per page, with the metric of its ``anchor_eval.py`` (lower-cased ``\\w+``
tokens, each CJK character one token), and pages per second of each extractor,
measured in the same run on the same pages. Then the two targets of the
extraction issue: F1 ≥ trafilatura's on every set and ≥ 0.92 on chinese-wce;
≥ 5× trafilatura's pages per second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from scrapy_dedup.extract import extract

DEFAULT_EVALDATA = Path(__file__).resolve().parent.parent.parent / "shared" / "evaldata"


def extractors(load: object) -> dict[str, Callable[[str], str]]:
    found: dict[str, Callable[[str], str]] = {"scrapy_dedup": lambda html: extract(html).text}
    try:
        import trafilatura

        found["trafilatura"] = lambda html: trafilatura.extract(html, include_comments=False) or ""
    except ImportError:
        print("trafilatura is not installed here (make bench-env)", file=sys.stderr)
    try:
        from readability import Document

        found["readability-lxml"] = lambda html: load._html_to_text(  # type: ignore[attr-defined]
            Document(html).summary(html_partial=False)
        )
    except ImportError:
        print("readability-lxml is not installed here (make bench-env)", file=sys.stderr)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--evaldata", type=Path, default=DEFAULT_EVALDATA)
    args = parser.parse_args()
    if not (args.evaldata / "load.py").exists():
        print(f"no evaluation data at {args.evaldata} (--evaldata DIR)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(args.evaldata))
    import anchor_eval
    import load

    names = extractors(load)
    f1: dict[tuple[str, str], list[float]] = {}
    pr: dict[tuple[str, str], list[tuple[float, float]]] = {}
    seconds = dict.fromkeys(names, 0.0)
    pages = 0
    sets: list[str] = []
    for dataset in load.EXTRACTION_SETS:
        items = list(load.extraction(dataset))
        for _pid, html, gold, lang in items:
            pages += 1
            keys = [dataset] + ([f"{dataset}[zh]"] if lang == "zh" and dataset == "readability" else [])
            for key in keys:
                if key not in sets:
                    sets.append(key)
            for name, run in names.items():
                start = time.perf_counter()
                try:
                    text = run(html)
                except Exception:  # an extractor that fails on a page scores 0 there
                    text = ""
                seconds[name] += time.perf_counter() - start
                score = anchor_eval.prf(text, gold)
                if score is None:
                    continue
                for key in keys:
                    f1.setdefault((key, name), []).append(score[2])
                    pr.setdefault((key, name), []).append((score[0], score[1]))

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    print(f"# {pages} pages; token P / R / F1, mean per page")
    print("| dataset | pages | " + " | ".join(f"{n} P / R / F1" for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    met_quality = True
    for key in sets:
        cells = []
        for name in names:
            scores = f1.get((key, name), [])
            p = mean([x[0] for x in pr.get((key, name), [])])
            r = mean([x[1] for x in pr.get((key, name), [])])
            cells.append(f"{p:.3f} / {r:.3f} / **{mean(scores):.3f}**")
        print(f"| {key} | {len(f1.get((key, 'scrapy_dedup'), []))} | " + " | ".join(cells) + " |")
        ours = mean(f1.get((key, "scrapy_dedup"), []))
        if "trafilatura" in names and ours < mean(f1.get((key, "trafilatura"), [])):
            met_quality = False
        if key == "chinese-wce" and ours < 0.92:
            met_quality = False
    print()
    for name in names:
        print(f"{name:<18} {pages / seconds[name]:8.1f} pages/s  {seconds[name] / pages * 1000:7.2f} ms/page")
    if "trafilatura" in names:
        speedup = seconds["trafilatura"] / seconds["scrapy_dedup"]
        verdict = "MET" if met_quality else "MISSED"
        print(f"\nF1 >= trafilatura on every set and >= 0.92 on chinese-wce: {verdict}")
        print(f"pages/s vs trafilatura: {speedup:.1f}x (target >= 5x): {'MET' if speedup >= 5 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
