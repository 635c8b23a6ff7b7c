"""Every relative link and ``#anchor`` in README.md, docs/*.md, the config
READMEs and the projects' READMEs resolves (GitHub's heading anchors)."""
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).parents[2]
PAGES = sorted([REPO / 'README.md', *(REPO / 'docs').glob('*.md'),
                *(REPO / 'configs').glob('*/README.md'),
                *(REPO / 'projects').glob('*/README.md')])
LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|'
                  r'!\[[^\]]*\]\(([^)\s]+)\)')


def prose(text: str) -> str:
    """The page without fenced code blocks and inline code."""
    text = re.sub(r'^(```|~~~).*?^\1', '', text, flags=re.S | re.M)
    return re.sub(r'`[^`\n]*`', '', text)


def slug(heading: str) -> str:
    """GitHub's anchor of a heading."""
    text = re.sub(r'`', '', heading.strip().lower())
    text = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', text)  # links: their text
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def anchors(page: Path) -> set:
    found, seen = set(), {}
    text = re.sub(r'^(```|~~~).*?^\1', '', page.read_text(),
                  flags=re.S | re.M)
    for match in re.finditer(r'^#{1,6}\s+(.+?)\s*#*\s*$', text, flags=re.M):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f'{base}-{count}')
    found |= set(re.findall(r'<a\s+(?:name|id)="([^"]+)"', text))
    return found


def links(page: Path):
    for match in LINK.finditer(prose(page.read_text())):
        target = match.group(1) or match.group(2)
        if not re.match(r'[a-z][a-z0-9+.-]*:', target):  # http:, mailto: ...
            yield target


@pytest.mark.parametrize('page', PAGES,
                         ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_and_anchors_resolve(page):
    broken = []
    for target in links(page):
        path, _, anchor = target.partition('#')
        goal = (page.parent / unquote(path)).resolve() if path else page
        if not goal.exists():
            broken.append(f'{target}: no file {goal}')
        elif anchor and goal.suffix == '.md' and anchor not in anchors(goal):
            broken.append(f'{target}: no heading with anchor #{anchor} in '
                          f'{goal.relative_to(REPO)}')
    assert not broken, f'{page.relative_to(REPO)}: ' + '; '.join(broken)


def test_the_checker_finds_a_broken_anchor(tmp_path):
    (tmp_path / 'a.md').write_text('# Caption truth: `CaptionTruthMetric`\n'
                                   '## Twice\n## Twice\n')
    assert anchors(tmp_path / 'a.md') == {
        'caption-truth-captiontruthmetric', 'twice', 'twice-1'}
    page = tmp_path / 'b.md'
    page.write_text('[x](a.md#caption-truth) [y](a.md#twice-1) '
                    '`[z](nope.md)` [w](https://example.com/#q)\n')
    assert list(links(page)) == ['a.md#caption-truth', 'a.md#twice-1']
