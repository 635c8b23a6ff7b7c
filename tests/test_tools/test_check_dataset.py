"""tools/analysis_tools/check_dataset.py: the table of every shipped
data-set base on a tiny tree of its layout, missing and corrupt images,
a split that does not build, mixed pairs and the published counts."""
import os
import os.path as osp
import runpy
import shutil
import sys

import pytest

from tests.helpers import REPO, load_tool
from tests.helpers import pair_trees, rs_trees
from tests.helpers.exif_images import oriented_bytes, upright_picture
from tests.helpers.pair_trees import read_json, write_json

TOOL = 'tools/analysis_tools/check_dataset.py'
BASES = REPO / 'configs' / '_base_' / 'datasets'
RS_SPLITS = {'train': 4, 'val': 2, 'test': 2}
CLEVR_SPLITS = {'train': [0, 1], 'val': [2], 'test': [3]}


def _clevr(root):
    pair_trees.make_clevr_change_tree(root, CLEVR_SPLITS, size=(24, 16))


def _my_pairs(root):
    pair_trees.make_my_pairs_tree(root, {'train': 2, 'val': 1, 'test': 1},
                                  size=(24, 16))


#: layout -> the tree writer (root) and the pairs of each split it writes
LAYOUTS = {
    'clevr_change': (_clevr, dict(train=4, val=2, test=2)),
    'my_pairs': (_my_pairs, dict(train=2, val=1, test=1)),
    'spot_the_diff': (lambda root: pair_trees.make_spot_the_diff_tree(
        root, size=(20, 15)), dict(train=2, val=1, test=1)),
    'ier': (pair_trees.make_ier_tree, dict(train=2, val=1, test=1)),
    'birds_to_words': (lambda root: pair_trees.make_birds_to_words_tree(
        root, size=(20, 15)), dict(train=4, val=1, test=1)),
    'levir_cc': (lambda root: rs_trees.make_levir_cc_tree(
        root, RS_SPLITS, size=(16, 16)), RS_SPLITS),
    'levir_mci': (lambda root: rs_trees.make_levir_mci_tree(
        root, RS_SPLITS, size=(16, 16)), RS_SPLITS),
    'whu_cdc': (lambda root: rs_trees.make_whu_cdc_tree(
        root, RS_SPLITS, size=(16, 16)), RS_SPLITS),
    'second_cc': (lambda root: rs_trees.make_second_cc_tree(
        root, RS_SPLITS, size=(16, 16)), RS_SPLITS),
    'dubai_cc': (lambda root: rs_trees.make_dubai_cc_tree(
        root, RS_SPLITS, size=(16, 16)), RS_SPLITS),
}
#: every shipped data-set base -> its layout
BASE_LAYOUTS = {
    'birds_to_words.py': 'birds_to_words',
    'clevr_change.py': 'clevr_change',
    'clevr_change_resnet101_features.py': 'clevr_change',
    'dubai_cc.py': 'dubai_cc',
    'image_editing_request.py': 'ier',
    'image_pair.py': 'my_pairs',
    'image_pair_96x144.py': 'my_pairs',
    'levir_cc.py': 'levir_cc',
    'levir_mci.py': 'levir_mci',
    'second_cc.py': 'second_cc',
    'spot_the_diff.py': 'spot_the_diff',
    'synthetic_clevr_change.py': 'clevr_change',
    'synthetic_clevr_change_96x144.py': 'clevr_change',
    'synthetic_clevr_change_shifted_96x144.py': 'clevr_change',
    'whu_cdc.py': 'whu_cdc',
}


@pytest.fixture(scope='module')
def trees(tmp_path_factory):
    """A tree of each layout, written when first asked for."""
    made = {}

    def tree(layout):
        if layout not in made:
            root = str(tmp_path_factory.mktemp(layout))
            LAYOUTS[layout][0](root)
            made[layout] = root
        return made[layout]
    return tree


def run(argv):
    return load_tool(TOOL).main([str(a) for a in argv])


def test_every_shipped_base_has_a_layout():
    assert sorted(p.name for p in BASES.glob('*.py')) == sorted(BASE_LAYOUTS)


@pytest.mark.parametrize('base', sorted(BASE_LAYOUTS))
def test_the_table_of_every_shipped_base(base, trees, tmp_path, capsys):
    """Each base's three loaders, moved to a tiny tree of its layout: the
    table and the JSON have every split's pairs and images, exit 0."""
    layout = BASE_LAYOUTS[base]
    root = trees(layout)
    options = [f'data_root={root}']
    if 'shifted' in base:  # the second folder: a copy of the tree
        shifted = str(tmp_path / 'shifted')
        shutil.copytree(root, shifted)
        options.append(f'shifted_root={shifted}')
    out = tmp_path / 'table.json'
    assert run([BASES / base, '--workers', 0, '--out', out,
                '--cfg-options', *options]) == 0
    printed = capsys.readouterr().out
    assert 'references / pair (min / mean / max)' in printed
    assert printed.rstrip().endswith(f'wrote {out}')
    report = read_json(out)
    assert report['ok'] and report['errors'] == []
    for split, pairs in LAYOUTS[layout][1].items():
        stats = report['splits'][split]
        assert stats['pairs'] == pairs, split
        assert stats['missing_images'] == [] and \
            stats['unreadable_images'] == {}
        assert sum(stats['image_sizes'].values()) == stats['images'] > 0
        assert stats['sentences'] >= pairs and stats['vocabulary'] > 0


def test_counts_captions_and_kinds_of_a_remote_sensing_set(trees, capsys):
    """LEVIR-CC's tree: half the pairs are no-change pairs (its five
    sentences), 5 references each, 16x16 images; the row of each."""
    assert run([BASES / 'levir_cc.py', '--workers', 0, '--split', 'train',
                '--cfg-options', f'data_root={trees("levir_cc")}']) == 0
    rows = dict(line.split('  ', 1) for line in
                capsys.readouterr().out.splitlines() if '  ' in line)
    assert rows['pairs'].strip() == '4'
    assert rows['sentences'].strip() == '20'
    assert rows['references / pair (min / mean / max)'].strip() == \
        '5 / 5.00 / 5'
    assert rows['change pairs'].strip() == '2'
    assert rows['no-change pairs'].strip() == '2'
    assert rows['mixed pairs'].strip() == '0'
    assert rows['change types'].strip() == 'change: 2, none: 2'
    assert rows['image sizes (W x H)'].strip() == '16x16: 8'


def test_a_pair_mixing_no_change_and_change_captions(tmp_path):
    """A pair with one change caption among no-change sentences is counted
    as mixed (the reader reads it as a change pair)."""
    root = str(tmp_path / 'levir')
    rs_trees.make_levir_cc_tree(root, RS_SPLITS, size=(16, 16))
    ann = osp.join(root, 'LevirCCcaptions.json')
    content = read_json(ann)
    # train pairs alternate change / no change: record 1 is a no-change one
    content['images'][1]['sentences'][0]['raw'] = 'a red house is built'
    write_json(ann, content)
    out = tmp_path / 'table.json'
    assert run([BASES / 'levir_cc.py', '--workers', 0, '--split', 'train',
                '--out', out, '--cfg-options', f'data_root={root}']) == 0
    train = read_json(out)['splits']['train']
    assert (train['change'], train['no_change'], train['mixed']) == (2, 1, 1)


@pytest.mark.parametrize('fmt', ['PNG', 'JPEG'])
def test_image_sizes_are_upright_as_training_reads_them(fmt, tmp_path):
    """A photo stored sideways (EXIF orientation 6) counts with its upright
    size, decoded or from its header (--no-decode)."""
    root = str(tmp_path / 'pairs')
    _my_pairs(root)
    with open(osp.join(root, 'after', 'val_000.png'), 'wb') as f:
        f.write(oriented_bytes(upright_picture(24, 40), 6, fmt))
    for decode in ([], ['--no-decode']):
        out = tmp_path / 'table.json'
        assert run([BASES / 'image_pair.py', '--workers', 0, '--split', 'val',
                    '--out', out, *decode,
                    '--cfg-options', f'data_root={root}']) == 0
        sizes = read_json(out)['splits']['val']['image_sizes']
        assert sizes == {'24x16': 1, '40x24': 1}, (decode, sizes)


def test_real_dubai_cc_records(tmp_path):
    """The real Dubai-CC records of tests/data/dubai_cc_excerpt.json (its
    files, as distributed), with 50x50 TIFFs under their real names: the
    no-change, change and mixed pairs by Dubai-CC's own sentences."""
    root = tmp_path / 'dubai'
    excerpt = read_json(str(REPO / 'tests' / 'data' / 'dubai_cc_excerpt.json'))
    for name, content in excerpt.items():
        write_json(str(root / name), content)
        for record in content['images']:
            for folder in ('RGB/500_2000', 'RGB/500_2010'):
                os.makedirs(root / folder, exist_ok=True)
                pair_trees.scene_image((50, 50), 0, mode='RGB').save(
                    root / folder / record['filename'])
    out = tmp_path / 'table.json'
    assert run([BASES / 'dubai_cc.py', '--workers', 0, '--out', out,
                '--cfg-options', f'data_root={root}']) == 0
    splits = read_json(out)['splits']
    kinds = {s: (splits[s]['change'], splits[s]['no_change'],
                 splits[s]['mixed']) for s in splits}
    assert kinds == dict(train=(1, 2, 1), val=(1, 1, 0), test=(1, 2, 1))
    assert splits['test']['image_sizes'] == {'50x50': 8}


def test_a_missing_image_fails_naming_the_file(tmp_path, capsys):
    """Every missing image is listed (the reader stops at the first), the
    table is still printed, exit 1."""
    root = str(tmp_path / 'levir')
    rs_trees.make_levir_cc_tree(root, RS_SPLITS, size=(16, 16))
    gone = [osp.join(root, 'images', 'val', 'B', 'val_000001.png'),
            osp.join(root, 'images', 'test', 'A', 'test_000000.png')]
    for path in gone:
        os.remove(path)
    out = tmp_path / 'table.json'
    assert run([BASES / 'levir_cc.py', '--workers', 0, '--out', out,
                '--cfg-options', f'data_root={root}']) == 1
    printed = capsys.readouterr().out
    for path in gone:
        assert f'image not found: {path}' in printed
    assert 'FAILED: 2 errors' in printed
    report = read_json(out)
    assert report['splits']['val']['missing_images'] == [gone[0]]
    assert report['splits']['val']['pairs'] == 2  # still counted


def test_a_corrupt_image_fails_naming_the_file(tmp_path, capsys):
    """A truncated PNG passes the reader's existence check and fails the
    full decode, in worker threads too."""
    root = str(tmp_path / 'pairs')
    _my_pairs(root)
    bad = osp.join(root, 'after', 'val_000.png')
    with open(bad, 'rb') as f:
        data = f.read()
    with open(bad, 'wb') as f:
        f.write(data[:len(data) // 2])
    assert run([BASES / 'image_pair.py', '--workers', 2,
                '--cfg-options', f'data_root={root}']) == 1
    printed = capsys.readouterr().out
    assert f'val: unreadable image: {bad} (does not decode' in printed
    assert printed.count('unreadable image:') == 1


def test_a_split_that_does_not_build_prints_the_reader_error(tmp_path,
                                                              capsys):
    root = str(tmp_path / 'pairs')
    _my_pairs(root)
    with open(osp.join(root, 'test.jsonl'), 'w') as f:
        f.write('{"img1": "before/test_000.png"\n')
    assert run([BASES / 'image_pair.py', '--workers', 0,
                '--cfg-options', f'data_root={root}']) == 1
    printed = capsys.readouterr().out
    assert 'ERROR test: the data set does not build: ValueError: ' \
        f'{osp.join(root, "test.jsonl")}: line 1 is not valid JSON' in printed
    assert 'Traceback' not in printed
    assert 'not built' in printed  # the other splits' columns are there


def test_a_config_that_cannot_be_read(tmp_path, capsys):
    """A loader reading another folder than data_root (the training
    command's check) is an error naming the setting, no traceback."""
    root = str(tmp_path / 'pairs')
    assert run([BASES / 'image_pair.py', '--cfg-options',
                f'train_dataloader.dataset.data_root={root}']) == 1
    printed = capsys.readouterr().out
    assert 'ERROR ' in printed and 'ValueError' in printed
    assert f"train_dataloader.dataset.data_root = '{root}'" in printed
    assert 'Traceback' not in printed


def test_a_count_that_differs_from_the_published_one(trees, tmp_path,
                                                     monkeypatch, capsys):
    """Each split is compared with the published count; a difference is a
    line naming the split and the difference, not an error."""
    tool = load_tool(TOOL)
    published = dict(tool.PUBLISHED['LEVIR-CC'],
                     pairs=dict(train=4, val=3, test=1))
    monkeypatch.setitem(tool.PUBLISHED, 'LEVIR-CC', published)
    out = tmp_path / 'table.json'
    assert tool.main([str(BASES / 'levir_cc.py'), '--workers', '0',
                      '--no-decode', '--out', str(out), '--cfg-options',
                      f'data_root={trees("levir_cc")}']) == 0
    printed = capsys.readouterr().out
    assert 'published: train: 4 pairs, as published for LEVIR-CC' in printed
    assert 'published: val: 2 pairs; the published LEVIR-CC val split has ' \
        '3 (-1, fewer: a subset is fine) [Liu et al. 2022]' in printed
    assert 'published: test: 2 pairs; the published LEVIR-CC test split ' \
        'has 1 (+1, more than the published set)' in printed
    report = read_json(out)
    assert report['splits']['val']['published']['difference'] == -1
    # --no-decode: sizes from the headers, nothing decoded
    assert report['splits']['val']['image_sizes'] == {'16x16': 4}
    assert report['splits']['val']['unreadable_images'] is None
    assert 'not checked' in printed


def test_change_pairs_only_compare_with_the_published_change_pairs(
        trees, monkeypatch, capsys):
    """A reader that leaves the no-change pairs out (the adaptation stage's
    with_no_change=False) is compared with the published change pairs."""
    tool = load_tool(TOOL)
    published = dict(tool.PUBLISHED['CLEVR-Change'],
                     change=dict(train=2, val=3, test=1))
    monkeypatch.setitem(tool.PUBLISHED, 'CLEVR-Change', published)
    assert tool.main([str(BASES / 'clevr_change.py'), '--split', 'train',
                      '--no-decode', '--cfg-options',
                      f'data_root={trees("clevr_change")}',
                      'train_dataloader.dataset.with_no_change=False']) == 0
    printed = capsys.readouterr().out
    assert 'published: train: 2 change pairs, as published for ' \
        'CLEVR-Change' in printed


def test_a_total_published_without_splits(trees, capsys):
    """SECOND-CC publishes its total only: compared when all three splits
    are checked."""
    assert run([BASES / 'second_cc.py', '--workers', 0, '--no-decode',
                '--cfg-options', f'data_root={trees("second_cc")}']) == 0
    assert 'published: all splits: 8 pairs; the published SECOND-CC has ' \
        '6,041 (-6,033)' in capsys.readouterr().out


def test_command_line(trees, monkeypatch, capsys):
    """The script run as a command (``sys.argv``, the exit status; default
    workers: threads), in this process: a subprocess would import torch
    again for seconds."""
    monkeypatch.chdir(REPO)
    monkeypatch.setattr(sys, 'argv', [
        TOOL, 'configs/_base_/datasets/dubai_cc.py', '--split', 'val',
        '--cfg-options', f'data_root={trees("dubai_cc")}'])
    with pytest.raises(SystemExit) as exited:
        runpy.run_path(TOOL, run_name='__main__')
    assert exited.value.code == 0
    printed = capsys.readouterr().out
    assert 'DubaiCCDataset' in printed
    assert '16x16: 4' in printed and printed.rstrip().endswith('OK')


def test_the_published_counts_are_the_documented_ones():
    """docs/datasets.md's "Published counts" table and the tool's counts
    agree, set by set."""
    text = (REPO / 'docs' / 'datasets.md').read_text()
    table = text.split('### Published counts', 1)[1].split('\n\n')[2]
    documented = {}
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.strip('|').split('|')]
        numbers = [int(c.split()[0].replace(',', '')) if c else None
                   for c in cells[1:4]]
        documented[cells[0]] = numbers
    published = {}
    for name, known in load_tool(TOOL).PUBLISHED.items():
        if 'total' in known:
            published[name] = [known['total'], None, None]
        else:
            published[name] = [known['pairs'][s] for s in
                               ('train', 'val', 'test')]
    assert documented == published
