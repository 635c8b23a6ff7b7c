"""Checking rounded rates against the rounded times they come from."""


def assert_rate(rate, count, seconds):
    """``rate`` (rounded to 0.1) is ``count / seconds`` for ``seconds``
    rounded to 1e-4: off by at most ``count * 5e-5 / (t * seconds)``."""
    tolerance = count * 5e-5 / (seconds - 5e-5) ** 2 + 0.051
    assert abs(rate - count / seconds) <= tolerance, (rate, count, seconds)
