"""The words of a caption: normalised text and word spans."""
from mmidc.text.caption_words import normalize_caption, word_spans


def test_normalize_caption():
    assert normalize_caption('  The Red  cube moved .') == 'the red cube moved'
    assert normalize_caption('there is no change') == 'there is no change'


def test_word_spans_keep_positions_and_inner_apostrophes():
    caption = "The cube's colour: Grün-blau_2"
    spans = word_spans(caption)
    assert [w for _, _, w in spans] == ['the', "cube's", 'colour', 'grün', 'blau', '2']
    assert all(caption[a:b].lower() == w for a, b, w in spans)
