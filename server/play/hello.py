"""A bot's first message: whether its Hello lets it in (the fatal Error that answers it if not) and the
Welcome that answers it if so. Nothing here holds state: the lobby (``server.play.lobby``) opens the session.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Iterable, Sequence

from conquest.v1 import bot_pb2
from server.ops.calls import SMALL_REQUEST_BYTES
from server.ops.config import QueueConfig
from server.play.convert import rules_info
from server.play.convert_2210 import rules_info_2210
from server.play.ports import Authenticator
from server.play.session import Session, check_hello
from server.records import LOOK_ALIKE_ADVICE, NAME_RULE, HelloError, Identity, name_key


@functools.cache  # read from the installed package's metadata: ~1.5 ms, and every Hello is answered with it
def server_version() -> str:
    try:
        return importlib.metadata.version("conquest")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


def admit(
    first: bot_pb2.ConnectRequest | None, authenticator: Authenticator, sessions: Iterable[Session]
) -> tuple[Identity, int] | bot_pb2.Error:
    """The identity and capacity a stream's first message (a Hello) opens a session with, or the fatal
    Error to answer it with. ``sessions``: the bots connected now (a practice name may not look like
    theirs)."""
    if first is None or first.WhichOneof("message") != "hello":
        return bot_pb2.Error(code="bad_hello", message="send Hello as the first message", fatal=True)
    if (size := first.ByteSize()) > SMALL_REQUEST_BYTES:
        return bot_pb2.Error(
            code="bad_hello",
            message=f"the Hello is {size} bytes; at most {SMALL_REQUEST_BYTES} are taken (a name, a "
            "token and a client name and version fit in a few hundred)",
            fatal=True,
        )
    try:
        capacity = check_hello(first.hello)
        identity = authenticator.authenticate(first.hello)
        _refuse_look_alike(identity, sessions)
    except HelloError as bad:
        return bot_pb2.Error(code=bad.code, message=str(bad), fatal=True)
    return identity, capacity


def _refuse_look_alike(identity: Identity, sessions: Iterable[Session]) -> None:
    """A practice name may not look like the name of a bot connected now (``name_key``): nobody could
    tell ``Alice`` or ``a1ice`` from ``alice`` on the dashboard. (Registered names are unique in that form.)

    Raises:
        HelloError: ``name_taken``.
    """
    if identity.ranked:
        return
    key = name_key(identity.name)
    for session in sessions:
        other = session.identity.name
        if other != identity.name and not session.closed and name_key(other) == key:
            raise HelloError(
                "name_taken",
                f"{identity.name!r} is too like {other!r}, a bot connected now ({NAME_RULE}): "
                f"{LOOK_ALIKE_ADVICE}",
            )


def queue_infos(queues: Sequence[QueueConfig]) -> list[bot_pb2.QueueInfo]:
    """What a Welcome tells of the server's queues (the same for every bot: built once)."""
    return [
        bot_pb2.QueueInfo(
            name=q.name,
            players=q.players,
            time_control=q.time_control.to_pb(),
            **(
                {"rules_2210": rules_info_2210(q.r2210, q.players)}
                if q.r2210 is not None
                else {"rules": rules_info(q.rules, q.players)}
            ),
        )
        for q in queues
    ]


def welcome(session: Session, queues: list[bot_pb2.QueueInfo], resumed: list[str]) -> bot_pb2.ConnectResponse:
    """The answer to an admitted Hello: the session, the queues and the games it resumes."""
    return bot_pb2.ConnectResponse(
        welcome=bot_pb2.Welcome(
            bot_name=session.identity.name,
            session_id=session.session_id,
            ranked=session.identity.ranked,
            queues=queues,
            server_version=server_version(),
            resumed_game_ids=resumed,
        )
    )
