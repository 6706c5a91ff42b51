"""The work that runs off the GUI thread: the runner that does each of the session's requests on
the model, the worker thread that runs it, the Train page's training process and its probe."""
