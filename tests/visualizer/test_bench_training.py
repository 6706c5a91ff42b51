"""``attnviz bench``'s Train page headline counts the new run's snapshots only, and a figure that
cannot be right fails the part instead of being printed.

A scripted stand-in for the Train page (its tracer's and its training process's signals, in the
order the real page sends them) drives ``train_and_watch``, so no model is trained here; each
probe answer says how strong its anti-diagonal is.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from PySide6.QtCore import QObject, QTimer, Signal

import visualizer.bench.training as training
from visualizer.bench.training import ImplausibleFigure, Sighting, time_to_anti_diagonal, train_and_watch

REPLAY_RUN, NEW_RUN = 1, 2


class Tracer(QObject):
    traced = Signal(object, object)  # (key: (run id, step, probe), answer)


class Process(QObject):
    event = Signal(dict)

    def __init__(self) -> None:
        super().__init__()
        self.state = "idle"


class ScriptedTrainPage:
    """Shows the shipped replay's last snapshot (strong anti-diagonal), then on Train plays
    ``script``: ("snapshot", step, held out) and ("probe", step, strength) in order, a few ms
    apart, and finishes."""

    key = "train"

    def __init__(
        self, script: list[tuple], replay_answered_late: bool = False, finishes: bool = True
    ) -> None:
        self.tracer, self.process = Tracer(), Process()
        self.steps = SimpleNamespace(setValue=lambda _value: None)
        self.failure = SimpleNamespace(text=lambda: "")
        self.run = SimpleNamespace(id=REPLAY_RUN, rate=30.0)
        self.script = script
        self.replay_answered_late = replay_answered_late
        self.finishes = finishes
        self.replay_traced = False
        self.pressed_at: float | None = None
        self.probe_times: dict[int, float] = {}  # step → when its answer was sent

    def shown(self) -> None:
        if not self.replay_answered_late:  # the probe of what it shows first answers soon
            QTimer.singleShot(10, self.answer_replay)

    def answer_replay(self) -> None:
        self.replay_traced = True
        self.tracer.traced.emit((REPLAY_RUN, 1500, "reverse: attention"), SimpleNamespace(strength=0.9))

    def pending(self) -> bool:
        # a page whose first probe answers late says so too; this one is made to tell the bench
        # it is settled when it is not, as a page with a bug would
        return not self.replay_traced and not self.replay_answered_late

    def train(self) -> None:
        self.pressed_at = time.perf_counter()
        self.run = SimpleNamespace(id=NEW_RUN, rate=30.0, steps=[1, 2, 3])
        if self.replay_answered_late:
            QTimer.singleShot(0, self.answer_replay)
        for delay, item in enumerate(self.script, start=1):
            QTimer.singleShot(5 * delay, lambda item=item: self.play(item))
        QTimer.singleShot(5 * (len(self.script) + 1), self.finish)

    def play(self, item: tuple) -> None:
        what, step, value = item
        if what == "snapshot":
            self.process.event.emit({"event": "snapshot", "step": step, "held_out": value})
        else:
            self.probe_times[step] = time.perf_counter()
            self.tracer.traced.emit((NEW_RUN, step, "reverse: attention"), SimpleNamespace(strength=value))

    def finish(self) -> None:
        if self.finishes:
            self.process.state = "finished"


class Window:
    def __init__(self, page: ScriptedTrainPage) -> None:
        self.panels = [page]

    def show_panel(self, _key: str) -> None:
        self.panels[0].shown()


@pytest.fixture(autouse=True)
def strength_is_given(monkeypatch):
    """Each scripted answer carries its anti-diagonal's strength."""
    monkeypatch.setattr(training, "anti_diagonal", lambda answer: answer)


RUN = [
    ("snapshot", 0, 0.0),
    ("probe", 0, 0.06),
    ("snapshot", 100, 0.1),
    ("probe", 100, 0.3),
    ("snapshot", 200, 0.6),
    ("probe", 200, 0.7),
    ("snapshot", 300, 0.97),
    ("probe", 300, 0.8),
]


def test_the_headline_counts_the_new_runs_snapshots_only(qapp):
    """The shipped replay's snapshot shows a strong anti-diagonal; the figure is still the time
    to the new run's step 200, the first of its snapshots to show one."""
    page = ScriptedTrainPage(RUN)
    metrics = train_and_watch(Window(page), 3000)
    # the bench's clock starts before the press and stops after the answer is received
    assert metrics["anti_diagonal_s"] >= page.probe_times[200] - page.pressed_at
    assert "held_out_95_s" in metrics
    assert metrics["training_steps_per_s"] == 30.0


def test_a_probe_of_another_run_arriving_during_the_run_fails_the_part(qapp):
    page = ScriptedTrainPage(RUN, replay_answered_late=True)
    with pytest.raises(ImplausibleFigure, match=r"another run's snapshot \(step 1500\)"):
        train_and_watch(Window(page), 3000)


def test_a_run_that_never_shows_it_reports_none(qapp):
    page = ScriptedTrainPage([("snapshot", 0, 0.0), ("probe", 0, 0.06), ("snapshot", 100, 0.1)])
    metrics = train_and_watch(Window(page), 100)
    assert "anti_diagonal_s" not in metrics and "held_out_95_s" not in metrics


def test_a_run_that_does_not_end_in_time_says_how_far_it_got(qapp, monkeypatch):
    monkeypatch.setattr(training, "WAIT_MS", 200)
    page = ScriptedTrainPage(RUN, finishes=False)
    with pytest.raises(TimeoutError, match=r"^the run reached step 3 of 3000 in 0 s \(30.0 steps/s\)$"):
        train_and_watch(Window(page), 3000)


def sighting(seconds: float, step: int, strength: float = 0.9, run: int = NEW_RUN) -> Sighting:
    return Sighting(seconds, run, step, strength)


def test_the_time_is_that_of_the_first_clear_probe_of_the_run():
    snapshots = {0: 0.1, 100: 3.0, 200: 6.0}
    seen = [sighting(0.2, 0, 0.05), sighting(3.5, 100, 0.2), sighting(6.4, 200)]
    assert time_to_anti_diagonal(seen, NEW_RUN, snapshots) == 6.4
    assert time_to_anti_diagonal(seen[:2], NEW_RUN, snapshots) is None


@pytest.mark.parametrize(
    ("seen", "reason"),
    [
        ([sighting(0.2, 1500, run=REPLAY_RUN)], r"another run's snapshot \(step 1500\) arrived 0.20 s"),
        ([sighting(7.0, 400)], "step 400, which this run never reported"),
        ([sighting(0.2, 0)], r"untrained snapshot \(step 0\)"),
        ([sighting(2.5, 100)], r"after 2.50 s, before the run's first trained snapshot arrived \(3.00 s\)"),
    ],
)
def test_a_figure_that_cannot_be_right_is_refused_in_one_line(seen, reason):
    with pytest.raises(ImplausibleFigure, match=reason) as caught:
        time_to_anti_diagonal(seen, NEW_RUN, {0: 0.1, 100: 3.0, 200: 6.0})
    assert "\n" not in str(caught.value)


def test_a_failed_figure_is_a_failed_part_of_the_report(monkeypatch):
    import visualizer.bench as bench

    def implausible(quick, progress, unavailable):
        raise ImplausibleFigure("the anti-diagonal was seen on the untrained snapshot (step 0)")

    monkeypatch.setitem(bench.MEASURES, "training", implausible)
    report = bench.run_bench(True, ("training",))
    assert report["unavailable"]["training"] == (
        "failed: ImplausibleFigure: the anti-diagonal was seen on the untrained snapshot (step 0)"
    )
    assert report["budgets"]["anti_diagonal_s"]["met"] is None
