"""The pre-resized cache: built by the tool, read by LoadImagePair."""
import json
import os
import os.path as osp
import pickle

import numpy as np
import pytest
import torch
from mmengine.dataset import pseudo_collate

from mmidc.datasets import CLEVRChangeDataset
from mmidc.datasets.preparation import pair_image_cache
from mmidc.datasets.preparation.pair_image_cache import cache_target
from mmidc.registry import TRANSFORMS
from tests.helpers import REPO, load_tool
from tests.helpers.pair_trees import make_clevr_change_tree, make_my_pairs_tree
SIZE = (24, 20)


def _run_tool(argv):
    return load_tool('tools/dataset_converters/build_resized_cache.py').main(argv)


@pytest.fixture(scope='module')
def cached_clevr(tmp_path_factory):
    fresh_clevr_root = str(tmp_path_factory.mktemp('cached') / 'clevr')
    make_clevr_change_tree(fresh_clevr_root)
    assert _run_tool([
        '--dataset-type', 'CLEVRChangeDataset', '--data-root',
        fresh_clevr_root, '--splits', 'train', 'val', '--size',
        *map(str, SIZE), '--workers', '2'
    ]) == 0
    return fresh_clevr_root, osp.join(fresh_clevr_root, 'cache_24x20')


def _pipeline(cache_dir=None):
    load = dict(type='LoadImagePair')
    if cache_dir:
        load.update(cache_dir=cache_dir, cache_size=SIZE)
    return [load, dict(type='ResizePair', size=SIZE)]


def _warnings(monkeypatch):
    logged = []
    monkeypatch.setattr(pair_image_cache, 'print_log',
                        lambda msg, **kwargs: logged.append(msg))
    return logged


def test_tool_writes_shards(cached_clevr):
    _, cache_dir = cached_clevr
    assert sorted(os.listdir(cache_dir)) == [
        'train.json', 'train.npy', 'val.json', 'val.npy']
    with open(osp.join(cache_dir, 'train.json')) as f:
        index = json.load(f)
    array = np.load(osp.join(cache_dir, 'train.npy'), mmap_mode='r')
    # 4 scenes x (before, semantic, non-semantic), each stored once.
    assert array.shape == (12, *SIZE, 3) and array.dtype == np.uint8
    assert index['size'] == list(SIZE) and index['root'] == '..'
    assert 'images/CLEVR_default_000000.png' in index['images']


def test_tool_keeps_current_shards_and_rebuilds_stale_ones(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    argv = ['--dataset-type', 'CLEVRChangeDataset', '--data-root', root,
            '--splits', 'train', '--size', *map(str, SIZE), '--workers', '1']
    array = osp.join(root, 'cache_24x20', 'train.npy')
    assert _run_tool(argv) == 0
    built = os.stat(array).st_mtime_ns
    assert _run_tool(argv) == 0  # current: kept
    assert os.stat(array).st_mtime_ns == built
    assert _run_tool(argv + ['--rebuild']) == 0
    rebuilt = os.stat(array).st_mtime_ns
    assert rebuilt != built
    # a source image rewritten since: the shard is stale and rebuilt
    image = osp.join(root, 'images', 'CLEVR_default_000000.png')
    stat = os.stat(image)
    os.utime(image, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert _run_tool(argv) == 0
    assert os.stat(array).st_mtime_ns != rebuilt
    with open(osp.join(root, 'cache_24x20', 'train.json')) as f:
        index = json.load(f)
    row = index['images'].index('images/CLEVR_default_000000.png')
    assert index['stats'][row][1] == stat.st_mtime_ns + 10**9


def test_round_trip_equals_resize_from_png(cached_clevr, monkeypatch):
    root, cache_dir = cached_clevr
    from_png = CLEVRChangeDataset(root, 'train', pipeline=_pipeline())
    from_cache = CLEVRChangeDataset(root, 'train',
                                    pipeline=_pipeline(cache_dir))
    load = from_cache.pipeline.transforms[0]
    expected = [from_png[i] for i in range(len(from_png))]
    # Fail if the cached loader decodes any PNG.
    monkeypatch.setattr('mmidc.datasets.transforms.load_image_pair.read_rgb',
                        lambda path: pytest.fail(f'decoded {path}'))
    for i in range(len(from_cache)):
        cached = from_cache[i]
        for key in ('img1', 'img2'):
            np.testing.assert_array_equal(cached[key], expected[i][key])
    assert load.cache._rows  # the cache was opened and used


def test_relative_paths_hit_the_cache(cached_clevr, monkeypatch):
    """Configs name data_root and cache_dir relative to the working dir."""
    root, cache_dir = cached_clevr
    monkeypatch.chdir(osp.dirname(root))
    rel_root = osp.basename(root)
    rel_cache = osp.join(rel_root, osp.basename(cache_dir))
    dataset = CLEVRChangeDataset(rel_root, 'train',
                                 pipeline=_pipeline(rel_cache))
    monkeypatch.setattr('mmidc.datasets.transforms.load_image_pair.read_rgb',
                        lambda path: pytest.fail(f'decoded {path}'))
    assert dataset[0]['img1'].shape == (*SIZE, 3)


def test_fallback_when_absent_or_stale(cached_clevr, monkeypatch):
    root, cache_dir = cached_clevr
    logged = _warnings(monkeypatch)
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=(8, 8)))  # no cache of 8x8
    pair = dict(img1_path=osp.join(root, 'images/CLEVR_default_000001.png'),
                img2_path=osp.join(root, 'images/CLEVR_default_000002.png'))
    assert load(dict(pair))['img1'].shape == (32, 48, 3)  # original size
    load(dict(pair))
    assert len(logged) == 1 and 'no cache of size (8, 8)' in logged[0]

    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    assert load(dict(pair))['img1'].shape == (*SIZE, 3)  # from the cache
    stat = os.stat(pair['img1_path'])
    os.utime(pair['img1_path'], ns=(1, 1))  # the source changed
    try:
        assert load(dict(pair))['img1'].shape == (32, 48, 3)
    finally:
        os.utime(pair['img1_path'], ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert 'changed since the cache was built' in logged[-1]
    test_png = dict(pair, img1_path=osp.join(
        root, 'images/CLEVR_default_000006.png'))  # test split: not cached
    assert load(test_png)['img1'].shape == (32, 48, 3)
    assert 'is not in the cache' in logged[-1]


def test_the_cache_keys_on_the_value_range(cached_clevr, monkeypatch):
    """A shard records the value_range it was built with ('full' by the
    tool's default); a LoadImagePair of another policy does not read it
    (a warning naming the shard) and a build for that policy finds it stale."""
    root, cache_dir = cached_clevr
    with open(osp.join(cache_dir, 'train.json')) as f:
        index = json.load(f)
    assert index['value_range'] == 'full'
    paths = [osp.join(root, rel) for rel in index['images']]
    assert pair_image_cache.shard_is_current(paths, root, cache_dir, SIZE,
                                             'train')
    assert not pair_image_cache.shard_is_current(paths, root, cache_dir, SIZE,
                                                 'train', (0, 4095))
    logged = _warnings(monkeypatch)
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE, value_range=(0, 4095)))
    pair = dict(img1_path=paths[0], img2_path=paths[1])
    assert load(dict(pair))['img1'].shape == (32, 48, 3)  # decoded
    assert "train.json was built with value_range 'full', the pipeline " \
        "reads '0:4095'" in logged[0]
    assert pair_image_cache.pipeline_value_range(
        [dict(type='LoadImagePair', value_range=[0, 4095])]) == (0.0, 4095.0)


def test_memmaps_not_pickled_and_dataloader_workers(cached_clevr):
    root, cache_dir = cached_clevr
    pipeline = _pipeline(cache_dir) + [dict(type='TokenizeCaptions'),
                                       dict(type='PackIDCInputs')]
    dataset = CLEVRChangeDataset(root, 'val', pipeline=pipeline)
    dataset[0]
    assert dataset.pipeline.transforms[0].cache._rows  # opened in this process
    assert len(pickle.dumps(dataset.pipeline.transforms[0])) < 2000
    loader = torch.utils.data.DataLoader(dataset, batch_size=2,
                                         num_workers=2,
                                         collate_fn=pseudo_collate)
    batches = list(loader)
    assert sum(len(b['inputs']) for b in batches) == len(dataset)
    assert batches[0]['inputs'][0].shape == (2, 3, *SIZE)


def test_tool_reads_a_config(cached_clevr, tmp_path):
    root, _ = cached_clevr
    config = tmp_path / 'cfg.py'
    config.write_text(
        f"train_dataloader = dict(dataset=dict(type='RepeatDataset', times=2,"
        f" dataset=dict(type='CLEVRChangeDataset', data_root={root!r},"
        f" split='val', with_no_change=False)))\n")
    cache_dir = str(tmp_path / 'cache')
    assert _run_tool([str(config), '--size', '8', '8', '--workers', '1',
                      '--cache-dir', cache_dir]) == 0
    array = np.load(osp.join(cache_dir, 'CLEVRChangeDataset_val.npy'))
    assert array.shape == (4, 8, 8, 3)  # 2 scenes x (before, semantic)


CONFIG_CACHE = (48, 72)


def _config_reading_a_cache(path, root, size=CONFIG_CACHE,
                            load_options=', value_range=(0, 255)'):
    """Train and val loaders whose pipelines read a cache at ``size`` in
    <data_root>/cache_HxW (by default 48x72, of images read with
    value_range (0, 255): the cache keys on it)."""
    path.write_text(
        f"pipeline = [dict(type='LoadImagePair', cache_size={size},"
        f" cache_dir='{{data_root}}/cache_{size[0]}x{size[1]}'{load_options}),"
        f" dict(type='ResizePair', size={size})]\n"
        + ''.join(f"{split}_dataloader = dict(dataset=dict("
                  f"type='CLEVRChangeDataset', data_root={root!r}, "
                  f"split={split!r}, pipeline=pipeline))\n"
                  for split in ('train', 'val')))
    return str(path)


@pytest.mark.parametrize('options, folder, size', [
    ([], 'cache_48x72', CONFIG_CACHE),
    (['--size', '24', '20'], 'cache_24x20', (24, 20)),
    (['--cache-dir', 'elsewhere'], 'elsewhere', CONFIG_CACHE),
], ids=['from-the-pipeline', 'size-given', 'folder-given'])
def test_tool_builds_the_cache_the_config_reads(tmp_path, capsys, monkeypatch,
                                                options, folder, size):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    config = _config_reading_a_cache(tmp_path / 'cfg.py', root)
    monkeypatch.chdir(tmp_path)
    options = [osp.join(root, o) if o == 'elsewhere' else o for o in options]
    assert _run_tool([config, '--workers', '1', *options]) == 0
    cache_dir = osp.join(root, folder)
    assert sorted(os.listdir(cache_dir)) == [
        f'CLEVRChangeDataset_{s}.{e}' for s in ('train', 'val')
        for e in ('json', 'npy')]
    assert not osp.exists(osp.join(root, 'cache_224x224'))
    array = np.load(osp.join(cache_dir, 'CLEVRChangeDataset_train.npy'))
    assert array.shape == (12, *size, 3)
    with open(osp.join(cache_dir, 'CLEVRChangeDataset_train.json')) as f:
        assert json.load(f)['value_range'] == '0:255'  # the pipeline's
    out = capsys.readouterr().out
    assert f'CLEVRChangeDataset_val: {size[0]}x{size[1]} in {cache_dir}' in out
    if not options:  # what the pipeline reads: the loader hits the cache
        assert "pipeline's LoadImagePair" in out and 'use:' not in out
        from mmengine.config import Config
        from mmidc.registry import DATASETS
        dataset = DATASETS.build(Config.fromfile(config).val_dataloader.dataset)
        monkeypatch.setattr(
            'mmidc.datasets.transforms.load_image_pair.read_rgb',
            lambda path: pytest.fail(f'decoded {path}'))
        assert dataset[0]['img1'].shape == (*CONFIG_CACHE, 3)
    else:
        assert 'given' in out and 'use:' in out


def test_cache_target_reads_the_pipeline_unless_told():
    load = dict(type='LoadImagePair', cache_dir='{data_root}/c', cache_size=(4, 6))
    pipeline = [load, dict(type='ResizePair', size=(4, 6))]
    assert cache_target(pipeline, 'root')[:2] == ('root/c', (4, 6))
    assert cache_target([dict(load, type='mmidc.LoadImagePair')],
                        'root')[:2] == ('root/c', (4, 6))
    # a size of its own: not into the folder of the pipeline's size
    assert cache_target(pipeline, 'root', size=(8, 8))[:2] == (
        osp.join('root', 'cache_8x8'), (8, 8))
    assert cache_target(pipeline, 'root', size=[4, 6])[:2] == ('root/c', (4, 6))
    assert cache_target(pipeline, 'root', cache_dir='d')[:2] == ('d', (4, 6))
    # no cache in the pipeline: 224x224 in the default folder
    for plain in ([], [dict(type='LoadImagePair'), pipeline[1]]):
        assert cache_target(plain, 'root')[:2] == (
            osp.join('root', 'cache_224x224'), (224, 224))


def test_the_tiny_synthetic_config_names_its_96x144_cache():
    from mmengine.config import Config
    cfg = Config.fromfile(str(
        REPO / 'configs/clip4idc/clip4idc-caption_tiny-clip_synthetic-'
        'clevr-change.py'))
    for key in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        folder, size, _ = cache_target(cfg[key].dataset.pipeline, 'data/x')
        assert (folder, size) == ('data/x/cache_96x144', (96, 144))


def test_tool_argument_errors(tmp_path, capsys):
    with pytest.raises(SystemExit):
        _run_tool(['--data-root', 'x'])  # neither config nor type
    with pytest.raises(SystemExit):
        _run_tool(['--dataset-type', 'CLEVRChangeDataset', '--data-root', 'x',
                   '--size', '0', '224'])
    assert '--size: H and W must be > 0, got 0 224' in capsys.readouterr().err
    # your own pairs are one file a split, which --splits cannot name
    root = str(tmp_path / 'pairs')
    make_my_pairs_tree(root)
    with pytest.raises(SystemExit, match='ImagePairDataset takes no split.*CONFIG'):
        _run_tool(['--dataset-type', 'ImagePairDataset', '--data-root', root])


def test_child_config_data_root_moves_the_cache(tmp_path, monkeypatch):
    """The base's '{data_root}/cache_96x144' is resolved with the data_root a
    child config sets on its loader, not the base's own data_root."""
    from mmengine.config import Config
    from mmidc.registry import DATASETS
    root = str(tmp_path / 'my_clevr')
    make_clevr_change_tree(root)
    assert _run_tool(['--dataset-type', 'CLEVRChangeDataset', '--data-root',
                      root, '--splits', 'train', '--size', '96', '144']) == 0
    base = str(REPO / 'configs/_base_/datasets/synthetic_clevr_change_96x144.py')
    child = tmp_path / 'child.py'
    child.write_text(f'_base_ = [{base!r}]\ndata_root = {root!r}\n'
                     'train_dataloader = dict(dataset=dict(data_root=data_root))\n')
    dataset = DATASETS.build(Config.fromfile(str(child)).train_dataloader.dataset)
    monkeypatch.setattr('mmidc.datasets.transforms.load_image_pair.read_rgb',
                        lambda path: pytest.fail(f'decoded {path}'))
    sample = dataset[0]
    assert sample['inputs'].shape == (2, 3, 96, 144)
    load = dataset.pipeline.transforms[0]
    assert load.cache.cache_dir == osp.join(root, 'cache_96x144')


def test_data_root_template_without_a_data_root_decodes(cached_clevr,
                                                        monkeypatch):
    root, _ = cached_clevr
    logged = _warnings(monkeypatch)
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_size=SIZE,
                                 cache_dir='{data_root}/cache_24x20'))
    pair = dict(img1_path=osp.join(root, 'images/CLEVR_default_000001.png'),
                img2_path=osp.join(root, 'images/CLEVR_default_000002.png'))
    assert load(dict(pair))['img1'].shape == (32, 48, 3)  # no data root
    assert load(dict(pair, data_root=root))['img1'].shape == (*SIZE, 3)
    # a data root without a cache folder: decoded, logged as info once
    other = dict(pair, data_root=osp.join(root, 'images'))
    assert load(other)['img1'].shape == (32, 48, 3)
    assert logged == [] or 'no such folder' in logged[-1]


def _images(root):
    return sorted(osp.join(root, 'images', f)
                  for f in os.listdir(osp.join(root, 'images')))


def test_two_builds_of_one_shard_at_once(tmp_path, monkeypatch):
    """Two experiments that start together build the same shard: the one
    that starts first and finishes last must not find its file replaced."""
    import threading
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    cache_dir = osp.join(root, 'cache')
    images = _images(root)
    fill = pair_image_cache._fill_rows
    first_started, second_done = threading.Event(), threading.Event()
    main = threading.current_thread()

    def slow_first(task):
        if threading.current_thread() is not main:
            first_started.set()  # its partial file exists
            second_done.wait(60)  # the first build waits for the second
        return fill(task)

    monkeypatch.setattr(pair_image_cache, '_fill_rows', slow_first)
    errors = []

    def build():
        try:
            pair_image_cache.build_pair_image_cache(
                images, root, cache_dir, SIZE, 'train', workers=1)
        except Exception as err:  # noqa: BLE001 (reported below)
            errors.append(err)

    worker = threading.Thread(target=build)
    worker.start()
    assert first_started.wait(60)
    pair_image_cache.build_pair_image_cache(
        images, root, cache_dir, SIZE, 'train', workers=1)
    second_done.set()
    worker.join(60)
    assert not errors
    assert sorted(os.listdir(cache_dir)) == ['train.json', 'train.npy']
    assert pair_image_cache.shard_is_current(images, root, cache_dir, SIZE,
                                             'train')


def test_a_failed_build_leaves_no_partial_file(tmp_path, monkeypatch):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    cache_dir = osp.join(root, 'cache')

    def broken(task):
        raise OSError('disk full')

    monkeypatch.setattr(pair_image_cache, '_fill_rows', broken)
    with pytest.raises(OSError, match='disk full'):
        pair_image_cache.build_pair_image_cache(
            _images(root), root, cache_dir, SIZE, 'train', workers=1)
    assert os.listdir(cache_dir) == []


def _clevr_pair(root):
    return dict(img1_path=osp.join(root, 'images/CLEVR_default_000001.png'),
                img2_path=osp.join(root, 'images/CLEVR_default_000002.png'))


def test_a_damaged_shard_is_named_decoded_around_and_rebuilt(tmp_path,
                                                             monkeypatch):
    """A cut array (``mmap length is greater than file size``) or a cut
    index: the shard is named, the originals decoded, a build rebuilds it
    (also ``use_image_cache``, which ``tools/train.py --image-cache``
    calls)."""
    from mmengine.config import Config
    from mmidc.runtime.loader_setup import (dataset_image_paths,
                                            use_image_cache)
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    dataset = dict(type='CLEVRChangeDataset', data_root=root, split='train',
                   pipeline=_pipeline())
    cfg = Config(dict(train_dataloader=dict(dataset=dataset)))
    cache_dir = osp.join(root, 'cache_24x20')
    assert use_image_cache(cfg, workers=1) == [('train_dataloader', cache_dir)]
    shard = osp.join(cache_dir, 'CLEVRChangeDataset_train')
    with open(shard + '.npy', 'r+b') as f:  # a copy cut short
        f.truncate(os.path.getsize(shard + '.npy') // 2)
    logged = _warnings(monkeypatch)
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    pair = _clevr_pair(root)
    assert load(dict(pair))['img1'].shape == (32, 48, 3)  # decoded
    assert len(logged) == 1
    assert f'damaged shard {shard}.json' in logged[0]
    assert f'{shard}.npy does not load' in logged[0]
    paths, _ = dataset_image_paths(dataset)
    assert not pair_image_cache.shard_is_current(
        paths, root, cache_dir, SIZE, 'CLEVRChangeDataset_train')
    # the next run's --image-cache rebuilds it
    assert use_image_cache(cfg, workers=1) == [('train_dataloader', cache_dir)]
    assert any(f'{shard}.json is damaged' in m and 'rebuilding' in m
               for m in logged)
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    assert load(dict(pair))['img1'].shape == (*SIZE, 3)  # from the cache

    with open(shard + '.json', 'r+b') as f:  # the index cut
        f.truncate(40)
    del logged[:]
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    assert load(dict(pair))['img1'].shape == (32, 48, 3)
    assert f'damaged shard {shard}.json: the index does not parse' in logged[0]
    assert use_image_cache(cfg, workers=1) == [('train_dataloader', cache_dir)]
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    assert load(dict(pair))['img1'].shape == (*SIZE, 3)


def test_the_cache_stores_photos_upright(tmp_path, monkeypatch):
    """A photo stored sideways (EXIF orientation 6) is cached upright, the
    pixels resizing the upright photo gives; a shard of the older format
    (written without the orientation) is named and not read."""
    from mmidc.datasets.image_io import resize_rgb
    from tests.helpers.exif_images import oriented_bytes, upright_picture
    root = str(tmp_path / 'photos')
    os.makedirs(osp.join(root, 'images'))
    upright = upright_picture(48, 80)
    path = osp.join(root, 'images', 'phone.png')
    with open(path, 'wb') as f:
        f.write(oriented_bytes(upright, 6))
    cache_dir = osp.join(root, 'cache')
    size = (12, 20)
    pair_image_cache.build_pair_image_cache([path], root, cache_dir, size,
                                            'train', workers=1)
    cache = pair_image_cache.PairImageCache(cache_dir, size)
    np.testing.assert_array_equal(cache.get(path), resize_rgb(upright, size))
    index_path = osp.join(cache_dir, 'train.json')
    with open(index_path) as f:
        index = json.load(f)
    with open(index_path, 'w') as f:
        json.dump(dict(index, format='mmidc-image-cache-v1'), f)
    logged = _warnings(monkeypatch)
    assert pair_image_cache.PairImageCache(cache_dir, size).get(path) is None
    assert "older format 'mmidc-image-cache-v1'" in logged[0]
    assert not pair_image_cache.shard_is_current([path], root, cache_dir,
                                                 size, 'train')


def test_the_two_forms_of_the_tool_share_one_cache(tmp_path, monkeypatch):
    """Built by --dataset-type, the cache is current for the config form (and
    --image-cache): nothing is built twice. When it goes stale, the shards
    the config form rebuilds are read, not the stale ones of the first."""
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root)
    cache_dir = osp.join(root, 'cache_24x20')
    assert _run_tool(['--dataset-type', 'CLEVRChangeDataset', '--data-root', root,
                      '--splits', 'train', 'val', '--size', *map(str, SIZE),
                      '--workers', '1']) == 0
    first = sorted(os.listdir(cache_dir))
    # <data_root>/cache_24x20: the folder the --dataset-type form builds at SIZE
    config = _config_reading_a_cache(tmp_path / 'cfg.py', root, SIZE, '')
    assert _run_tool([config, '--workers', '1']) == 0
    assert sorted(os.listdir(cache_dir)) == first  # kept, not built again

    for name in os.listdir(osp.join(root, 'images')):  # the sources changed
        os.utime(osp.join(root, 'images', name), ns=(1, 1))
    assert _run_tool([config, '--workers', '1']) == 0  # rebuilt
    logged = _warnings(monkeypatch)
    from mmengine.config import Config
    from mmidc.registry import DATASETS
    dataset = DATASETS.build(Config.fromfile(config).val_dataloader.dataset)
    monkeypatch.setattr('mmidc.datasets.transforms.load_image_pair.read_rgb',
                        lambda path: pytest.fail(f'decoded {path}'))
    assert dataset[0]['img1'].shape == (*SIZE, 3)
    assert not logged


def test_images_outside_the_data_root_are_cached(tmp_path, monkeypatch):
    """Your own pairs may name their images by absolute paths elsewhere: the
    cache (and --image-cache) holds them too."""
    images = str(tmp_path / 'elsewhere')
    make_clevr_change_tree(images)
    root = str(tmp_path / 'pairs')
    os.makedirs(root)
    paths = [osp.join(images, 'images', f'CLEVR_default_00000{k}.png') for k in range(2)]
    cache_dir = osp.join(root, 'cache_24x20')
    pair_image_cache.build_pair_image_cache(paths, root, cache_dir, SIZE, 'train',
                                            workers=1)
    assert pair_image_cache.shard_is_current(paths, root, cache_dir, SIZE, 'train')
    load = TRANSFORMS.build(dict(type='LoadImagePair', cache_dir=cache_dir,
                                 cache_size=SIZE))
    monkeypatch.setattr('mmidc.datasets.transforms.load_image_pair.read_rgb',
                        lambda path: pytest.fail(f'decoded {path}'))
    assert load(dict(img1_path=paths[0], img2_path=paths[1]))['img1'].shape == (*SIZE, 3)
