"""What the generators' command lines share: bad input is `error: ...` and exit status 2.

The generators run inside Mininet hosts, where a traceback in a log nobody reads is
easy to miss; a one-line message naming the flag, file or line and a distinct exit
status are not.
"""

import argparse
import resource
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from p4aqm.traffic.records import check_records_path

USAGE_ERROR = 2
ModelT = TypeVar("ModelT", bound=BaseModel)


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        self.exit(USAGE_ERROR, f"error: {message}\n")


def flag_of(field: str) -> str:
    """The command-line flag that sets a parameter: rate_bps is --rate-bps."""
    return "--" + field.replace("_", "-")


def describe(error: ValueError) -> str:
    """One line for bad input; a pydantic error names the flags of the fields it rejects."""
    if isinstance(error, ValidationError):
        return "; ".join(_describe_detail(detail) for detail in error.errors())
    return str(error)


def _describe_detail(detail: ErrorDetails) -> str:
    # A model validator's own message already names its flags.
    message = detail["msg"].removeprefix("Value error, ")
    if not detail["loc"]:
        return message
    return f"{flag_of(str(detail['loc'][-1]))}: {message}"


def model_from_args(model: type[ModelT], args: argparse.Namespace) -> ModelT:
    """The parameters given on the command line; the model's defaults fill the rest.

    Flags default to None so that each default is written once, in the model.
    """
    given = {name: value for name, value in vars(args).items() if value is not None}
    return model(**{name: given[name] for name in model.model_fields if name in given})


def check_records_flag(path: Path) -> None:
    """check_records_path for --records, before anything starts."""
    try:
        check_records_path(path)
    except ValueError as error:
        raise ValueError(f"--records: {error}") from None


def run(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """Call main, turning bad input (ValueError, which pydantic's errors are) into exit 2."""
    try:
        return main(argv)
    except ValueError as error:
        print(f"error: {describe(error)}", file=sys.stderr)
        return USAGE_ERROR


def raise_open_files_limit() -> None:
    """Raise the soft limit on open files to the hard limit.

    Hundreds of users with up to max_parallel connections each, or a server with as many
    clients, pass the usual soft limit of 1024 descriptors.
    """
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def stop_on_signals() -> threading.Event:
    """An event that SIGTERM or SIGINT sets, for the blocking loops to finish cleanly on.

    Mininet stops a host's processes with SIGTERM (or SIGINT from a terminal); either
    must still leave the records and the summary written.
    """
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda _signum, _frame: stop.set())
    return stop
