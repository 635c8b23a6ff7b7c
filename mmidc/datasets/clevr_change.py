"""CLEVR-Change (Park et al., 2019), read exactly as distributed."""
import os.path as osp
from typing import Dict, List

from mmidc.registry import DATASETS
from .annotation_checks import caption_list, has_words, load_json
from .image_pair_dataset import ImagePairDataset, check_images_exist

#: The semantic change types named in ``type_mapping.json``.
CLEVR_CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move')


@DATASETS.register_module()
class CLEVRChangeDataset(ImagePairDataset):
    """CLEVR-Change: before / semantic-change / distractor renders.

    Layout of ``data_root``::

        images/CLEVR_default_NNNNNN.png       before
        sc_images/CLEVR_semantic_NNNNNN.png   after, semantic change
        nsc_images/CLEVR_nonsemantic_NNNNNN.png  after, distractor only
        change_captions.json     {"CLEVR_default_NNNNNN.png": [caption, ...]}
        no_change_captions.json  {"CLEVR_default_NNNNNN.png": [caption, ...]}
        splits.json              {"train": [int, ...], "val": [...], "test": [...]}
        type_mapping.json        {"color": ["NNNNNN.png", ...], "material": ...,
                                  "add": ..., "drop": ..., "move": ...}

    Each scene index of the split gives a change pair (``pair_id``
    ``NNNNNN.png``, type from ``type_mapping.json``) followed by a no-change
    pair (``NNNNNN.png_n``, type ``none``, after image from ``nsc_images/``),
    as in the evaluation convention.

    With ``with_distractor_path=True`` each change pair also carries
    ``distractor_path``, the scene's distractor render (``nsc_images/``), for
    :class:`~mmidc.datasets.transforms.RandomDistractorBefore`; those images
    are then checked at build time too.

    Errors raised at build time, each naming the file and key: an unknown
    split, a scene index with no caption entry, an empty caption list or a
    caption with no word (``"!!!"``: no letter or digit), a
    ``type_mapping.json`` entry that is malformed, not in any split or in two
    types, a scene of the split in no type, and a missing image.

    Args:
        data_root (str): The CLEVR-Change root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        with_no_change (bool): Keep the no-change (distractor) pairs. The
            adaptation stage drops them (False). Defaults to True.
        with_distractor_path (bool): Add ``distractor_path`` to the change
            pairs. Defaults to False.
        **kwargs: Other arguments of :class:`ImagePairDataset`
            (``pipeline``, ``lazy_init``, ``verify_images``, ...).
    """

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 with_no_change: bool = True,
                 with_distractor_path: bool = False,
                 **kwargs):
        self.set_split(split)
        self.with_no_change = with_no_change
        self.with_distractor_path = with_distractor_path
        super().__init__(ann_file='splits.json', data_root=data_root,
                         **kwargs)

    def annotation_source(self) -> str:
        return f'CLEVR-Change {self.data_root} ({self.split})'

    def parse_annotations(self) -> List[dict]:
        root = self.data_root
        splits_file = osp.join(root, 'splits.json')
        splits = self._load_splits(splits_file)
        if self.split not in splits:
            raise ValueError(f'{splits_file}: no key "{self.split}" (has: '
                             f'{", ".join(splits)})')
        if not splits[self.split]:
            raise ValueError(f'{splits_file}: split "{self.split}" is empty; '
                             'a data set needs at least one scene')
        change_file = osp.join(root, 'change_captions.json')
        no_change_file = osp.join(root, 'no_change_captions.json')
        change_captions = load_json(change_file)
        no_change_captions = (load_json(no_change_file)
                              if self.with_no_change else {})
        type_of = self._load_type_mapping(splits)

        images, sc_images, nsc_images = (osp.join(root, folder) for folder in
                                         ('images', 'sc_images', 'nsc_images'))
        data_list = []
        for name in splits[self.split]:
            key = f'CLEVR_default_{name}.png'
            if name not in type_of:
                raise ValueError(
                    f'{osp.join(root, "type_mapping.json")}: scene {name}.png '
                    f'of split "{self.split}" is in no change type')
            before = f'{images}/{key}'
            distractor = f'{nsc_images}/CLEVR_nonsemantic_{name}.png'
            change_pair = dict(
                img1_path=before,
                img2_path=f'{sc_images}/CLEVR_semantic_{name}.png',
                gt_captions=self._captions(change_captions, change_file, key),
                pair_id=f'{name}.png',
                change_type=type_of[name])
            if self.with_distractor_path:
                change_pair['distractor_path'] = distractor
            data_list.append(change_pair)
            if self.with_no_change:
                data_list.append(
                    dict(
                        img1_path=before,
                        img2_path=distractor,
                        gt_captions=self._captions(no_change_captions,
                                                   no_change_file, key),
                        pair_id=f'{name}.png_n',
                        change_type='none'))
        return data_list

    def validate_data_list(self, data_list: List[dict], source: str) -> None:
        """The common checks, and the distractor images when asked for."""
        super().validate_data_list(data_list, source)
        if self.with_distractor_path:
            check_images_exist(
                [e['distractor_path'] for e in data_list
                 if 'distractor_path' in e], source)

    def _captions(self, captions: dict, file: str, key: str) -> List[str]:
        if not isinstance(captions, dict):
            raise ValueError(f'{file}: expected an object {{"<image name>": '
                             f'[caption, ...]}}, got {type(captions).__name__}')
        if key not in captions:
            raise ValueError(f'{file}: no key "{key}" (a scene of split '
                             f'"{self.split}")')
        sentences = caption_list(captions[key], file, key)
        if not sentences:
            raise ValueError(f'{file}: key "{key}" has an empty caption list')
        for k, sentence in enumerate(sentences):
            if not has_words(sentence):
                raise ValueError(f'{file}: key "{key}" caption {k} '
                                 f'({sentence!r}) is empty or has no word (no '
                                 'letter or digit)')
        return sentences

    @staticmethod
    def _load_splits(file: str) -> Dict[str, List[str]]:
        """``splits.json`` with every scene index as a zero-padded name
        (``'000123'``)."""
        splits = load_json(file)
        if not isinstance(splits, dict):
            raise ValueError(f'{file}: expected an object {{"train": [int, '
                             f'...], ...}}, got {type(splits).__name__}')
        names = {}
        for split, indices in splits.items():
            if isinstance(indices, str) or not isinstance(indices, list):
                raise ValueError(f'{file}: key "{split}" must be a list of '
                                 f'scene indices, got '
                                 f'{type(indices).__name__} {indices!r:.60}')
            names[split] = []
            for k, index in enumerate(indices):
                if isinstance(index, bool) or not (
                        isinstance(index, int) or
                        (isinstance(index, str) and index.isdigit())):
                    raise ValueError(f'{file}: key "{split}" item {k} is '
                                     f'{index!r:.60}, not a scene index '
                                     '(an int)')
                names[split].append(f'{int(index):06d}')
        return names

    def _load_type_mapping(self, splits: dict) -> Dict[str, str]:
        """Map zero-padded scene names (``'000123'``) to change types."""
        file = osp.join(self.data_root, 'type_mapping.json')
        mapping = load_json(file)
        in_splits = {name for names in splits.values() for name in names}
        if not isinstance(mapping, dict):
            raise ValueError(f'{file}: expected an object {{"<change type>": '
                             f'["NNNNNN.png", ...]}}, got '
                             f'{type(mapping).__name__}')
        type_of = {}
        for change_type, names in mapping.items():
            if change_type not in CLEVR_CHANGE_TYPES:
                raise ValueError(f'{file}: unknown change type key '
                                 f'"{change_type}" (expected '
                                 f'{", ".join(CLEVR_CHANGE_TYPES)})')
            if isinstance(names, str) or not isinstance(names, list):
                raise ValueError(f'{file}: key "{change_type}" must be a '
                                 f'list of scene file names, got '
                                 f'{type(names).__name__} {names!r:.60}')
            for entry in names:
                stem, ext = osp.splitext(str(entry))
                if ext != '.png' or not stem.isdigit():
                    raise ValueError(f'{file}: "{change_type}" names '
                                     f'"{entry}", not a scene file name '
                                     f'like 000123.png')
                name = f'{int(stem):06d}'
                if name not in in_splits:
                    raise ValueError(f'{file}: "{change_type}" names '
                                     f'"{entry}", a scene in no split of '
                                     f'splits.json')
                if name in type_of:
                    raise ValueError(f'{file}: "{entry}" is in both '
                                     f'"{type_of[name]}" and '
                                     f'"{change_type}"')
                type_of[name] = change_type
        return type_of
