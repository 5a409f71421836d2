"""The ``scrapy-dedup`` command-line tool."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import DedupError
from .extract import extract
from .url_index import open_existing


def _write(line: str) -> None:
    sys.stdout.buffer.write(line.encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def _extract(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            data = sys.stdin.buffer.read() if name == "-" else Path(name).read_bytes()
        except OSError as exc:
            print(f"scrapy-dedup extract: {name}: {exc.strerror or exc}", file=sys.stderr)
            status = 2
            continue
        doc = extract(data, encoding=args.encoding)
        if args.json:
            record = {"file": name, "title": doc.title, "paragraphs": list(doc.paragraphs)}
            _write(json.dumps(record, ensure_ascii=False))
        else:
            _write(doc.text)
    return status


def _stats(args: argparse.Namespace) -> int:
    index = open_existing(args.dir)
    try:
        report = {"path": str(index.path), **index.params, **index.stats()}
        report["bytes_per_url"] = round(report["bytes"] / report["count"], 3) if report["count"] else None
    finally:
        index.close()
    if args.json:
        print(json.dumps(report, sort_keys=True))
    else:
        width = max(map(len, report))
        for key, value in report.items():
            print(f"{key:<{width}}  {value}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="scrapy-dedup", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    stats = commands.add_parser("stats", help="what a URL index holds")
    stats.add_argument("dir", help="the index directory, DEDUP_DIR/<spider name>")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(run=_stats)

    extract_ = commands.add_parser("extract", help="print the body text of saved pages")
    extract_.add_argument("files", nargs="+", metavar="FILE", help="HTML files; - reads standard input")
    extract_.add_argument("--json", action="store_true", help="one JSON object per page: title, paragraphs")
    extract_.add_argument("--encoding", help="the pages' charset when known (else declared or detected)")
    extract_.set_defaults(run=_extract)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (DedupError, OSError) as exc:
        print(f"scrapy-dedup {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
