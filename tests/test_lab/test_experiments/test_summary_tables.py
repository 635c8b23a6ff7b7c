"""mmidc_lab.experiments.summary_tables: mean and sample sd, cells, tables."""
import math

import pytest

from mmidc_lab.experiments.summary_tables import (format_mean_sd, format_minutes,
                                              machine_info, markdown_table,
                                              mean_sd, run_commits)


def test_mean_and_sample_sd():
    mean, sd = mean_sd([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and sd == pytest.approx(math.sqrt(5 / 3))
    assert mean_sd([5.0]) == (5.0, None)
    assert mean_sd([None, 3.0, 5.0]) == (4.0, pytest.approx(math.sqrt(2)))
    assert mean_sd([None]) == (None, None)
    assert format_mean_sd(110.0, 5.0) == '110.00 ± 5.00'
    assert format_mean_sd(110.0, None) == '110.00'
    assert format_mean_sd(None, None) == '-'


def test_tables_minutes_machine_and_commits():
    assert markdown_table(['a', 'b'], [['1', '2']]) == \
        '| a | b |\n|---|---|\n| 1 | 2 |'
    assert format_minutes(90) == '1.5 min'
    assert machine_info().startswith('nproc ')
    assert run_commits([dict(commit='a'), dict(), dict(commit='a')]) == \
        'a, not recorded'
