"""The one exception the runtime raises for a client's mistake or an unsupported request."""

from collections.abc import Callable
from typing import TypeVar

import grpc

_T = TypeVar("_T")


class P4RuntimeError(Exception):
    """A failure to report to the client as a gRPC status code and a message."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.name}: {self.message}"


def invalid(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.INVALID_ARGUMENT, message)


def not_found(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.NOT_FOUND, message)


def unimplemented(message: str) -> P4RuntimeError:
    return P4RuntimeError(grpc.StatusCode.UNIMPLEMENTED, message)


def call_dataplane(
    method: Callable[..., _T], *args: object, error_prefix: str = "dataplane", **kwargs: object
) -> _T:
    """Call the dataplane, turning its KeyError/ValueError (which name the table, extern,
    port or value at fault) into NOT_FOUND/INVALID_ARGUMENT whose message starts with
    `error_prefix`."""
    try:
        return method(*args, **kwargs)
    except KeyError as exc:
        raise not_found(f"{error_prefix}: {exc.args[0] if exc.args else exc}") from None
    except ValueError as exc:
        raise invalid(f"{error_prefix}: {exc}") from None
