"""Markdown tables of a benchmark run, and writing them into a docs page.

``write_section`` replaces the text between ``<!-- generated: NAME start -->``
and ``<!-- generated: NAME end -->`` in a markdown file (appending the pair
of markers at the end when absent), so that a run rewrites its own tables and
leaves the hand-written text around them alone.
"""
import os
import re
from typing import Dict, Iterable, List, Sequence


def fmt(value) -> str:
    if isinstance(value, bool):
        return 'yes' if value else 'no'
    if isinstance(value, float):
        return f'{value:.3g}' if abs(value) < 100 else f'{value:.0f}'
    return '' if value is None else str(value)


def markdown(rows: Iterable[Dict], columns: Sequence[str]) -> str:
    """A markdown table of ``rows`` (dicts) with ``columns``."""
    lines = ['| ' + ' | '.join(columns) + ' |', '|' + '---|' * len(columns)]
    for row in rows:
        lines.append('| ' + ' | '.join(fmt(row.get(c)) for c in columns) + ' |')
    return '\n'.join(lines)


def markers(name: str):
    return (f'<!-- generated: {name} start -->', f'<!-- generated: {name} end -->')


def write_section(path: str, name: str, text: str) -> None:
    """Put ``text`` between the ``name`` markers of the markdown file."""
    begin, end = markers(name)
    content = open(path).read() if os.path.isfile(path) else ''
    block = f'{begin}\n{text.strip()}\n{end}'
    pattern = re.compile(re.escape(begin) + r'.*?' + re.escape(end), re.S)
    if pattern.search(content):
        content = pattern.sub(lambda _: block, content)
    else:
        content = content.rstrip('\n') + f'\n\n{block}\n'
    with open(path, 'w') as f:
        f.write(content)


def machine_lines(result: Dict) -> List[str]:
    """Device, versions, date, command and load of a run, as bullet lines."""
    m = result['machine']
    device = (f'{m["gpu"]} (CUDA {m.get("cuda")}), {m["cpu_count"]} CPU cores '
              f'({m["cpu_model"]})' if m.get('gpu') else
              f'{m["cpu_model"]}, {m["cpu_count"]} cores (`nproc`), no GPU')
    return [
        f'- **Device**: {device}; torch {m["torch"]}, Python {m["python"]}',
        f'- **Date**: {result["date"]} (UTC), {result["duration_s"]:.0f} s'
        + ('' if result.get('complete', True) else ' (cut short: the sections '
           'measured before the limit)'),
        f'- **Command**: `{result["command"]}` at commit {result.get("commit", "?")}',
        f'- **Load average** (1 min): {result["load_start"]} at the start, '
        f'{result["load_end"]} at the end'
        + (' (the machine was shared with other jobs: wall-clock rates are '
           'lower bounds)' if max(result['load_start'], result['load_end'])
           > 1.5 * (m['cpu_count'] or 1) / 2 else ''),
    ]
