"""tools/analysis_tools/tokenizer_difference.py: what it reads."""
import json
import re

import pytest

from tests.helpers import load_tool


def test_a_file_of_another_form_is_named_with_the_form_expected(tmp_path):
    """caption_pair.py's JSON Lines and coco-caption results are not
    IDCMetric's predictions: the error names the file and the form."""
    tool = load_tool('tools/analysis_tools/tokenizer_difference.py')
    jsonl = tmp_path / 'results.jsonl'
    jsonl.write_text('{"pair_id": "0", "caption": "a"}\n{"pair_id": "1", "caption": "b"}\n')
    coco = tmp_path / 'coco.json'
    coco.write_text(json.dumps([dict(image_id='000001.png', caption='a')]))
    for path in (jsonl, coco):
        with pytest.raises(ValueError, match=re.escape(str(path)) + '.*IDCMetric.*pair_id'
                           '.*prediction.*references.*eval_captions.py'):
            tool.main([str(path)])
