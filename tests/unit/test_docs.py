"""The README and docs link only inside the repository, and every setting is documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from backend.cli import settings_help
from backend.config import Settings, env_var_name

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# [text](target) and ![alt](target); the target ends at whitespace or the closing bracket.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # https:, mailto:, ...


def _without_code(text: str) -> str:
    """Markdown minus fenced blocks and inline code, where brackets are not links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def _relative_links(doc: Path) -> list[str]:
    targets = LINK.findall(_without_code(doc.read_text(encoding="utf-8")))
    return [t for t in targets if not EXTERNAL.match(t) and not t.startswith("#")]


def test_the_link_finder_sees_links_and_skips_code():
    sample = 'See [a](docs/a.md), ![pic](x.png "t"), [b](https://e.org), `[c](no.md)`.'
    assert LINK.findall(_without_code(sample)) == ["docs/a.md", "x.png", "https://e.org"]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves_to_a_file_in_the_repository(doc: Path):
    broken = []
    for target in _relative_links(doc):
        path = (doc.parent / target.split("#")[0]).resolve()
        if not path.is_relative_to(ROOT) or not path.exists():
            broken.append(target)
    assert not broken, (
        f"{doc.relative_to(ROOT)} links outside the repository or to nothing: {broken}"
    )


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_doc_points_at_the_contract_outside_the_repository(doc: Path):
    mentions = "shared/SPEC.md" in doc.read_text(encoding="utf-8")
    assert not mentions, f"{doc.relative_to(ROOT)} mentions shared/SPEC.md: use reference.md"


def test_readme_links_the_reference_and_the_deployment_guide():
    links = _relative_links(ROOT / "README.md")
    assert "docs/reference.md" in links and "docs/deploy.md" in links


@pytest.mark.parametrize("name", list(Settings.model_fields))
def test_every_setting_is_in_the_help_and_the_docs(name: str):
    variable = env_var_name(name)
    assert variable in settings_help(), f"{variable} is missing from serve.py --help"
    documented = [d for d in DOCS if variable in d.read_text(encoding="utf-8")]
    assert documented, f"{variable} is not documented: add it to docs/deploy.md's settings"
