"""How long a test waits for something before it fails: long, because the machine may be busy.

The suite must pass while another full copy of it runs on the same two cores, so no test may
depend on how fast the machine is. A wait ends as soon as what it waits for happens, so a
generous limit costs nothing when all is well: it is there only to turn a hang into a failure.
Speed is measured by ``attnviz bench``, never by a test.
"""

EVENT_MS = 180_000  # something the window or a worker does: a step, a page, a load, a short run
PROCESS_S = 900  # a whole subprocess: a fresh app, a training run, a wheel build
