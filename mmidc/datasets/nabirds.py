"""NABirds, as distributed, turned into image pairs for IDC-PCL's cross-task
pre-training."""
import os.path as osp
import random
from collections import defaultdict
from typing import Dict, List, Sequence

from mmengine.dataset import BaseDataset
from mmengine.logging import print_log

from mmidc.registry import DATASETS
from .image_pair_dataset import check_images_exist

__all__ = ['NABirdsPairDataset']

SPLITS = ('train', 'test')


def _read_rows(path: str, min_fields: int) -> List[List[str]]:
    """The whitespace-separated rows of one of NABirds' list files (blank
    lines skipped), each with at least ``min_fields`` fields."""
    if not osp.isfile(path):
        raise FileNotFoundError(f'NABirds list file not found: {path}')
    rows = []
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            fields = line.strip().split(maxsplit=min_fields - 1)
            if len(fields) < min_fields:
                raise ValueError(f'{path}: line {number} has {len(fields)} '
                                 f'field(s), expected {min_fields}: '
                                 f'{line.strip()!r}')
            rows.append(fields)
    return rows


@DATASETS.register_module()
class NABirdsPairDataset(BaseDataset):
    """Pairs of NABirds photos with their species, for the cross-task stage
    of IDC-PCL's Birds-to-Words pre-training (classification, pair matching
    and class contrast, :class:`IDCPCLCrossTaskPretrainer`).

    Reads NABirds in its distributed layout under ``data_root``:

    - ``images.txt``: ``<image id> <path under images/>``;
    - ``image_class_labels.txt``: ``<image id> <class id>``;
    - ``classes.txt``: ``<class id> <class name>``;
    - ``train_test_split.txt``: ``<image id> <1 = train, 0 = test>``;
    - ``images/<path>``: the photos.

    Each image of the split is the first image of ``pairs_per_image``
    pairs; its partner is another photo of the same class with probability
    ``same_class_prob`` (label 1) and of another class otherwise (label 0),
    drawn once with ``seed``. Classes are numbered ``0 .. C - 1`` in the
    order of ``classes.txt``, keeping only classes that label an image (the
    ``classes`` metainfo). Samples carry ``pair_id``, ``class_labels``
    (``[c1, c2]``), ``same_class`` (0 / 1), an empty ``gt_captions`` and
    ``change_type='unknown'``, the keys :class:`PackIDCInputs` needs.

    Args:
        data_root (str): The NABirds folder.
        split (str): ``'train'`` or ``'test'``. Defaults to ``'train'``.
        pairs_per_image (int): Pairs each image starts. Defaults to 1.
        same_class_prob (float): Share of same-class pairs. Defaults to 0.5.
        seed (int): Seed of the partner draw. Defaults to 0.
        pipeline (Sequence): Transforms. Defaults to none.
        **kwargs: Other :class:`mmengine.dataset.BaseDataset` arguments.
    """

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 pairs_per_image: int = 1,
                 same_class_prob: float = 0.5,
                 seed: int = 0,
                 pipeline: Sequence = (),
                 **kwargs):
        if split not in SPLITS:
            raise ValueError(f'NABirdsPairDataset: split={split!r}, expected '
                             f'one of {SPLITS}')
        if pairs_per_image < 1:
            raise ValueError(f'pairs_per_image must be >= 1, got {pairs_per_image}')
        if not 0.0 <= same_class_prob <= 1.0:
            raise ValueError(f'same_class_prob must be in [0, 1], got '
                             f'{same_class_prob}')
        self.split = split
        self.pairs_per_image = pairs_per_image
        self.same_class_prob = same_class_prob
        self.seed = seed
        super().__init__(data_root=data_root, pipeline=list(pipeline), **kwargs)

    def load_data_list(self) -> List[dict]:
        root = self.data_root
        images = dict(_read_rows(osp.join(root, 'images.txt'), 2))
        labels_file = osp.join(root, 'image_class_labels.txt')
        labels = dict(_read_rows(labels_file, 2))
        classes_file = osp.join(root, 'classes.txt')
        classes = _read_rows(classes_file, 2)
        split_file = osp.join(root, 'train_test_split.txt')
        is_train = dict(_read_rows(split_file, 2))
        for image_id in images:
            for name, table in ((labels_file, labels), (split_file, is_train)):
                if image_id not in table:
                    raise ValueError(f'{name}: no entry for image {image_id} '
                                     f'of {osp.join(root, "images.txt")}')
        used = set(labels.values())
        unknown = used - {c for c, _ in classes}
        if unknown:
            raise ValueError(f'{labels_file}: class ids {sorted(unknown)[:5]} '
                             f'are not in {classes_file}')
        kept = [(c, name.strip()) for c, name in classes if c in used]
        index = {c: i for i, (c, _) in enumerate(kept)}
        self._metainfo['classes'] = tuple(name for _, name in kept)
        wanted = '1' if self.split == 'train' else '0'
        chosen = [i for i in images if is_train[i].strip() == wanted]
        if not chosen:
            raise ValueError(f'{split_file}: no image in the {self.split} split')
        by_class: Dict[int, List[str]] = defaultdict(list)
        for i in chosen:
            by_class[index[labels[i]]].append(i)
        paths = {i: osp.join(root, 'images', images[i].strip()) for i in chosen}
        check_images_exist(list(paths.values()), osp.join(root, 'images.txt'))
        rng = random.Random(self.seed)
        class_ids = sorted(by_class)
        data_list = []
        for i in chosen:
            c1 = index[labels[i]]
            for k in range(self.pairs_per_image):
                same = (rng.random() < self.same_class_prob
                        and len(by_class[c1]) > 1) or len(class_ids) == 1
                if same:
                    partner = rng.choice([j for j in by_class[c1] if j != i]
                                         or by_class[c1])
                else:
                    c2 = rng.choice([c for c in class_ids if c != c1])
                    partner = rng.choice(by_class[c2])
                c2 = index[labels[partner]]
                data_list.append(dict(
                    img1_path=paths[i], img2_path=paths[partner],
                    pair_id=f'{i}_{partner}_{k}', class_labels=[c1, c2],
                    same_class=int(c1 == c2), gt_captions=[],
                    change_type='unknown'))
        print_log(f'NABirds {self.split}: {len(data_list)} pairs of '
                  f'{len(chosen)} images, {len(class_ids)} classes',
                  logger='current')
        return data_list

    def get_data_info(self, idx: int) -> dict:
        """The entry of pair ``idx`` with the ``data_root`` (for
        ``LoadImagePair``'s cache)."""
        info = super().get_data_info(idx)
        info['data_root'] = self.data_root
        return info

    @property
    def num_classes(self) -> int:
        return len(self.metainfo['classes'])
