"""The house's rules, walked in the source: run-time code (the dashboard, the camera referee, the
scanner's stages) never imports training code, so `./dev run` needs no PyTorch and a Pi runs
without it. Imports inside functions count too: a lazy import is still an import."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "scanner")

#: what a user's table runs: the dashboard, the camera referee, the scanner from frame to reading
RUN_TIME = (
    "companion.web",
    "companion.engine",
    "companion.storage",
    "companion.referee.follow",
    "companion.referee.infer",
    "companion.referee.observed",
    "companion.referee.run",
    "companion.referee.view",
    "scanner.core",
    "scanner.capture",
    "scanner.geometry",
    "scanner.find",
    "scanner.read",
    "scanner.scan",
    "scanner.track",
    "scanner.piles",
    "scanner.labels",
)
#: training and its tools: never reached from the run time
TRAINING = ("torch", "onnx", "scanner.train")


def _module_files() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name``'s source imports, at any depth (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}  # (a submodule imported by name)
    return found


def _is(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_run_time_code_never_imports_training_code() -> None:
    files = _module_files()
    graph = {name: _imports(name, path) for name, path in files.items()}
    start = [name for name in files if _is(name, RUN_TIME)]
    assert len(start) > 20, start  # (the walk found the run-time modules)
    seen: dict[str, str] = {name: "" for name in start}
    queue = list(start)
    bad = []
    while queue:
        name = queue.pop()
        for target in graph.get(name, ()):
            if _is(target, TRAINING):
                bad.append(f"{name} imports {target} (reached from the run time via {seen[name] or name})")
            elif target in files and target not in seen:
                seen[target] = seen[name] or name
                queue.append(target)
    assert not bad, "\n".join(sorted(set(bad)))


def test_every_scanner_error_shares_one_base() -> None:
    """One ``except ScannerError`` catches any scanner problem (issue: a house a newcomer can live in)."""
    import importlib
    import inspect

    from scanner.core import ScannerError

    errors = []
    for name in _module_files():
        if not name.startswith("scanner.") or _is(name, ("scanner.train",)):
            continue  # (training needs PyTorch)
        module = importlib.import_module(name)
        errors += [
            obj
            for obj in vars(module).values()
            if inspect.isclass(obj) and issubclass(obj, Exception) and obj.__module__ == name
        ]
    assert len(errors) >= 6, errors
    assert [e for e in errors if not issubclass(e, ScannerError)] == []


def test_no_module_imports_another_modules_private_names() -> None:
    """A leading underscore means "this module's own": the packages never import one of another's."""
    bad = []
    for name, path in _module_files().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                bad += [f"{name} imports {a.name} from {node.module}" for a in node.names if a.name.startswith("_")]
    assert not bad, "\n".join(bad)
