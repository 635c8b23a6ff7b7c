"""A Java-free stand-in for coco-caption's PTB tokenizer.

coco-caption tokenises every sentence with Stanford CoreNLP's PTBTokenizer
(``-preserveLines -lowerCase``, a JVM) and then drops the punctuation tokens
of ``PUNCTUATIONS``. :class:`PythonPTBTokenizer` reproduces that for ordinary
English with regular expressions:

- lower case; ``"``, `````, ``'`` quote marks dropped;
- clitics split off as PTB does: ``isn't`` -> ``is n't``, ``can't`` ->
  ``ca n't``, ``cube's`` -> ``cube 's`` (also ``'re 've 'll 'd 'm``), and
  ``cannot gonna wanna gotta`` -> ``can not gon na wan na got ta``;
- punctuation split from words and dropped when coco-caption drops it
  (``. , ; : ? ! - -- ...``); ``?!`` and other runs of ``?``/``!`` stay one
  token, as in PTB;
- ``( ) [ ] { }`` become ``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-`` and are kept
  (coco-caption's list has them in upper case, so PTB's lower-cased ones
  survive: this keeps that quirk);
- words keep inner hyphens, slashes, periods and apostrophes
  (``well-known``, ``cars/trucks``, ``done.then``, ``o'clock``); numbers
  keep their separators (``3.5``, ``1,000``); ``$ % # &`` are split off and
  kept; acronyms (``u.s.``, ``e.g.``) and a short list of abbreviations
  (``mr.``, ``dr.``, ``etc.``...) keep their period.

Known differences from PTB: abbreviations not in the list lose their final
period (``approx.`` -> ``approx``), PTB's rarer rules (e.g. for ``'tis``,
``d'ye``, emoticons, URLs) are not reproduced, and words are ASCII: a letter
outside ASCII splits its word (``café`` -> ``caf é``) and the typographic
apostrophe, quotes and dashes stay tokens (``cube’s`` -> ``cube ’ s``; PTB:
``café``, ``cube 's``, quotes and dashes dropped). On CLEVR-Change-style
captions (lower-case words, at most a final period) both tokenizers agree
exactly; the measured difference of the scores is in docs/evaluation.md.
"""
import re
from typing import Dict, List

__all__ = ['PythonPTBTokenizer', 'ptb_like_tokens', 'tokenize_sentence']

#: Tokens coco-caption removes after tokenising (pycocoevalcap's list).
PUNCTUATIONS = frozenset(["''", "'", '``', '`', '-LRB-', '-RRB-', '-LCB-',
                          '-RCB-', '.', '?', '!', ',', ':', '-', '--', '...',
                          ';'])
_BRACKETS = {'(': '-lrb-', ')': '-rrb-', '[': '-lsb-', ']': '-rsb-',
             '{': '-lcb-', '}': '-rcb-'}
_ABBREVIATIONS = frozenset(['mr', 'mrs', 'ms', 'dr', 'prof', 'st', 'jr', 'sr',
                            'vs', 'etc', 'inc', 'ltd', 'co', 'corp', 'mt',
                            'fig'])
_WHOLE_WORDS = {'cannot': 'can not', 'gonna': 'gon na', 'wanna': 'wan na',
                'gotta': 'got ta', 'gimme': 'gim me', 'lemme': 'lem me'}
_CLITIC = re.compile(r"(?<=[a-z0-9])(n't|'s|'re|'ve|'ll|'d|'m)(?![a-z0-9])")
_TOKEN = re.compile(r"""
      n't | '(?:s|re|ve|ll|d|m)(?![a-z0-9])   # clitics, split off above
    | \.\.\.+ | --+ | [?!]{2,}               # punctuation runs
    | (?:[a-z]\.){2,}                        # acronyms: u.s. e.g.
    | \d+(?:,\d+)+(?:\.\d+)?(?![a-z0-9])     # numbers with commas: 1,000
    | [a-z0-9]+(?:[-/.'&][a-z0-9]+)*         # words, inner - / . ' &
    | <[a-z0-9]*>                            # <unk>-like tokens
    | \S                                     # anything else, one character
""", re.VERBOSE)


def ptb_like_tokens(sentence: str) -> List[str]:
    """PTB-style tokens of one sentence, lower case, punctuation kept."""
    text = sentence.replace('\n', ' ').replace('\r', ' ').lower()
    text = ' '.join(_WHOLE_WORDS.get(w, w) for w in text.split())
    text = _CLITIC.sub(r' \1', text)
    tokens = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if (token == '.' and tokens and tokens[-1] in _ABBREVIATIONS
                and match.start() > 0 and text[match.start() - 1] != ' '):
            tokens[-1] += '.'  # mr. etc. keep their period
            continue
        tokens.append(_BRACKETS.get(token, token))
    return tokens


def tokenize_sentence(sentence: str) -> str:
    """What coco-caption scores: PTB-like tokens without punctuation, joined
    by spaces."""
    return ' '.join(t for t in ptb_like_tokens(sentence)
                    if t not in PUNCTUATIONS and t != '"')


class PythonPTBTokenizer:
    """Drop-in for ``JavaPTBTokenizer``
    (:mod:`mmidc.evaluation.metrics.coco_caption_java`) that needs no Java
    (see the module's notes on how it differs)."""

    def tokenize(self, captions_for_image: Dict) -> Dict[object, List[str]]:
        """Tokenise ``{key: [{'caption': str}, ...]}`` into
        ``{key: [tokenised str, ...]}`` (keys in input order)."""
        return {key: [tokenize_sentence(c['caption']) for c in caps]
                for key, caps in captions_for_image.items()}
