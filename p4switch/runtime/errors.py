"""The one exception the runtime raises for a client's mistake or an unsupported request."""

import grpc


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
