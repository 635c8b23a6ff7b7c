"""tools/caption_pair.py, run in-process (main(argv))."""
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers import load_tool
from tests.helpers.tiny_models import square_pair


@pytest.fixture(scope='module')
def cli():
    return load_tool('tools/caption_pair.py')


def _write_pair(folder: Path, name: str, scheme='suffix'):
    before, after, _ = square_pair(size=40)
    if scheme == 'suffix':
        paths = folder / f'{name}_before.png', folder / f'{name}_after.jpg'
    else:
        sides = ('A', 'B') if scheme == 'A/B' else ('before', 'after')
        for side in sides:
            (folder / side).mkdir(exist_ok=True)
        paths = folder / sides[0] / f'{name}.png', folder / sides[1] / f'{name}.png'
    Image.fromarray(before).save(paths[0])
    Image.fromarray(after).save(paths[1])
    return paths


def test_single_pair_prints_caption_and_saves_attention(
        cli, captioner_files, pair_files, tmp_path, capsys):
    out_png = tmp_path / 'att.png'
    code = cli.main([*captioner_files, *pair_files, '--device', 'cpu',
                     '--beam', '2', '--show-attention', str(out_png)])
    printed = capsys.readouterr().out.splitlines()
    assert code == 0 and printed[0].strip()
    assert printed[1].startswith('score') and out_png.is_file()


@pytest.mark.parametrize('worker_type', ['thread', 'process'])
def test_pairs_file_writes_jsonl_with_errors(cli, captioner_files, tmp_path, capsys,
                                             worker_type):
    _write_pair(tmp_path, 'a')
    _write_pair(tmp_path, 'b')
    records = [dict(img1='a_before.png', img2='a_after.jpg', pair_id='a'),
               dict(img1='b_before.png', img2='missing.png', pair_id='b'),
               dict(img1='b_before.png', img2='b_after.jpg')]
    pairs_file = tmp_path / 'pairs.jsonl'
    pairs_file.write_text('\n'.join(json.dumps(r) for r in records))
    out = tmp_path / 'out' / 'results.jsonl'
    code = cli.main([*captioner_files, '--pairs-file', str(pairs_file),
                     '--data-root', str(tmp_path), '--out', str(out),
                     '--batch-size', '2', '--device', 'cpu', '--workers', '2',
                     '--worker-type', worker_type])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 1  # one pair failed
    assert [r['pair_id'] for r in results] == ['a', 'b', '2']
    assert results[0]['caption'] and 'score' in results[0]
    assert 'missing.png: no such image file' in results[1]['error']
    assert results[2]['caption']
    assert '2 of 3 pairs captioned' in capsys.readouterr().out


@pytest.mark.parametrize('scheme', ['suffix', 'subfolders', 'A/B'])
def test_folder_naming_schemes(cli, captioner_files, tmp_path, scheme):
    images = tmp_path / 'pairs'
    images.mkdir()
    for name in ('x', 'y'):
        _write_pair(images, name, scheme)
    out = tmp_path / 'results.jsonl'
    code = cli.main([*captioner_files, '--folder', str(images), '--out',
                     str(out), '--device', 'cpu'])
    results = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and [r['pair_id'] for r in results] == ['x', 'y']


def test_argument_and_input_errors(cli, captioner_files, pair_files, tmp_path, capsys):
    with pytest.raises(SystemExit):
        cli.main([*captioner_files])  # no pair source
    with pytest.raises(SystemExit):
        cli.main([*captioner_files, '--folder', str(tmp_path)])  # no --out
    with pytest.raises(SystemExit):
        cli.main([*captioner_files, *pair_files, '--beam', '0'])
    with pytest.raises(SystemExit):
        cli.main([*captioner_files, '--folder', str(tmp_path), '--out', 'r.jsonl',
                  '--workers', '-1'])
    assert '--workers must be >= 0' in capsys.readouterr().err
    code = cli.main([*captioner_files, pair_files[0], str(tmp_path / 'no.png'),
                     '--device', 'cpu'])
    assert code == 2 and 'no.png: no such image file' in capsys.readouterr().err
    empty = tmp_path / 'empty'
    empty.mkdir()
    code = cli.main([*captioner_files, '--folder', str(empty), '--out',
                     str(tmp_path / 'r.jsonl')])
    assert code == 2 and 'NAME_before.png' in capsys.readouterr().err


def test_value_range_option(cli, capsys):
    args = cli.parse_args(['c.py', 'w.pth', 'a.png', 'b.png', '--value-range',
                           '0,4095'])
    assert args.value_range == (0.0, 4095.0)
    assert cli.parse_args(['c.py', 'w.pth', 'a.png', 'b.png']).value_range is None
    with pytest.raises(SystemExit):
        cli.parse_args(['c.py', 'w.pth', 'a.png', 'b.png', '--value-range', '0-4095'])
    assert "value range must be one of" in capsys.readouterr().err


def test_pairs_file_without_data_root_points_to_its_folder(
        cli, captioner_files, tmp_path, capsys, monkeypatch):
    # ImagePairDataset's own test.jsonl: paths relative to its folder, not to
    # the working directory, which is where they are read without --data-root
    data = tmp_path / 'my_pairs'
    data.mkdir()
    _write_pair(data, 'a', scheme='before/after')
    pairs_file = data / 'test.jsonl'
    pairs_file.write_text(json.dumps(dict(img1='before/a.png', img2='after/a.png')))
    elsewhere = tmp_path / 'elsewhere'
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / 'results.jsonl'
    code = cli.main([*captioner_files, '--pairs-file', str(pairs_file),
                     '--out', str(out), '--device', 'cpu', '--workers', '0'])
    err = capsys.readouterr().err
    assert code == 1
    assert f'--data-root {data}' in err, err
    assert str(elsewhere) in err


@pytest.mark.skipif(__import__('torch').cuda.is_available(),
                    reason='a machine whose torch sees no CUDA GPU')
def test_a_gpu_torch_does_not_see_is_one_error_line(
        cli, captioner_files, pair_files, capsys):
    """--device cuda where torch sees no GPU: one line naming the option and
    the fix (exit 2), no traceback, before the checkpoint is read."""
    code = cli.main([*captioner_files, *pair_files, '--device', 'cuda'])
    err = capsys.readouterr().err
    assert code == 2
    assert "device='cuda', but torch sees no CUDA GPU here" in err
    assert '--device cpu' in err and 'Traceback' not in err


def test_out_that_is_a_folder_is_a_usage_error(cli, tmp_path, capsys):
    """--out naming a folder: a usage line naming it, before the model is
    loaded (not an IsADirectoryError traceback once it is)."""
    with pytest.raises(SystemExit) as exit_info:
        cli.parse_args(['c.py', 'w.pth', '--folder', str(tmp_path),
                        '--out', str(tmp_path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f'--out {tmp_path} is a folder' in err and 'results.jsonl' in err
