import pytest

from mmidc.models.utils import reject_retired_args

RETIRED = dict(old_switch="use part=dict(type='NewPart')")


def test_a_retired_argument_names_its_replacement():
    with pytest.raises(TypeError, match=r"Model: 'old_switch' .*NewPart"):
        reject_retired_args('Model', dict(hidden=8, old_switch=True), RETIRED)


def test_other_arguments_pass():
    reject_retired_args('Model', dict(hidden=8, typo=1), RETIRED)
    reject_retired_args('Model', {}, RETIRED)
