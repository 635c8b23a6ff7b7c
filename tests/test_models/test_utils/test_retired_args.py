import inspect

import pytest

from mmidc.models.utils import reject_retired_args, rejects_retired_args

RETIRED = dict(old_switch="use part=dict(type='NewPart')",
               init={'old': "use init=dict(type='NewInit')"})


def test_a_retired_argument_names_its_replacement():
    with pytest.raises(TypeError, match=r"Model: 'old_switch' .*NewPart"):
        reject_retired_args('Model', dict(hidden=8, old_switch=True), RETIRED)


def test_a_retired_value_names_its_replacement():
    with pytest.raises(TypeError, match=r"Model: init='old' .*NewInit"):
        reject_retired_args('Model', dict(init='old'), RETIRED)


def test_other_arguments_pass():
    reject_retired_args('Model', dict(hidden=8, typo=1), RETIRED)
    reject_retired_args('Model', {}, RETIRED)
    reject_retired_args('Model', dict(init=dict(type='NewInit')), RETIRED)
    reject_retired_args('Model', dict(init='other'), RETIRED)


class Model:

    @rejects_retired_args(RETIRED)
    def __init__(self, hidden: int = 8, init=None):
        self.hidden = hidden


def test_the_decorated_constructor_rejects_first():
    with pytest.raises(TypeError, match=r"Model: 'old_switch' .*NewPart"):
        Model(hidden=4, old_switch=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'typo'"):
        Model(typo=1)
    assert Model(4, init=dict(type='NewInit')).hidden == 4
    # callers that read the arguments (the captioner) still see them
    assert list(inspect.signature(Model.__init__).parameters) == [
        'self', 'hidden', 'init']
