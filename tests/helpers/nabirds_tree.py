"""A tiny NABirds tree in the distributed layout."""
import os
import os.path as osp
from typing import Dict, Sequence, Tuple

from tests.helpers.pair_trees import scene_image

#: class id (sparse, as NABirds' are) -> name; 999 labels no image
CLASSES = {295: 'Common Loon', 313: 'Northern Cardinal',
           446: 'Blue Jay (Adult)', 999: 'Unused Parent Class'}


def make_nabirds_tree(root: str, per_class: int = 4,
                      classes: Dict[int, str] = CLASSES,
                      labelled: Sequence[int] = (295, 313, 446),
                      size: Tuple[int, int] = (48, 32)) -> dict:
    """Write ``images.txt``, ``image_class_labels.txt``, ``classes.txt``,
    ``train_test_split.txt`` and ``images/<class folder>/<image id>.jpg``:
    ``per_class`` photos of each class of ``labelled``, every fourth one in
    the test split. Returns ``{image id: (class id, is_train)}``."""
    os.makedirs(osp.join(root, 'images'), exist_ok=True)
    table = {}
    lines = dict(images=[], labels=[], split=[])
    n = 0
    for class_id in labelled:
        folder = f'{class_id:04d}'
        os.makedirs(osp.join(root, 'images', folder), exist_ok=True)
        for k in range(per_class):
            n += 1
            image_id = f'{n:08x}-0000-4000-8000-{class_id:012d}'  # uuid-like
            name = f'{folder}/{image_id.replace("-", "")}.jpg'
            scene_image(size, seed=class_id * 100 + k, mode='RGB').save(
                osp.join(root, 'images', name))
            is_train = int(k % 4 != 3)
            table[image_id] = (class_id, is_train)
            lines['images'].append(f'{image_id} {name}')
            lines['labels'].append(f'{image_id} {class_id}')
            lines['split'].append(f'{image_id} {is_train}')
    with open(osp.join(root, 'classes.txt'), 'w') as f:
        f.write(''.join(f'{c} {name}\n' for c, name in classes.items()))
    for key, file in (('images', 'images.txt'), ('labels', 'image_class_labels.txt'),
                      ('split', 'train_test_split.txt')):
        with open(osp.join(root, file), 'w') as f:
            f.write('\n'.join(lines[key]) + '\n')
    return table
