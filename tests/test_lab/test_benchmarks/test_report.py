"""mmidc_lab.benchmarks.report: markdown tables and generated docs sections."""
from mmidc_lab.benchmarks import report


def test_write_section_keeps_the_text_around(tmp_path):
    doc = tmp_path / 'bench.md'
    doc.write_text('# Title\n\nhand-written\n')
    report.write_section(str(doc), 'cpu', 'table one')
    report.write_section(str(doc), 'gpu', 'gpu table')
    report.write_section(str(doc), 'cpu', 'table two')
    text = doc.read_text()
    assert text.startswith('# Title\n\nhand-written\n')
    assert 'table two' in text and 'table one' not in text and 'gpu table' in text
    assert text.count('<!-- generated: cpu start -->') == 1
    assert report.markdown([dict(a=1.23456, b=True)], ['a', 'b']).splitlines()[-1] \
        == '| 1.23 | yes |'
