"""The worker without Qt or a thread: requests queue, ``drain()`` runs them in order.

It is the real ``ModelRunner`` (what the Qt worker runs on its thread), so session logic —
stepping, back, forcing, stale results, comparing two models — is tested in milliseconds.
Between ``drain()`` calls requests wait, as they would while the worker thread is busy.
"""

from __future__ import annotations

from collections import deque

from visualizer.state.session import Request, Session
from visualizer.work.runner import ModelRunner, run_job


class FakeWorker:
    def __init__(self, session: Session) -> None:
        self.session = session
        self.runner = ModelRunner()
        self.runner.progress_report = session.apply  # a long job's progress arrives in line
        self.queue: deque[Request] = deque()
        session.request.connect(self.send)
        session.run_job = run_job

    def send(self, request: Request) -> None:
        generation = getattr(request, "generation", None)
        if generation is not None:
            self.runner.latest_generation = generation
        self.queue.append(request)

    def drain(self, limit: int = 1000) -> int:
        """Run every queued request (and those their results ask for); how many ran."""
        ran = 0
        while self.queue and ran < limit:
            result = self.runner.process(self.queue.popleft())
            if result is not None:
                self.session.apply(result)
            ran += 1
        return ran


def drain_all(*workers: FakeWorker) -> None:
    """Run the workers' queues until all are empty (one side's result may ask the other)."""
    while any(worker.queue for worker in workers):
        for worker in workers:
            worker.drain()
