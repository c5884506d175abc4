"""The demo's one error type."""


class DemoError(Exception):
    """A step of the demo failed; the message says which and why."""
