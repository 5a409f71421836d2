"""The code stays ruff-clean: linted and formatted as pyproject.toml says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATHS = [p for p in ("scrapy_dedup", "tests", "benchmarks", "example_project") if (ROOT / p).exists()]


def test_ruff_check() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", *PATHS], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
