"""The RSICC lineage's remote-sensing protocol (``'rs_ids'``)."""
import copy
import logging
import os
import os.path as osp
from typing import List, Optional, Sequence, Tuple, Union

from mmengine.logging import print_log

from mmidc.registry import SCORING_PROTOCOLS
from mmidc.text.text_files import load_json
from .base_protocol import ScoringProtocol, Tokens
from .rs_vocab import SPECIAL_WORDS, RSWordVocab, check_vocab_options

#: Above this share of ``<UNK>`` words in the scored references a warning
#: says the vocabulary is not the references' (as the training vocabulary
#: check warns).
MAX_UNKNOWN_SHARE = 0.05


def token_folder_captions(folder: str) -> List[str]:
    """The captions of a folder of Chg2Cap / Change-Agent token files
    (``tokens/<pair>.txt``, each a JSON list of token lists with
    ``<START>`` and ``<END>``), every file of the folder, as sentences."""
    names = sorted(n for n in os.listdir(folder) if n.endswith('.txt'))
    if not names:
        raise ValueError(f'{folder}: a folder of token files holds '
                         '<pair>.txt files; none found')
    captions = []
    for name in names:
        path = osp.join(folder, name)
        token_lists = load_json(path)
        if not isinstance(token_lists, list) or not all(
                isinstance(t, list) for t in token_lists):
            raise ValueError(f'{path}: a token file is a JSON list of token '
                             'lists')
        captions += [' '.join(w for w in tokens if w not in SPECIAL_WORDS)
                     for tokens in token_lists]
    return captions


def annotation_captions(path: str, field: str = 'raw') -> List[str]:
    """Every caption of a remote-sensing annotation file, every split: the
    ``raw`` sentences of a Karpathy-style JSON (``{"images": [{"sentences":
    [{"raw": ...}]}]}``: LEVIR-CC's ``LevirCCcaptions.json``, LEVIR-MCI,
    Dubai-CC's ``description_jsontr_te_val/*.json``...), or the sentences
    of a folder of token files (:func:`token_folder_captions`). No image is
    read.

    Args:
        path (str): The annotation file (or token folder).
        field (str): ``'raw'`` (the sentence, as Chg2Cap counts it) or
            ``'tokens'`` (the sentence's token list joined by spaces, as
            RSICC's ``create_input_files.py`` counts it).

    Raises:
        ValueError: the file is not of that form (naming it and the key).
    """
    if osp.isdir(path):
        return token_folder_captions(path)
    data = load_json(path)
    images = data.get('images') if isinstance(data, dict) else None
    if not isinstance(images, list):
        raise ValueError(f'{path}: the vocabulary counts the captions of a '
                         'Karpathy-style file, {"images": [{"sentences": '
                         '[{"raw": ...}]}]}; this file has no "images" list')
    captions = []
    for i, image in enumerate(images):
        sentences = image.get('sentences') if isinstance(image, dict) else None
        if not isinstance(sentences, list):
            raise ValueError(f'{path}: images[{i}] has no "sentences" list')
        for j, sentence in enumerate(sentences):
            text = sentence.get(field) if isinstance(sentence, dict) else None
            if field == 'tokens' and isinstance(text, list) and all(
                    isinstance(t, str) for t in text):
                text = ' '.join(text)
            if not isinstance(text, str):
                raise ValueError(f'{path}: images[{i}].sentences[{j}] has no '
                                 f'"{field}" ' + ('list of strings' if field
                                                  == 'tokens' else 'string'))
            captions.append(text)
    return captions


def dataset_entries(cfg: dict) -> List[dict]:
    """The entries (``pair_id``, ``gt_captions``, ``change_type`` ...) of a
    data set config, read from its annotations only where the reader can
    (``parse_annotations``: no image is looked for), else from the built
    data set."""
    from mmidc.registry import DATASETS
    cfg = copy.deepcopy(dict(cfg))
    cfg.update(pipeline=[], lazy_init=True)
    dataset = DATASETS.build(cfg)
    if hasattr(dataset, 'parse_annotations'):
        return list(dataset.parse_annotations())
    dataset.full_init()
    return [dataset.get_data_info(i) for i in range(len(dataset))]


def dataset_captions(configs: Sequence[dict]) -> List[str]:
    """The captions of data set configs (:func:`dataset_entries`)."""
    return [caption for cfg in configs for entry in dataset_entries(cfg)
            for caption in entry['gt_captions']]


@SCORING_PROTOCOLS.register_module()
class RSIdsProtocol(ScoringProtocol):
    """``'rs_ids'`` (Chen-Yang-Liu/RSICC ``eval.py``, ShizhenChang/Chg2Cap
    ``test.py``, Change3D): every sentence written as a string of word ids
    of a vocabulary, any word outside it ``<UNK>`` (one id that matches
    every other unknown word); METEOR then matches ids exactly. Words as
    Chg2Cap's ``tokenize`` splits them (``","`` and ``";"`` are words,
    ``"."`` and ``"?"`` dropped).

    The vocabulary, read at the first scoring, is ``word_map`` if given,
    else the words of the captions of ``vocab_ann_file`` (every split, as
    RSICC's ``create_input_files.py`` and Chg2Cap's ``preprocess_data.py``
    count them) and ``vocab_datasets`` kept by ``min_word_freq`` and
    ``word_freq_rule``. One with no caption word is refused (any caption
    would score 100); more than :data:`MAX_UNKNOWN_SHARE` ``<UNK>`` words
    among the references is a warning with the share.

    Args:
        min_word_freq (int, optional): The count threshold (5 in RSICC and
            Chg2Cap on LEVIR-CC, 0 in Chg2Cap on Dubai-CC).
        word_freq_rule (str, optional): ``'>'`` (RSICC, Change3D) or
            ``'>='`` (Chg2Cap); no default, the papers differ.
        vocab_ann_file (str | Sequence[str], optional): Annotation file(s)
            whose captions are counted, or folders of Chg2Cap-style token
            files (:func:`annotation_captions`).
        vocab_datasets (dict | Sequence[dict], optional): Data set configs
            whose captions are counted (their annotations are read; no
            image is needed where the reader parses annotations on their
            own, as every mmidc reader but NABirds').
        word_map (str | dict, optional): A ``{word: id}`` JSON file or dict
            (RSICC's ``WORDMAP_*.json``, Chg2Cap's ``vocab.json``): score
            with exactly those ids.
        vocab_field (str): What ``vocab_ann_file`` counts of each sentence:
            ``'raw'`` (Chg2Cap) or ``'tokens'`` (RSICC). Defaults to
            ``'raw'``.
        lowercase (bool): Lowercase the words first. RSICC counts the
            lowercased ``tokens``; Chg2Cap keeps the case (Dubai-CC's
            ``vocab.json`` holds ``A`` and ``a``): ``False``. Defaults to
            True.
        no_change_sentences (str | Sequence[str], optional): See
            :class:`ScoringProtocol`. Defaults to ``'levir_cc'``.
    """

    name = 'rs_ids'
    default_no_change = 'levir_cc'

    def __init__(self,
                 min_word_freq: Optional[int] = None,
                 word_freq_rule: Optional[str] = None,
                 vocab_ann_file: Union[str, Sequence[str], None] = None,
                 vocab_datasets: Union[dict, Sequence[dict], None] = None,
                 word_map: Union[str, dict, None] = None,
                 vocab_field: str = 'raw',
                 lowercase: bool = True,
                 vocab: Optional[RSWordVocab] = None,
                 no_change_sentences=...):
        super().__init__(no_change_sentences)
        if isinstance(vocab_ann_file, str):
            vocab_ann_file = [vocab_ann_file]
        if isinstance(vocab_datasets, dict):
            vocab_datasets = [vocab_datasets]
        if word_map is None and vocab is None:
            check_vocab_options(min_word_freq, word_freq_rule)
            if not vocab_ann_file and not vocab_datasets:
                raise ValueError(
                    "tokenizer='rs_ids' needs the captions its vocabulary "
                    'counts: vocab_ann_file (the annotation file, every '
                    'split, e.g. data_root + "/LevirCCcaptions.json") or '
                    'vocab_datasets (data set configs, e.g. '
                    'vocab_datasets={{_base_.train_dataloader.dataset}}), '
                    'or word_map (a paper\'s vocab.json)')
            if vocab_datasets and not all(isinstance(d, dict)
                                          for d in vocab_datasets):
                raise ValueError('rs_ids: vocab_datasets must be data set '
                                 f'config dicts, got {vocab_datasets!r}')
        self.min_word_freq = min_word_freq
        self.word_freq_rule = word_freq_rule
        self.vocab_ann_file = list(vocab_ann_file or [])
        self.vocab_datasets = list(vocab_datasets or [])
        if vocab_field not in ('raw', 'tokens'):
            raise ValueError("rs_ids: vocab_field is 'raw' or 'tokens', got "
                             f'{vocab_field!r}')
        self.word_map = word_map
        self.vocab_field = vocab_field
        self.lowercase = lowercase
        self.vocab = vocab

    def prepare(self) -> None:
        if self.vocab is None:
            self.vocab = self.build_vocab()
        check_vocab(self.vocab, self._options())

    def _options(self) -> str:
        if self.word_map is not None:
            return 'word_map'
        if self.min_word_freq is None:
            return 'the given vocab'
        return (f'min_word_freq={self.min_word_freq}, word_freq_rule='
                f'{self.word_freq_rule!r}')

    def build_vocab(self) -> RSWordVocab:
        """The vocabulary (see the class), logged with its size."""
        if self.word_map is not None:
            word_map = self.word_map
            source = 'the given word map'
            if isinstance(word_map, str):
                source = word_map
                word_map = load_json(word_map)
            if not isinstance(word_map, dict) or not all(
                    isinstance(v, int) for v in word_map.values()):
                raise ValueError(f'rs_ids word_map {source}: must be a '
                                 '{word: id} object')
            vocab = RSWordVocab.from_word_map(word_map, self.lowercase)
            print_log(f"'rs_ids' vocabulary: {len(vocab)} words of "
                      f'{source}', logger='current')
            return vocab
        captions = []
        for path in self.vocab_ann_file:
            captions += annotation_captions(path, self.vocab_field)
        captions += dataset_captions(self.vocab_datasets)
        vocab = RSWordVocab(captions, self.min_word_freq,
                            self.word_freq_rule, self.lowercase)
        sources = ', '.join(self.vocab_ann_file +
                            [f'{len(self.vocab_datasets)} data set(s)']
                            * bool(self.vocab_datasets))
        print_log(f"'rs_ids' vocabulary of {len(vocab)} words (with 4 "
                  f'special ones): the words of {len(captions)} captions '
                  f'({sources}) seen {self.word_freq_rule} '
                  f'{self.min_word_freq} times', logger='current')
        return vocab

    def encode(self, sentence: str) -> str:
        return self.vocab.encode(sentence)

    def tokenize(self, records: Sequence[dict], java: Optional[str] = None,
                 timeout: float = 600.) -> Tuple[Tokens, Tokens]:
        gts, res = super().tokenize(records, java, timeout)
        share = self.vocab.unknown_share(
            c for r in records for c in r['references'])
        if share > MAX_UNKNOWN_SHARE:
            print_log(f"'rs_ids': {100 * share:.1f} % of the reference "
                      'words are <UNK> (outside the vocabulary, '
                      f'{self._options()}): every <UNK> matches every other, '
                      'so the scores are inflated; count the captions of the '
                      'annotation file these references come from',
                      logger='current', level=logging.WARNING)
        return gts, res


def check_vocab(vocab: RSWordVocab, options: str) -> None:
    """Refuse a vocabulary without a caption word (naming ``options``)."""
    if vocab.num_caption_words == 0:
        raise ValueError(
            f"'rs_ids' vocabulary has no caption word ({options}): every "
            'word would be <UNK> and any caption would score 100 against '
            'any reference; lower min_word_freq (--min-word-freq) or count '
            'more captions')
