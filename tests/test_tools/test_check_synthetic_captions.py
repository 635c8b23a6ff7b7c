"""tools/analysis_tools/check_synthetic_captions.py on a tiny generated set."""
import json
import os.path as osp

import pytest

from mmidc.datasets.synthetic import generate_dataset
from tests.helpers import load_tool as _load_tool


def load_tool():
    return _load_tool('tools/analysis_tools/check_synthetic_captions.py')


def test_references_are_true_and_wrong_captions_are_caught(tmp_path, capsys):
    root = str(tmp_path / 'synth')
    generate_dataset(root, 6, seed=5, image_size=(48, 32), progress=False)
    with open(osp.join(root, 'change_captions.json')) as f:
        captions = json.load(f)
    with open(osp.join(root, 'type_mapping.json')) as f:
        types = {name: t for t, names in json.load(f).items() for name in names}
    records = []
    for image, refs in captions.items():
        pair_id = image.split('_')[-1]  # '000003.png'
        change_type = types[pair_id]
        # a reference (true), the same with another change type's sentence
        # form (wrong type), a no-change sentence for the change, and the
        # distractor's no-change sentence (true)
        records.append(dict(pair_id=pair_id, prediction=refs[0],
                            change_type=change_type))
        wrong = ('the scene remains the same' if change_type != 'drop'
                 else 'a large red rubber cube has been added')
        records.append(dict(pair_id=pair_id, prediction=wrong,
                            change_type=change_type))
        records.append(dict(pair_id=pair_id + '_n',
                            prediction='there is no change',
                            change_type='none'))
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps(records))
    stats = load_tool().main([str(path), '--data-root', root, '--show', '1'])
    out = capsys.readouterr().out
    change = {t: s for t, s in stats.items() if t != 'none'}
    assert sum(s['pairs'] for s in change.values()) == 12
    # exactly the references are true, and only they have the right type
    assert sum(s['true'] for s in change.values()) == 6
    assert sum(s['right_type'] for s in change.values()) == 6
    assert stats['none'] == dict(pairs=6, true=6, right_type=6, false=[])
    assert '\ntotal         18  66.7%      66.7%' in out
    assert 'no known sentence form' in out or 'sentence form of' in out


def test_a_wrong_data_root_names_the_missing_scene(tmp_path):
    path = tmp_path / 'predictions.json'
    path.write_text(json.dumps([dict(pair_id='000001.png', prediction='x',
                                     change_type='add')]))
    with pytest.raises(FileNotFoundError, match='CLEVR_default_000001.json'):
        load_tool().main([str(path), '--data-root', str(tmp_path)])
