"""Where a field of a YAML file is: its line, for errors that name FILE:LINE and the field
(experiment files, the tuning daemon's rules)."""

from pathlib import Path
from typing import Any

import yaml


class YamlFileError(ValueError):
    """A file that is not a readable YAML mapping; the message starts with FILE[:LINE]."""


def read_mapping(path: Path, expected: str) -> tuple[dict[str, Any], dict[tuple[str, ...], int]]:
    """The file's top-level mapping and the line of each field. A YamlFileError names
    the file, and the line where it can: unreadable, invalid YAML, not a mapping
    (`expected` says what should be there), or a chained merge (chained_merges)."""
    try:
        text = path.read_text()
        document = yaml.safe_load(text)
        lines = line_map(text)
    except OSError as exc:
        raise YamlFileError(f"{path}: cannot read: {exc.strerror}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f":{mark.line + 1}" if mark else ""
        raise YamlFileError(f"{path}{line}: invalid YAML: {exc.problem}") from None
    if not isinstance(document, dict):
        raise YamlFileError(f"{path}: expected a mapping ({expected})")
    chained = chained_merges(text)
    if chained:
        raise YamlFileError(
            f"{path}:{chained[0]}: a merge (<<) of a mapping that itself merges one: PyYAML"
            " loses the middle mapping's own keys; merge the first one and write them out"
        )
    return document, lines


def line_map(text: str) -> dict[tuple[str, ...], int]:
    """Each mapping key's and sequence item's path -> its 1-based line in the YAML."""
    lines: dict[tuple[str, ...], int] = {}

    def walk(node: yaml.Node, path: tuple[str, ...]) -> None:
        lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                lines[(*path, str(key.value))] = key.start_mark.line + 1
                walk(value, (*path, str(key.value)))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, (*path, str(i)))

    root = yaml.compose(text)
    if root is not None:
        walk(root, ())
    return lines


def line_of(path: Path, lines: dict[tuple[str, ...], int], loc: tuple[str, ...]) -> str:
    """FILE:LINE of the field at loc, or of the nearest enclosing one the file has."""
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return f"{path}:{lines[loc[:n]]}"
    return str(path)


MERGE_TAG = "tag:yaml.org,2002:merge"


def chained_merges(text: str) -> list[int]:
    """The lines of merge keys (<<) whose mapping itself merges another. PyYAML drops
    the middle mapping's own keys in such a chain when a key is also in the first (its
    6.0 gives {k: c} for `- &c {k: c}`, `- &p {<<: *c, k: p}`, `- <<: *p`), so a
    file must not rely on it."""
    found: list[int] = []

    def walk(node: yaml.Node) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                merged = value.value if isinstance(value, yaml.SequenceNode) else [value]
                if key.tag == MERGE_TAG and any(
                    isinstance(m, yaml.MappingNode) and any(k.tag == MERGE_TAG for k, _ in m.value)
                    for m in merged
                ):
                    found.append(key.start_mark.line + 1)
                walk(value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)

    root = yaml.compose(text)
    if root is not None:
        walk(root)
    return sorted(set(found))
