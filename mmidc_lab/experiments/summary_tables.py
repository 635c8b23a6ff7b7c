"""What the tables of a pipeline's runs are made of: mean and sample
standard deviation over seeds, markdown tables, minutes, the machine and the
commits the runs trained with."""
import os
import platform
import statistics
from typing import Iterable, Optional, Sequence, Tuple

__all__ = ['mean_sd', 'format_mean_sd', 'markdown_table', 'format_minutes',
           'machine_info', 'run_commits']


def mean_sd(values: Iterable[Optional[float]]
            ) -> Tuple[Optional[float], Optional[float]]:
    """``(mean, sample sd)`` of the values that are not None; sd is None
    with fewer than two values, both None with none."""
    values = [v for v in values if v is not None]
    if not values:
        return None, None
    if len(values) < 2:
        return statistics.mean(values), None
    return statistics.mean(values), statistics.stdev(values)


def format_mean_sd(mean: Optional[float], sd: Optional[float]) -> str:
    """``'m.mm ± s.ss'``, ``'m.mm'`` without an sd, ``'-'`` without a
    mean."""
    if mean is None:
        return '-'
    return f'{mean:.2f}' if sd is None else f'{mean:.2f} ± {sd:.2f}'


def markdown_table(header: Sequence[str],
                   lines: Iterable[Sequence[str]]) -> str:
    """A markdown table of string cells."""
    out = ['| ' + ' | '.join(header) + ' |',
           '|' + '|'.join('---' for _ in header) + '|']
    out += ['| ' + ' | '.join(line) + ' |' for line in lines]
    return '\n'.join(out)


def format_minutes(seconds: float) -> str:
    return f'{seconds / 60:.1f} min'


def machine_info() -> str:
    """Cores, CPU model, system and the load average now, in one line."""
    model = platform.processor() or 'unknown CPU'
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    model = line.split(':', 1)[1].strip()
                    break
    except OSError:
        pass
    load = ' '.join(f'{v:.2f}' for v in os.getloadavg())
    return (f'nproc {os.cpu_count()}, {model}, {platform.system()} '
            f'{platform.machine()}; load average now {load}')


def run_commits(runs: Iterable[dict]) -> str:
    """The commits the runs trained with (each recorded by its own run, not
    by the summary), in run order without repeats."""
    commits = [r.get('commit') or 'not recorded' for r in runs]
    return ', '.join(dict.fromkeys(commits))
