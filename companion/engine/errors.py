"""The refusal every rule check raises: which rule, and what was wrong, with cards and numbers."""

from __future__ import annotations


class RuleError(ValueError):
    """An action or a deal that breaks a numbered rule of RULES.md.

    ``code`` is the game record's error code (RECORD.md) when there is one.

    >>> err = RuleError("R4.1", "green-2 + red-3 = 5, but the target is 9", code="wrong_sum")
    >>> str(err)
    'R4.1: green-2 + red-3 = 5, but the target is 9'
    """

    def __init__(self, rule: str | None, message: str, code: str = "illegal") -> None:
        super().__init__(f"{rule}: {message}" if rule else message)
        self.rule = rule
        self.message = message
        self.code = code

    def __reduce__(self) -> tuple:
        # (pickled whole, as a worker process reports it: the default would call it with the text alone)
        return type(self), (self.rule, self.message, self.code)
