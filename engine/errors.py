"""Typed errors. All subclass ValueError; messages say what was asked, in which phase, and what was legal."""


class ActionError(ValueError):
    """An action the engine will not apply."""


class MalformedActionError(ActionError):
    """The action is not well formed (unknown kind, wrong field types, out-of-range ids)."""


class IllegalActionError(ActionError):
    """The action is well formed but breaks the rules in this position."""


class NotYourTurnError(IllegalActionError):
    """A seat tried to act when another seat is to act."""


class RulesConfigError(ValueError):
    """A rules preset or option that does not exist or cannot be combined."""
