"""tools/demo/app.py: the command line checks its limits (the app itself:
tests/test_tools/test_demo_server.py)."""
import pytest

from tests.helpers import load_tool


def test_command_line_checks_limits(capsys):
    demo = load_tool('tools/demo/app.py')
    args = demo.parse_args(['cfg.py', 'ckpt.pth'])
    assert (args.max_megapixels, args.max_queue) == (16.0, 4)
    for option in (['--max-queue', '0'], ['--max-megapixels', '0']):
        with pytest.raises(SystemExit):
            demo.parse_args(['cfg.py', 'ckpt.pth', *option])
        assert '--max-queue' in capsys.readouterr().err
    with pytest.raises(SystemExit):
        demo.parse_args(['cfg.py', 'ckpt.pth', '--retrieval-config', 'r.py'])
    assert 'go together' in capsys.readouterr().err
