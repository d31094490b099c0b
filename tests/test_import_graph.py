"""The import graph of ``src/diceopt``: no new import circle between modules.

Run-time imports count (a function-level import included); an import under
``TYPE_CHECKING`` does not, as it never runs. There is no circle, and a new one fails
(the rooms of the Yatzy package and their order are import-linter contracts in
``pyproject.toml``).
"""

from __future__ import annotations

import grimp

KNOWN: list[set[str]] = []  # no circle is known: every one fails


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(comp)
    return found


def import_edges() -> dict[str, set[str]]:
    graph = grimp.build_graph("diceopt", exclude_type_checking_imports=True)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def check_no_new_circle(edges: dict[str, set[str]]) -> None:
    for circle in circles(edges):
        assert any(circle <= known for known in KNOWN), f"an import circle: {sorted(circle)}"


def test_no_new_import_circle():
    check_no_new_circle(import_edges())


def test_a_new_circle_is_found():
    edges = import_edges()
    edges["diceopt.errors"] = edges["diceopt.errors"] | {"diceopt.storage"}
    try:
        check_no_new_circle(edges)
    except AssertionError as exc:
        assert "diceopt.errors" in str(exc) and "diceopt.storage" in str(exc)
    else:
        raise AssertionError("a circle through errors and storage was not found")
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]
