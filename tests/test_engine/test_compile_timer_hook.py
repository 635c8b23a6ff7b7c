"""CompileTimerHook: the first iteration's time less the median of the
later ones, logged once after ``num_iters`` iterations (or at the end of a
shorter run)."""
from types import SimpleNamespace

from mmidc.engine import CompileTimerHook, compile_timer_hook


def _run(hook, durations, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(compile_timer_hook, 'time',
                        SimpleNamespace(perf_counter=lambda: clock[0]))
    for i, seconds in enumerate(durations):
        hook.before_train_iter(None, i)
        clock[0] += seconds
        hook.after_train_iter(None, i)


def test_compile_time_is_the_first_iteration_less_the_steady_median(monkeypatch):
    hook = CompileTimerHook(num_iters=4)
    _run(hook, [10.0, 1.0, 3.0, 2.0, 50.0], monkeypatch)
    assert hook.times == [10.0, 1.0, 3.0, 2.0]  # the fifth is not timed
    assert hook.compile_s == 8.0
    hook.after_train(None)
    assert hook.compile_s == 8.0


def test_a_short_run_reports_at_its_end(monkeypatch):
    hook = CompileTimerHook(num_iters=1)
    assert hook.num_iters == 3  # at least 3
    _run(hook, [5.0, 1.0], monkeypatch)
    assert hook.compile_s is None
    hook.after_train(None)
    assert hook.compile_s == 4.0
