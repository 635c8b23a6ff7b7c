"""The Java-free PTB-style tokenizer: what coco-caption scores of a
sentence (PTB's rules, then its punctuation removed)."""
from mmidc.text.ptb_tokenizer import PythonPTBTokenizer, ptb_like_tokens, tokenize_sentence
from tests.helpers.idc_pairs import PTB_CASES


def test_python_tokenizer_rules():
    for sentence, expected in PTB_CASES.items():
        assert tokenize_sentence(sentence) == expected, sentence
    out = PythonPTBTokenizer().tokenize({'a': [{'caption': 'A Cube.'}, {'caption': 'B!'}]})
    assert out == {'a': ['a cube', 'b']}


def test_punctuation_is_kept_before_removal():
    assert ptb_like_tokens('The cube moved, right?') == ['the', 'cube', 'moved', ',',
                                                          'right', '?']
