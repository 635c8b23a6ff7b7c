import pytest

from mmidc.models.utils import reject_retired_args

RETIRED = dict(old_switch="use part=dict(type='NewPart')")


def test_a_retired_argument_names_its_replacement():
    with pytest.raises(TypeError, match=r"Model: 'old_switch' .*NewPart"):
        reject_retired_args('Model', dict(old_switch=True), RETIRED)


def test_other_leftovers_are_unexpected_and_none_pass():
    with pytest.raises(TypeError, match=r"unexpected keyword arguments \['typo'\]"):
        reject_retired_args('Model', dict(typo=1), RETIRED)
    reject_retired_args('Model', {}, RETIRED)
