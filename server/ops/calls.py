"""What every gRPC call of the server passes through (``CallGuard``, a server interceptor): a request over
its kind's size bound is refused with ``INVALID_ARGUMENT`` naming the bound, and an exception a handler did
not expect is logged with the method it came from (and answered ``INTERNAL``). ``client_of`` names the
client a call comes from, the one key of every per-client bound (streams held, the Arena's token buckets),
but for the dashboard process, known by its secret (``DASHBOARD_METADATA``).

The server's receive bound (``MAX_REQUEST_BYTES``, gRPC's ``max_receive_message_length``) is the largest
any message needs; a unary request of a kind that needs less is held to its own bound here
(``SMALL_REQUEST_BYTES``, or ``REQUEST_BYTES``). On the bot stream the lobby holds a Hello, a JoinQueue and
a LeaveQueue to ``SMALL_REQUEST_BYTES``; a Decision goes to its game as it comes (the hot path), bounded by
the server's receive bound.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import unquote

import grpc
import structlog

from server.ops.config import ServerConfig

log = structlog.get_logger("conquest.calls")

MAX_REQUEST_BYTES = 64 * 1024
"""The largest message the server reads (a CreateTournament naming many entrants); gRPC refuses a larger
one with RESOURCE_EXHAUSTED before it is read. A Decision is a few hundred bytes."""
SMALL_REQUEST_BYTES = 4 * 1024
"""The bound of a request of one call (unary or server-streaming) not named in ``REQUEST_BYTES``: a few
names or ids."""
REQUEST_BYTES = {"/conquest.v1.ArenaService/CreateTournament": MAX_REQUEST_BYTES}
"""Methods whose requests may be larger than ``SMALL_REQUEST_BYTES``: method -> bytes."""
DASHBOARD_METADATA = "conquest-dashboard-token"
"""The request metadata the dashboard process shows the play process's secret for it in
(``server.web.process``): its Arena calls and streams are then counted as the dashboard's, under limits of
its own, not as its address's (the play process's host, which local bots share)."""


def client_of(peer: str) -> str:
    """The client address of a gRPC peer: ``ipv4:127.0.0.1:5000`` -> ``127.0.0.1``,
    ``ipv6:%5B::1%5D:5000`` (gRPC escapes the brackets) -> ``::1``; any other peer (a Unix socket) as it
    is."""
    kind, _, address = peer.partition(":")
    if kind == "ipv4":
        return address.rpartition(":")[0]
    if kind == "ipv6":
        return unquote(address).rpartition(":")[0].strip("[]")
    return peer


def unread(config: ServerConfig) -> str:
    """Why a stream whose client stopped reading was closed."""
    return (
        f"the client stopped reading this stream: {config.send_queue_limit} messages were waiting for it "
        "(server.send_queue_limit), or what was left at its end was not read; the stream is closed (a bot's "
        "games go on by the disconnect rules: reconnect within the reconnect grace to take its seats back)"
    )


async def cut_off(context: grpc.aio.ServicerContext[Any, Any], why: str) -> None:
    """End a stream whose client stopped reading with ``RESOURCE_EXHAUSTED`` and ``why``. The status goes
    out after the messages gRPC holds for the client: this waits until the client reads them or leaves, and
    the stream counts against its client's ``client_stream_limit`` meanwhile (the server has let go of
    everything else it held for it)."""
    try:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, why)
    except grpc.aio.AbortError:
        raise
    except Exception:  # gRPC's ExecuteBatchError: the client left before the status: nobody to tell
        return


class CallGuard(grpc.aio.ServerInterceptor):
    """The size bound of each request and the log of each unexpected exception, for every method."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler[Any, Any] | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[Any, Any] | None:
        handler = await continuation(details)
        if handler is None:
            return None
        method = details.method
        behaviours = (handler.unary_unary, handler.unary_stream, handler.stream_stream)
        if not any(inspect.iscoroutinefunction(b) or inspect.isasyncgenfunction(b) for b in behaviours):
            return handler  # a synchronous handler (none here) runs in gRPC's thread pool as it is
        if handler.unary_unary is not None:
            return handler._replace(unary_unary=_guard(method, handler.unary_unary, sized=True))  # type: ignore[attr-defined, no-any-return]
        if handler.unary_stream is not None:
            return handler._replace(unary_stream=_guard(method, handler.unary_stream, sized=True))  # type: ignore[attr-defined, no-any-return]
        if handler.stream_stream is not None:
            return handler._replace(stream_stream=_guard(method, handler.stream_stream, sized=False))  # type: ignore[attr-defined, no-any-return]
        return handler


async def _check_size(method: str, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    limit = REQUEST_BYTES.get(method, SMALL_REQUEST_BYTES)
    size = request.ByteSize()
    if size > limit:
        await context.abort(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"the {method.rpartition('/')[2]} request is {size} bytes; at most {limit} are taken",
        )


def log_failure(method: str) -> None:
    """Log the exception being handled as a fault of the server's in a call of ``method``."""
    log.exception("call_failed", method=method)


async def _failed(method: str, context: grpc.aio.ServicerContext[Any, Any]) -> None:
    log_failure(method)
    await context.abort(
        grpc.StatusCode.INTERNAL,
        f"{method} failed on the server (logged as call_failed): the server's fault, not the request's",
    )


def _guard(method: str, behaviour: Callable[..., Any], sized: bool) -> Callable[..., Any]:
    """``behaviour`` (a coroutine, or an async generator of responses) with its request held to its bound
    (``sized``: a unary request; a stream's messages are held to the server's receive bound) and its
    unexpected exceptions logged with ``method``."""
    if inspect.isasyncgenfunction(behaviour):

        async def streaming(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> AsyncIterator[Any]:
            if sized:
                await _check_size(method, request, context)
            try:
                async for response in behaviour(request, context):
                    yield response
            except grpc.aio.AbortError:
                raise
            except Exception:
                await _failed(method, context)

        return streaming

    async def guarded(request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        if sized:
            await _check_size(method, request, context)
        try:
            return await behaviour(request, context)
        except grpc.aio.AbortError:
            raise
        except Exception:
            await _failed(method, context)

    return guarded
