"""Compiling the programs a benchmark runs, with our compiler."""

from pathlib import Path

from p4aqm.compiler.cli import main as compile_main

REPO = Path(__file__).resolve().parents[2]


def compile_to(source: Path, out_dir: Path) -> tuple[Path, Path]:
    """Return (BMv2 JSON, P4Info) paths; exit if the program does not compile."""
    json_path = out_dir / f"{source.stem}.json"
    p4info_path = out_dir / f"{source.stem}.p4info.txtpb"
    args = [str(source), "-o", str(json_path), "--p4runtime-files", str(p4info_path)]
    if compile_main(args) != 0:
        raise SystemExit(f"bench: {source} does not compile")
    return json_path, p4info_path
