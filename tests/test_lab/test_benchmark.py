"""mmidc_lab.benchmark: its command line, and a quick run that writes the
JSON record, prints the tables and fills a docs section (the sections
themselves: tests/test_lab/test_benchmarks/)."""
import json

import pytest

from mmidc_lab import benchmark


@pytest.fixture(scope='module')
def tool():
    return benchmark


def test_command_line(tool):
    args = tool.parse_args(['--batch', 'adaptation=128', 'captioning=64',
                            '--archs', 'tiny'])
    assert args.batch == dict(adaptation=128, captioning=64)
    assert tool.parse_args(['--quick']).archs == ['tiny']
    with pytest.raises(SystemExit):
        tool.parse_args(['--batch', 'pretraining=3'])
    with pytest.raises(SystemExit):
        tool.parse_args(['--gpu-rows', '--cpu-rows'])


def test_quick_run_writes_json_tables_and_docs(tool, tmp_path, capsys,
                                               one_thread):
    out, doc = tmp_path / 'bench.json', tmp_path / 'benchmark.md'
    argv = ['--quick', '--threads', '1', '--dtypes', 'fp32', '--sections',
            'vocab', '--out', str(out), '--write-docs', str(doc)]
    assert tool.main(argv) == 0
    result = json.loads(out.read_text())
    assert result['command'] == ' '.join(
        ['python', '-m', 'mmidc_lab.benchmark'] + argv)
    assert result['complete'] and 'load_start' in result
    assert result['vocab']['restricted']['ids'] < result['vocab']['full']['ids']
    assert [p['when'] for p in result['peak_measurements']] == ['start', 'end']
    printed = capsys.readouterr().out
    assert '### caption head step, vocabulary' in printed
    assert f'tables written into {doc} (section "cpu")' in printed
    text = doc.read_text()
    assert '<!-- generated: cpu start -->' in text and '**Command**' in text
