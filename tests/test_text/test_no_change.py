"""Each data set's no-change sentences and the one normalisation readers
and metrics compare them by."""
import pytest

from mmidc.text.no_change import (NO_CHANGE_SENTENCES, is_no_change_sentence,
                                  no_change_sentences, no_change_set,
                                  normalize_sentence)


def test_normalisation_removes_every_full_stop():
    # the form the remote-sensing scripts compare: "." removed, not spaced
    assert normalize_sentence(' there is no difference .') == \
        'there is no difference'
    assert normalize_sentence('Everything remains the same.') == \
        'everything remains the same'
    assert normalize_sentence('No  change\tto mention .') == \
        'no change to mention'
    assert normalize_sentence('a\\almost all') == 'a\\almost all'
    assert normalize_sentence('e.g. no') == 'eg no'


def test_each_set_is_stored_normalised_and_without_repeats():
    for name, sentences in NO_CHANGE_SENTENCES.items():
        assert all(normalize_sentence(s) == s for s in sentences), name
        assert len(set(sentences)) == len(sentences), name
    assert set(NO_CHANGE_SENTENCES) == {
        'levir_cc', 'levir_mci', 'whu_cdc', 'second_cc', 'dubai_cc'}
    assert len(NO_CHANGE_SENTENCES['dubai_cc']) == 32
    assert NO_CHANGE_SENTENCES['levir_mci'] == NO_CHANGE_SENTENCES['whu_cdc'] \
        == NO_CHANGE_SENTENCES['levir_cc']


@pytest.mark.parametrize('sentence, name, expected', [
    ('Everything remains the same.', 'dubai_cc', True),
    ('There is no change to mention in this area.', 'dubai_cc', True),
    ('Everything remains the same.', 'levir_cc', False),
    (' almost nothing has changed .', 'levir_cc', True),
    (' no change is occurred .', 'second_cc', True),
    (' no change is occurred .', 'levir_cc', False),
    ('The road in the desert appears wider.', 'dubai_cc', False),
])
def test_is_no_change_sentence_per_set(sentence, name, expected):
    assert is_no_change_sentence(sentence, name) is expected


def test_names_or_lists():
    assert no_change_sentences(['Nothing happened.']) == ('Nothing happened.',)
    assert no_change_set(['Nothing happened.']) == {'nothing happened'}
    assert is_no_change_sentence('nothing happened', ['Nothing happened.'])
    with pytest.raises(KeyError, match=r"unknown data set 'dubai'; known: "
                       r"\['dubai_cc', 'levir_cc'"):
        no_change_sentences('dubai')
