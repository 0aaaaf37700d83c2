"""The values play and storage both speak, so that neither imports the other.

Play builds a ``GameResult`` when a game ends and reads a ``Skill`` when it pairs bots; storage records
the one and keeps the other. The rules both sides must agree on live here too: the names a bot may have,
who a bot is (``Identity``, its key written in one place, and the ``HelloError`` that refuses one), how a
client's text is shown in errors and logs (``shown``), and the bounds of the decision round-trip histograms.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from engine.r2210.state import END_REASONS_2210
from engine.state import Termination

NAME_PATTERN = re.compile(r"(?=.*[A-Za-z0-9])[A-Za-z0-9_.\-]{1,32}")
"""The names a Hello may carry and a bot may be registered under: punctuation alone (``..``) would compare
as the empty name (``name_key``) and turn into another path in a URL (``/api/bots/..``)."""

NAME_FORM = "1 to 32 letters, digits, '_', '.' or '-', at least one of them a letter or digit"
"""``NAME_PATTERN`` in the words error messages use."""

NAME_RULE = (
    "names are compared ignoring case and the punctuation '.', '_' and '-', and with look-alike characters "
    "taken as one: 1, I, i and l; 0, O and o; rn and m; vv and w"
)
"""How ``name_key`` compares names, in the words error messages use."""

LOOK_ALIKE_ADVICE = (
    "choose a name that differs from it by more than case, punctuation and look-alike characters"
)
"""What a refusal of a look-alike name (``name_key``) asks its sender to do."""

_NAME_PUNCTUATION = re.compile(r"[_.\-]")

CONFUSABLES_VERSION = "17.0.0"
"""The version of Unicode's confusables data (UTS #39, ``confusables.txt``) that ``UNICODE_CONFUSABLES``
is taken from."""

UNICODE_CONFUSABLES: Mapping[str, str] = {"1": "l", "I": "l", "0": "O", "m": "rn"}
"""Every entry of Unicode's ``confusables.txt`` (version ``CONFUSABLES_VERSION``) whose source is a
character a name may hold (``NAME_PATTERN``): the character, and the prototype it looks like. The file's
other entries map characters no name may hold. tests/reference/confusables_names.txt keeps these lines as
Unicode publishes them (``tests/server/test_server_look_alike_names.py`` checks this table against them)."""

PROJECT_LOOK_ALIKES: Mapping[str, str] = {"w": "vv"}
"""Look-alikes within the name alphabet that Unicode's data does not list, and the project adds: issue 33,
item 7 registered ``vvilliam`` beside ``william``."""


def _look_alike_tables() -> tuple[dict[int, str], tuple[tuple[str, str], ...]]:
    """``name_key``'s translation of a case-folded name's characters, and the runs of characters it then
    writes back as the one character they look like (``rn`` as ``m``, ``vv`` as ``w``).

    Names compare ignoring case, so each look-alike holds for every case of its characters: Unicode's
    ``I`` → ``l`` makes ``i`` (an ``I`` in another case) one with ``l``, and ``L`` is ``l`` already. A
    source maps to a target that holds no source, so one pass gives each name its one form.
    """
    pairs = {
        source.casefold(): target.casefold()
        for table in (UNICODE_CONFUSABLES, PROJECT_LOOK_ALIKES)
        for source, target in table.items()
    }
    translation = {ord(source): target for source, target in pairs.items()}
    runs = tuple((target, source) for source, target in pairs.items() if len(target) > 1)
    return translation, runs


_LOOK_ALIKE_TRANSLATION, _LOOK_ALIKE_RUNS = _look_alike_tables()

SHOWN_LIMIT = 64
"""Characters of a client's string an error message or a log line repeats (``shown``)."""


def shown(text: str, limit: int = SHOWN_LIMIT) -> str:
    """``text`` (a string a client sent) as an error message or a log line may repeat it: quoted, and cut
    to ``limit`` characters with its full length said when longer, so a client's megabyte costs no
    megabyte of answer or log: ``'aaaa…' (3500000 characters)``."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit] + '…'!r} ({len(text)} characters)"


def name_key(name: str) -> str:
    """The form in which two bot names are the same name: case-folded, without '.', '_' and '-', and
    with look-alike characters as one (``NAME_RULE``).

    ``Alice``, ``ALICE``, ``alice.``, ``a_lice``, ``aIice``, ``a1ice`` and ``al1ce`` all give ``allce``,
    ``rnodern`` and ``modern`` give ``modem``: a registered name is unique in this form, and a practice
    name may not look like a registered bot's or another connected bot's.

    The look-alikes are Unicode's (``UNICODE_CONFUSABLES``, the skeleton of UTS #39's confusable
    detection restricted to the name alphabet) and the project's (``PROJECT_LOOK_ALIKES``), for every case
    of their characters. Two names share a key exactly when their skeletons so built are equal; the key
    writes a run that looks like one character as that character (``rn`` as ``m``, where the skeleton
    writes ``m`` as ``rn``), so that it is never longer than its name (``bots.name_key``'s width).
    """
    key = _NAME_PUNCTUATION.sub("", name).casefold().translate(_LOOK_ALIKE_TRANSLATION)
    for run, character in _LOOK_ALIKE_RUNS:
        key = key.replace(run, character)
    return key


def identity_key(bot_id: int | None, name: str) -> str:
    """``Identity.key`` of a registered bot, or of a practice player (no bot id) by name."""
    return f"bot:{bot_id}" if bot_id is not None else f"practice:{name}"


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a connected bot is: what its Hello was authenticated as."""

    key: str
    """Stable across connections: a reconnect with the same key takes its seats back."""
    name: str
    ranked: bool
    bot_id: int | None = None
    """The registered bot's database id (ranked identities); None for a practice player."""


def bot_identity(bot_id: int, name: str) -> Identity:
    """A registered bot: it plays ranked."""
    return Identity(identity_key(bot_id, name), name, ranked=True, bot_id=bot_id)


def practice_identity(name: str) -> Identity:
    """An unregistered player: it plays unranked under its name."""
    return Identity(identity_key(None, name), name, ranked=False)


class DatabaseUnavailable(Exception):
    """The database did not take a write it may take later (unreachable, locked, timed out): the caller
    keeps the work and tries again."""


class GameAlreadyRecorded(Exception):
    """This game id has its row already: writing its result again changes nothing (no second rating
    update), so a retried write that meets this is done."""


class GameHandedOver(Exception):
    """Another server took this running game over (its epoch in the database moved past the writer's):
    the writer records nothing more of it, neither actions nor result (docs/storage.md, "Games taken
    over")."""


@dataclass(frozen=True, slots=True)
class LiveSeat:
    """Who holds a seat of a running game, as its record in the database keeps it: a bot (its identity's
    key, name, registered id and rankedness) or a house opponent (``house``: its policy's name)."""

    name: str
    key: str = ""
    bot_id: int | None = None
    ranked: bool = False
    house: str = ""


@dataclass(frozen=True, slots=True)
class LiveGame:
    """A running game's record in the database: what rebuilds it (with its logged actions), which server
    hosts it and the epoch its writes carry (each takeover adds one, so a stale host's writes are
    refused), and the fresh seeds each takeover drew (``(at, seed, commitment)``, as
    ``engine.replay.Reseed``)."""

    game_id: str
    queue: str
    rules: Mapping[str, object]
    board: str
    seed: int
    dice_version: int
    seats: tuple[LiveSeat, ...]
    seed_commitment: str
    started_at: datetime
    rated: bool
    """Whether its result moves ratings: its queue's flag as the game started (a challenge's or a tournament
    table's game is unrated on a rated queue), kept so that a takeover records it the same way."""
    epoch: int = 1
    reseeds: tuple[tuple[int, int, str], ...] = ()
    actions: int = 0
    """Actions logged so far."""


@dataclass(frozen=True, slots=True)
class ActionBatch:
    """Actions of one running game for the action log: ``count`` of them (their JSON array ``data``) from
    its action ``first`` on, written at ``epoch``. ``game``: the game's record, alone in a batch of
    ``count`` 0 sent as the game starts, before its first request (``ActionLog.open_games``; with the next
    heartbeat if the database did not take it then)."""

    game_id: str
    epoch: int
    first: int
    count: int
    data: str
    game: LiveGame | None = None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """What one heartbeat of a replica wrote and saw, all in one transaction: the registry's heartbeat
    counts, every other replica's running games (game id, host replica, epoch, actions logged), and the
    batches it refused, by game id with the reason: another server took the game over, or it is no longer
    live (those batches wrote nothing; the others were written)."""

    beats: dict[str, int]
    games: list[tuple[str, str, int, int]]
    refused: dict[str, str]
    released: tuple[str, ...] = ()
    """The games this replica handed over as it left (``ActionLog.beat`` with ``leaving``)."""


class HelloError(ValueError):
    """A Hello the server refuses; ``code`` is the Error code sent back."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# Decision round trips: a few milliseconds on loopback up to multi-second thinking bots. The Prometheus
# histogram (server.ops.metrics) and the per-bot histograms in the database (docs/storage.md) share these
# bounds; the database stores bucket indexes, so changing them needs a migration that re-bins its rows.
ROUND_TRIP_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

LEADERBOARD_SIGMAS = 3.0
"""Leaderboards order by μ − 3σ: a bot ranks high only once the rating is both good and certain."""


class Skill(NamedTuple):
    """An OpenSkill rating: the mean μ and the uncertainty σ."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """μ − 3σ, the leaderboard score."""
        return self.mu - LEADERBOARD_SIGMAS * self.sigma


INITIAL = Skill(25.0, 25.0 / 3.0)
"""A new bot's rating: OpenSkill's defaults, μ = 25, σ = 25/3 (``server.storage.ratings`` builds its model
from it)."""


class SeatOutcome(enum.StrEnum):
    """How a seat's game ended (the protocol's SeatOutcome, in lower case)."""

    WON = "won"
    ELIMINATED = "eliminated"
    FORFEIT_TIMEOUT = "forfeit_timeout"
    FORFEIT_DISCONNECT = "forfeit_disconnect"
    TURN_CAP = "turn_cap"
    SURVIVED = "survived"
    """Still in the game when another seat won by its goal (Capital Risk, Secret Mission)."""

    @property
    def is_forfeit(self) -> bool:
        return self in (SeatOutcome.FORFEIT_TIMEOUT, SeatOutcome.FORFEIT_DISCONNECT)


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished game, in seat order."""

    name: str
    place: int
    """Final place, 1 = best; tied seats share a place."""
    outcome: SeatOutcome
    bot_id: int | None = None
    """The authenticated bot (``Bot.id``); None for an unregistered practice player."""
    timeouts: int = 0
    rejections: int = 0
    crashes: int = 0
    """Times the bot's stream dropped while it held the seat in the running game."""
    round_trips: Mapping[str, Sequence[int]] = field(default_factory=dict)
    """Answered decisions by phase (lower-case Phase name): how many fell in each bucket of
    ``ROUND_TRIP_BUCKETS``, the last count for those above the last bound."""


SHUTDOWN = "server_shutdown"
"""A game ended by a server stop: the turn cap lowered to the current turn, that turn played with defaults."""
HANDED_OVER = "handed_over"
"""A game stopped here and played on by another server (taken over, or handed over by its draining
replica): nothing recorded here, its result comes from where it finishes."""
SHUTTING_DOWN = (
    "this server is shutting down: reconnect; behind a load balancer another replica serves you at once "
    "and your running games go on there (a lone server takes bots again once restarted)"
)
"""The fatal ``shutting_down`` Error's message, to the bots of a stopping server and to new streams."""
ALL_FORFEITED = "all_forfeited"
"""A game ended because every seat forfeited (ended the way a shutdown ends it)."""
ABORTED = "aborted"
"""A game live when the server crashed, ended where its record stopped (recorded only: no GameOver)."""
_CLASSIC_REASONS = tuple(t.value for t in Termination)
GAME_OVER_REASONS = (
    *_CLASSIC_REASONS,
    *(r for r in END_REASONS_2210 if r not in _CLASSIC_REASONS),
    SHUTDOWN,
    ALL_FORFEITED,
)
"""Every ``GameOver.reason``: the engines' ways a game ends (classic, then RISK 2210 A.D.'s own: ``year_5``),
then the server's ways of cutting one short."""
END_REASONS = (*GAME_OVER_REASONS, ABORTED)
"""Every ``GameResult.reason`` (``GameSummary.reason``, ``GameRecord.reason`` in storage)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """What the server knows about a finished game beyond its replay (rules, seed, seats, actions)."""

    queue: str
    seats: Sequence[SeatResult]
    seed_commitment: str
    started_at: datetime
    finished_at: datetime
    turns: int
    reason: str
    rated: bool = True
    """Rated games move ratings: every seat must then be a distinct registered bot."""


@dataclass(frozen=True, slots=True)
class SharedBot:
    """A bot's session as the cluster's shared queues know it (``server.play.cluster``): on which replica,
    who it is and how many more games it may be seated in now."""

    replica: str
    session_id: str
    identity: Identity
    free: int
    """Its free game slots (capacity less the games it holds), kept by relative updates only."""
    live_events: bool = False
    """Its Hello asked for GameEvents as each turn passes."""


@dataclass(frozen=True, slots=True)
class SharedWait:
    """A session's membership of a queue in the shared waiting set."""

    replica: str
    session_id: str
    queue: str
    games_left: int
    """Games it may still be seated in from this queue (JoinQueue.games); 0: no limit."""
    since: float
    """When it joined or was last seated from the queue, in Unix seconds (the writer's clock)."""


@dataclass(frozen=True, slots=True)
class SharedSeat:
    """One bot's seat in a game the matchmaker seated: the session playing it and where that is."""

    replica: str
    session_id: str
    key: str
    name: str
    bot_id: int | None
    ranked: bool
    live_events: bool = False
    done: bool = False
    """The session reached its JoinQueue.games limit with this game and left the queue."""


@dataclass(frozen=True, slots=True)
class SharedSeating:
    """A game the cluster's matchmaker seated: its id, queue, host replica and bot seats in seat order."""

    game_id: str
    queue: str
    host: str
    seats: tuple[SharedSeat, ...]
    appointment: str = ""
    """The shared appointment it plays ("": a queue's game); its host is the replica that made it."""


@dataclass(frozen=True, slots=True)
class RunningGame:
    """A game being played somewhere in the cluster, as the action log has it (from its first logged batch
    until its result is recorded)."""

    game_id: str
    queue: str
    host: str
    """The replica playing it ("": handed over by a draining replica, not claimed yet)."""
    handovers: int
    """Times it changed replica: taken over from a replica presumed dead, or handed over by a draining one."""
    seats: tuple[tuple[str, str], ...]
    """Each seat's (name, identity key; "" for a house opponent), in seat order."""
    started_at: datetime


@dataclass(frozen=True, slots=True)
class ClusterCounts:
    """What replicas did for one another: one replica's counts over its process's lifetime (written with
    each of its heartbeats, as absolute values), or the cluster's totals since its database was created."""

    games_handed_over: int = 0
    """Games a draining replica handed to the others (``server.play.drain``)."""
    games_taken_over: int = 0
    """Games a replica claimed and played on: from a replica presumed dead, or handed over by a draining
    one (so a drained game counts here too, once taken)."""
    relayed_decisions_played: int = 0
    """Decisions of bots connected to another replica, played on games this replica hosts."""
    relayed_decisions_sent: int = 0
    """Decisions of bots connected to this replica, sent to games another replica hosts."""

    def __add__(self, other: ClusterCounts) -> ClusterCounts:
        return ClusterCounts(
            self.games_handed_over + other.games_handed_over,
            self.games_taken_over + other.games_taken_over,
            self.relayed_decisions_played + other.relayed_decisions_played,
            self.relayed_decisions_sent + other.relayed_decisions_sent,
        )


@dataclass(frozen=True, slots=True)
class QueueCount:
    """The bots of one replica waiting in one queue: members, and those of them with a free game slot."""

    waiting: int
    ready: int


@dataclass(frozen=True, slots=True)
class SharedAppointment:
    """A game between named bots (a challenge's or a tournament table's) waiting for their free slots on
    any replica; the replica that made it hosts its game."""

    key: str
    replica: str
    bots: tuple[str, ...]
    """Bot names in seat order."""
