"""The programs of p4src/, compiled by our compiler for tests (importable by any test module)."""

from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
P4SRC = REPO / "p4src"


@dataclass(frozen=True)
class CompiledProgram:
    source: Path
    json_path: Path
    p4info_path: Path


def compile_program(source: Path, out_dir: Path) -> CompiledProgram:
    """Compile with our compiler, exactly as `p4aqm compile` would."""
    from p4aqm.compiler.cli import main as compile_main

    json_path = out_dir / f"{source.stem}.json"
    p4info_path = out_dir / f"{source.stem}.p4info.txtpb"
    status = compile_main(
        [str(source), "-o", str(json_path), "--p4runtime-files", str(p4info_path)]
    )
    assert status == 0, f"compiling {source} failed with exit status {status}"
    return CompiledProgram(source, json_path, p4info_path)
