"""tools/analysis_tools/tokenizer_difference.py: what it reads."""
import json
import re

import pytest

from tests.helpers import load_tool


def test_a_file_of_another_form_is_named_with_the_fix(tmp_path):
    """coco-caption results are not IDCMetric's predictions: the error
    (mmidc.evaluation.prediction_files.read_metric_records) says what to do."""
    tool = load_tool('tools/analysis_tools/tokenizer_difference.py')
    coco = tmp_path / 'coco.json'
    coco.write_text(json.dumps([dict(image_id='000001.png', caption='a')]))
    with pytest.raises(ValueError, match=re.escape(str(coco)) + '.*IDCMetric.*eval_captions.py'):
        tool.main([str(coco)])
