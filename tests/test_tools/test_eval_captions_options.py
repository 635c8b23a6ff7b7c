"""tools/analysis_tools/eval_captions.py: how its options are read."""
import pytest

from tests.helpers import load_tool


def test_one_word_no_change_sentences():
    """--no-change-sentences WORD names a data set; a word that names none
    is an error that lists the names and says how to give a one-word
    sentence (with a period, dropped when sentences are compared)."""
    tool = load_tool('tools/analysis_tools/eval_captions.py')

    def sentences(*given):
        args = tool.parse_args(['p.json', '--tokenizer', 'python',
                                '--no-change-sentences', *given])
        return tool.build_scorer(args).no_change_sentences

    assert sentences('levir_cc')[0] == 'the scene is the same as before'
    with pytest.raises(SystemExit, match=r"'unchanged' is no data set's name \(known: "
                       r'dubai_cc, levir_cc.*"unchanged \."'):
        sentences('unchanged')
    assert sentences('unchanged .') == ('unchanged .', )
    assert sentences('nothing changed', 'unchanged') == ('nothing changed', 'unchanged')


def test_a_cfg_option_without_a_value_is_a_usage_error(capsys):
    tool = load_tool('tools/analysis_tools/eval_captions.py')
    with pytest.raises(SystemExit):
        tool.parse_args(['p.json', '--config', 'c.py', '--cfg-options', 'data_root'])
    assert "--cfg-options: 'data_root' is not KEY=VALUE" in capsys.readouterr().err
    args = tool.parse_args(['p.json', '--cfg-options', 'data_root=d', 'a.b=2'])
    assert args.cfg_options == {'data_root': 'd', 'a.b': 2}
