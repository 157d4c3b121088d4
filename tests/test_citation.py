"""LICENSE and CITATION.cff agree with the package metadata (setup.cfg)."""

from __future__ import annotations

import configparser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _metadata() -> configparser.SectionProxy:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg["metadata"]


def test_license_file_is_the_licence_setup_cfg_declares():
    assert _metadata()["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_citation_names_this_version_and_licence_and_every_subject_paper():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["version"] == _metadata()["version"]
    assert cff["license"] == _metadata()["license"]
    titles = " ".join(ref["title"] for ref in cff["references"])
    for system in ("Sojourn", "Synergy", "SLAQ", "ESG"):
        assert system in titles
    for ref in cff["references"]:
        assert ref["authors"] and ref["year"]
