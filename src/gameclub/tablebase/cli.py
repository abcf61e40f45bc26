"""``gameclub tablebase``: build, probe and describe endgame tables."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gameclub.tablebase.storage import BUILD_LOG, MANIFEST, TableDir, TableError, default_root
from gameclub.tablebase.values import decode

_RESULT_WORDS = {1: "win", 0: "draw", -1: "loss"}


def _root(args: argparse.Namespace) -> Path:
    return Path(args.dir) if args.dir else default_root()


def _cmd_build(args: argparse.Namespace) -> int:
    from gameclub.tablebase.build import LayeredGame, build, progress_bar

    game: LayeredGame
    if args.game == "awele":
        from gameclub.tablebase.awele import AweleTables, parse_seeds

        if args.size is not None or args.seeds is None:
            raise ValueError("awele tables take --seeds 0-N, not --size")
        game = AweleTables(parse_seeds(args.seeds), args.rules or "awari")
    else:
        from gameclub.tablebase.ataxx import STUCK_RULES, AtaxxTables, parse_size

        if args.size is None or args.seeds is not None:
            raise ValueError("ataxx tables take --size WxH (e.g. 4x4), not --seeds")
        if args.rules is not None and args.rules not in STUCK_RULES:
            raise ValueError(f"no Ataxx tables for rules {args.rules!r}; choose one of "
                             f"{', '.join(STUCK_RULES)}")
        width, height = parse_size(args.size)
        game = AtaxxTables(width, height, args.rules or "ataxx")
    root = _root(args)
    if args.scheduler is None and args.workers is None:
        if args.chunk is not None:
            raise ValueError("--chunk is for a distributed build (--scheduler or --workers)")
        table = build(game, root, resume=args.resume, method=args.method,
                      progress=None if args.quiet else progress_bar())
    else:
        from gameclub.tablebase.distributed import DaskLayers

        if args.game != "awele":
            raise ValueError("only Awele tables have a distributed build; build Ataxx "
                             "tables without --scheduler or --workers")
        if args.scheduler is not None and args.workers is not None:
            raise ValueError("give --scheduler (a running cluster) or --workers (a local "
                             "one), not both")
        if args.method == "iterate":
            raise ValueError("a distributed build resolves the layers by propagate, "
                             "not iterate")
        with DaskLayers.connect(args.scheduler, args.workers, args.chunk) as cluster:
            table = build(game, root, resume=args.resume, method=args.method,
                          progress=None if args.quiet else progress_bar(), cluster=cluster)
    print(f"{table.path}: {sum(e['positions'] for e in table.layers.values()):,} positions "
          f"in {len(table.layers)} layers")
    return 0


def _probe_awele(args: argparse.Namespace) -> int:
    from gameclub.awele import Board
    from gameclub.tablebase.awele import AweleProbe, best_of, table_rules

    rules = args.rules or "awari"
    board = Board(args.position, table_rules(rules))
    probe = AweleProbe.open(_root(args), rules)
    value, moves = probe.probe(board)
    seeds = board.seeds_on_board()
    # Distances (plies to the next capture with best play) when the table keeps them.
    distance = None
    scored: list[tuple[Any, int, int | None]] = [(m, v, None) for m, v in moves]
    if all(probe.table.has_distance(layer) for layer in range(seeds + 1)):
        distance = probe.board_distance(board)
        if board.outcome() is None:
            scored = list(probe.scored_moves(board))
    if moves and distance is not None:
        best: str | None = best_of(scored).text  # type: ignore[arg-type]
    else:
        best = next((m.text for m, v in moves if v == value), None)
    if args.json:
        print(json.dumps({
            "game": "awele",
            "position": board.position(),
            "rules": rules,
            "value": {"margin": value},
            "distance": distance,
            "best": best,
            "moves": [{"move": m.text, "value": {"margin": v}, "distance": d}
                      for m, v, d in scored],
        }))
        return 0
    plies = "" if distance is None else f", {distance} plies to the next capture"
    print(f"value {value:+d} of the seeds left{plies}, best {best or '-'}")
    for m, v, d in sorted(scored, key=lambda mvd: -mvd[1]):
        print(f"  {m.text:3} {v:+d}" + ("" if d is None else f"  ({d} plies)"))
    return 0


def _value_json(value: int) -> dict[str, Any]:
    result, margin = decode(value)
    return {"result": _RESULT_WORDS[result], "margin": margin}


def _value_text(value: int) -> str:
    result, margin = decode(value)
    return _RESULT_WORDS[result] if result == 0 and margin == 0 else \
        f"{_RESULT_WORDS[result]} {margin:+d}"


def _cmd_probe(args: argparse.Namespace) -> int:
    from gameclub.ataxx.board import Board
    from gameclub.ataxx.fen import parse_fen
    from gameclub.tablebase.ataxx import AtaxxProbe, table_ruleset

    if args.game == "awele":
        return _probe_awele(args)
    rules = args.rules or "ataxx"
    fields = parse_fen(args.position)
    board = Board(args.position, table_ruleset(fields.width, fields.height, rules))
    probe = AtaxxProbe.open(_root(args), board.width, board.height, rules)
    found = probe.probe(board)
    best = found.best
    if args.json:
        print(json.dumps({
            "game": "ataxx",
            "position": board.fen(),
            "rules": rules,
            "value": _value_json(found.value),
            "distance": found.distance,
            "best": best.uci() if best else None,
            "moves": [{"move": m.move.uci(), "value": _value_json(m.value),
                       "distance": m.distance} for m in found.moves],
        }))
        return 0
    plies = "" if found.distance is None else f", {found.distance} plies to the next clone"
    print(f"value {_value_text(found.value)}{plies} best {best.uci() if best else '-'}")
    for m in sorted(found.moves, key=lambda m: -m.value):
        print(f"  {m.move.uci():6} {_value_text(m.value)}"
              + ("" if m.distance is None else f"  ({m.distance} plies)"))
    return 0


def _tables_in(path: Path) -> list[Path]:
    if (path / MANIFEST).exists():
        return [path]
    if not path.is_dir():
        raise TableError(f"{path} is not a directory")
    found = sorted(p for p in path.iterdir() if (p / MANIFEST).exists())
    if not found:
        raise TableError(f"no tables in {path}")
    return found


def table_info(path: Path) -> dict[str, Any]:
    """What ``gameclub tablebase info`` prints for one table (its ``--json`` form)."""
    table = TableDir.open(path)
    table.verify()
    log: dict[str, Any] = {}
    if (path / BUILD_LOG).is_file():
        log = json.loads((path / BUILD_LOG).read_text()).get("layers", {})
    boards = None
    if table.manifest["game"] == "ataxx":
        from gameclub.tablebase.ataxx import Geometry

        params = table.manifest["params"]
        # The index folds the board's symmetries: a layer's positions (its slots) stand
        # for more boards.
        boards = Geometry(int(params["width"]), int(params["height"])).boards
    layers = []
    for layer, entry in sorted(table.layers.items()):
        packed = (entry["positions"] + 3) // 4
        layers.append({
            "layer": layer,
            "positions": entry["positions"],
            "boards": boards(layer) if boards else entry["positions"],
            "values_bytes": entry["values"]["bytes"],
            "wdl_bytes": entry["wdl"]["bytes"],
            "wdl_ratio": round(packed / max(1, entry["wdl"]["bytes"]), 2),
            "distance_bytes": entry.get("distance", {}).get("bytes", 0),
            "seconds": log.get(str(layer), {}).get("seconds"),
            "cpu_seconds": log.get(str(layer), {}).get("cpu_seconds"),
        })
    positions = sum(x["positions"] for x in layers)
    wdl = sum(x["wdl_bytes"] for x in layers)
    return {
        "path": str(path),
        "game": table.manifest["game"],
        "params": table.manifest["params"],
        "complete": table.complete,
        "positions": positions,
        "boards": sum(x["boards"] for x in layers),
        "values_bytes": sum(x["values_bytes"] for x in layers),
        "wdl_bytes": wdl,
        "wdl_ratio": round(((positions + 3) // 4) / max(1, wdl), 2),
        "distance_bytes": sum(x["distance_bytes"] for x in layers),
        "seconds": round(sum(x["seconds"] or 0 for x in layers), 3),
        "cpu_seconds": round(sum(x["cpu_seconds"] or 0 for x in layers), 3),
        "layers": layers,
    }


def _cmd_info(args: argparse.Namespace) -> int:
    infos = [table_info(p) for p in _tables_in(Path(args.dir))]
    if args.json:
        print(json.dumps(infos if len(infos) > 1 else infos[0]))
        return 0
    for info in infos:
        state = "complete" if info["complete"] else "unfinished"
        print(f"{info['path']} ({info['game']}, {state}, checksums verified)")
        print("  " + ", ".join(f"{k} {v}" for k, v in info["params"].items()))
        print(f"  {'layer':>5} {'positions':>13} {'boards':>15} {'values B':>13} "
              f"{'wdl B':>11} {'ratio':>7} {'build s':>8}")
        for x in info["layers"]:
            seconds = "-" if x["seconds"] is None else f"{x['seconds']:.2f}"
            print(f"  {x['layer']:>5} {x['positions']:>13,} {x['boards']:>15,} "
                  f"{x['values_bytes']:>13,} {x['wdl_bytes']:>11,} {x['wdl_ratio']:>7.2f} "
                  f"{seconds:>8}")
        print(f"  {'all':>5} {info['positions']:>13,} {info['boards']:>15,} "
              f"{info['values_bytes']:>13,} {info['wdl_bytes']:>11,} {info['wdl_ratio']:>7.2f} "
              f"{info['seconds']:>8.2f}")
    return 0


def add_tablebase_parser(sub: Any) -> None:
    """The ``tablebase`` subcommand and its actions."""
    where = f"default: ${'GAMECLUB_TABLEBASES'} or {default_root()}"
    p = sub.add_parser("tablebase", help="endgame tables: build, probe, info",
                       description="Endgame tables solved by retrograde analysis. Tables live "
                       f"in one directory per board and rules under DIR ({where}).")
    actions = p.add_subparsers(dest="tablebase_command", metavar="ACTION")
    actions.required = True

    q = actions.add_parser("build", help="solve a game's positions layer by layer",
                           description="Build a table in DIR/<game>-<size>-<rules>. A killed "
                           "build continues from its last finished layer with --resume.")
    q.add_argument("game", choices=("ataxx", "awele"), help="the game")
    q.add_argument("--size", metavar="WxH", help="Ataxx board size, e.g. 4x4 (up to 25 squares)")
    q.add_argument("--seeds", metavar="0-N", help="Awele: layers 0 to N seeds on the board")
    q.add_argument("--rules",
                   help="Ataxx: ataxx (a stuck side passes) or site-2005 (it loses), both "
                   "without a move limit, an endless game being a draw (default ataxx). "
                   "Awele: awari or awele (default awari)")
    q.add_argument("--dir", metavar="DIR", help=f"where the tables live ({where})")
    q.add_argument("--resume", action="store_true",
                   help="continue an interrupted build in the same directory")
    q.add_argument("--method", choices=("propagate", "iterate"),
                   help="how cycles inside a layer are resolved (default: propagate; "
                   "Awele keeps distances to the next capture only with propagate)")
    q.add_argument("--scheduler", metavar="ADDRESS",
                   help="Awele: run each layer's exits as tasks on the Dask cluster whose "
                   "scheduler is at ADDRESS (tcp://host:port); every worker must see DIR "
                   "at the same path. Needs gameclub[cluster]")
    q.add_argument("--workers", type=int, metavar="N",
                   help="Awele: the same on a local Dask cluster of N worker processes")
    q.add_argument("--chunk", type=int, metavar="POSITIONS",
                   help="positions a task with --scheduler or --workers (default: a "
                   "layer's positions over 4 tasks a worker thread, at least 65536)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=_cmd_build)

    q = actions.add_parser("probe", help="the value of a position and of each of its moves")
    q.add_argument("game", choices=("ataxx", "awele"), help="the game")
    q.add_argument("position", metavar="POSITION",
                   help="the position (Ataxx: a FEN; Awele: position text, 4-4-...-0-0-S)")
    q.add_argument("--rules", help="Ataxx: ataxx or site-2005 (default ataxx); "
                   "Awele: awari or awele (default awari)")
    q.add_argument("--dir", metavar="DIR", help=f"where the tables live ({where})")
    q.add_argument("--json", action="store_true",
                   help="one JSON object: value, best, moves (each with its value); "
                   "Awele adds the distances to the next capture")
    q.set_defaults(func=_cmd_probe)

    q = actions.add_parser("info", help="layers, positions, sizes, compression, build times",
                           description="Per layer: the positions stored (Ataxx folds the "
                           "board's symmetries, so a layer's positions stand for more "
                           "boards: both are shown), the files' sizes, the WDL files' "
                           "compression and the build's seconds.")
    q.add_argument("dir", metavar="DIR", help="a table's directory, or one that holds tables")
    q.add_argument("--json", action="store_true", help="print JSON")
    q.set_defaults(func=_cmd_info)


