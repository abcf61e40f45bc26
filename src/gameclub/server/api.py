"""The HTTP JSON API under ``/api`` (see docs/protocol.md): identity, games, lobby, stats.

Handlers are thin: they check the session and CSRF token, parse the body and
hand over to accounts, lobby and rounds. Every refusal is a
:class:`ClubError`, answered as ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection, Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from gameclub.games import GAMES, Color, Game, GameError, RecordInfo, Setup, game_of
from gameclub.server import boards, jsontext
from gameclub.server.accounts import CSRF_HEADER, SESSION_COOKIE, Identity
from gameclub.server.club import Club
from gameclub.server.errors import ClubError, bad_field, not_found
from gameclub.server.fields import key, query_int
from gameclub.server.limits import rate_limited, read_body
from gameclub.server.lobby import seat_of
from gameclub.server.options import GameOptions, options_json, parse_level, parse_options
from gameclub.server.ratings import Rating
from gameclub.server.round import Round, Seat
from gameclub.server.store import games as game_store
from gameclub.server.store.models import Game as GameRow
from gameclub.server.store.models import User


def club_of(request: Request) -> Club:
    club: Club = request.app.state.club
    return club


async def error_response(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GameError)
    headers = {}
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        headers["Retry-After"] = str(max(1, round(retry)))
    if exc.status == 413:
        # The rest of the body is not wanted: closing is cheaper than reading it.
        headers["Connection"] = "close"
    return JSONResponse({"error": exc.to_json()}, status_code=exc.status, headers=headers)


async def http_error_response(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no route matched: a path with a newline, ...): under
    ``/api`` in the API's error format, elsewhere as Starlette answers them."""
    assert isinstance(exc, HTTPException)
    if not request.url.path.startswith("/api/"):
        return PlainTextResponse(exc.detail, status_code=exc.status_code, headers=exc.headers)
    code = {404: "not-found", 405: "bad-method"}.get(exc.status_code, "bad-request")
    message = f"no API endpoint {request.method} {request.url.path[:100]!r}"
    return JSONResponse(
        {"error": {"code": code, "message": message}},
        status_code=exc.status_code,
        headers=exc.headers,
    )


def set_session_cookie(response: Response, request: Request, token: str) -> None:
    settings = club_of(request).settings
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=settings.session_days * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
        path="/",
    )


async def current(request: Request) -> Identity | None:
    return await club_of(request).accounts.resolve(request.cookies.get(SESSION_COOKIE))


async def acting(request: Request) -> Identity:
    """The identity behind a state-changing request, after the CSRF checks."""
    origin = request.headers.get("origin")
    if origin is not None and origin.split("://", 1)[-1].rstrip("/") != request.headers.get("host"):
        raise ClubError("csrf", "requests from other sites are refused", 403)
    identity = await current(request)
    if identity is None:
        raise ClubError("csrf", "no session: load GET /api/me first", 403)
    token = request.headers.get(CSRF_HEADER, "")
    if not secrets.compare_digest(token.encode(), identity.csrf.encode()):
        raise ClubError("csrf", f"missing or wrong {CSRF_HEADER} header", 403)
    return identity


async def body_of(request: Request, limit: int | None = None) -> dict[str, Any]:
    raw = await read_body(request, limit or club_of(request).settings.max_body_bytes)
    if not raw.strip():
        return {}
    try:
        data = jsontext.loads(raw)
    except jsontext.BadJSON as exc:
        if exc.field is not None:
            raise bad_field(f"the body's {exc.message}") from None
        raise ClubError("bad-json", f"the body is {exc.message}") from None
    if not isinstance(data, dict):
        raise ClubError("bad-json", "the body must be a JSON object")
    return data


#: Piece colours a player may choose (a preference for drawing: x always moves first).
PIECE_COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "black", "white")
DEFAULT_PIECE_COLORS = {"x": "red", "o": "blue"}


def _colors_json(stored: str | None) -> dict[str, str]:
    if stored:
        x, _, o = stored.partition(",")
        if x in PIECE_COLORS and o in PIECE_COLORS and x != o:
            return {"x": x, "o": o}
    return dict(DEFAULT_PIECE_COLORS)


async def me_json(request: Request, identity: Identity) -> dict[str, Any]:
    db = club_of(request).db
    games = await game_store.active_game_ids_of_user(
        db, identity.user_id, club_of(request).settings.me_games_limit
    )
    # Accounts keep their preferences on the server; guests keep theirs in the browser.
    prefs = (
        None
        if identity.guest
        else {"colors": _colors_json(await game_store.piece_colors(db, identity.user_id))}
    )
    ratings = await game_store.ratings_of_user(db, identity.user_id)
    body = {
        "user": identity.to_json(),
        "csrf": identity.csrf,
        "games": games,
        "prefs": prefs,
        "ratings": ratings_json(ratings),
    }
    cluster = club_of(request).cluster
    if cluster is not None:
        body["node"] = cluster.node  # which node of several answered
    return body


def ratings_json(ratings: dict[str, tuple[Rating, int]]) -> dict[str, dict[str, Any]]:
    """A player's rating in each game (a new player's where they have none)."""
    out = {}
    for game in GAMES:
        rating, rated_games = ratings.get(game, (Rating(), 0))
        out[game] = {
            "rating": round(rating.rating),
            "rd": round(rating.rd, 1),
            "provisional": rating.provisional,
            "rating_text": rating.text(),
            "rated_games": rated_games,
        }
    return out


def game_filter(request: Request) -> str | None:
    """The ``?game=`` of a list: one game's key, or ``None`` for every game."""
    value = request.query_params.get("game")
    return None if value is None else game_of(value).id


async def set_prefs(request: Request) -> Response:
    identity = await acting(request)
    if identity.guest:
        raise ClubError(
            "accounts-only",
            "guests keep their preferences in the browser: sign up to store them",
            403,
        )
    body = await body_of(request)
    colors = body.get("colors")
    if colors is None:
        stored = None
    else:
        if not isinstance(colors, dict) or set(colors) != {"x", "o"}:
            raise bad_field('colors must be {"x": colour, "o": colour} or null')
        x, o = colors["x"], colors["o"]
        for side, value in (("x", x), ("o", o)):
            if value not in PIECE_COLORS:
                raise bad_field(
                    f"colors.{side} must be one of {', '.join(PIECE_COLORS)}, not {value!r}"
                )
        if x == o:
            raise bad_field("the two sides need different colours")
        stored = f"{x},{o}"
    await game_store.set_piece_colors(club_of(request).db, identity.user_id, stored)
    return JSONResponse({"prefs": {"colors": _colors_json(stored)}})


# -- identity --------------------------------------------------------------------------


async def me(request: Request) -> Response:
    identity = await current(request)
    token = None
    if identity is None:
        accounts = club_of(request).accounts
        wait = await accounts.new_guests.spend(client_of(request))
        if wait > 0:
            raise rate_limited("new guest sessions from your address", wait)
        token, identity = await accounts.create_guest()
    response = JSONResponse(await me_json(request, identity))
    if token is not None:
        set_session_cookie(response, request, token)
    return response


def client_of(request: HTTPConnection) -> str:
    return request.client.host if request.client else "unknown"


async def signup(request: Request) -> Response:
    await acting(request)
    body = await body_of(request)
    token, identity = await club_of(request).accounts.sign_up(
        body.get("name"), body.get("password"), client_of(request)
    )
    response = JSONResponse(await me_json(request, identity), status_code=201)
    set_session_cookie(response, request, token)
    return response


async def login(request: Request) -> Response:
    await acting(request)
    body = await body_of(request)
    token, identity = await club_of(request).accounts.log_in(
        body.get("name"), body.get("password"), client_of(request)
    )
    response = JSONResponse(await me_json(request, identity))
    set_session_cookie(response, request, token)
    return response


async def logout(request: Request) -> Response:
    identity = await acting(request)
    club = club_of(request)
    accounts = club.accounts
    await accounts.end_session(identity)
    # Its sockets go with it: nothing more is done in the name of a session that ended.
    if club.cluster is not None:
        # The session's sockets may be on any node: each closes its own.
        club.cluster.end_session(identity.user_id, identity.token_hash)
    else:
        club.connections.end_session(identity.user_id, identity.token_hash)
    token, guest = await accounts.create_guest()
    response = JSONResponse(await me_json(request, guest))
    set_session_cookie(response, request, token)
    return response


# -- games -------------------------------------------------------------------------------


@functools.cache
def options_body() -> bytes:
    """The answer to ``GET /api/options``, encoded once: it changes only with the code.

    The first call is slow (see :func:`options_json`): the app makes it in a
    thread at start-up.
    """
    return json.dumps({**options_json(), "piece_colors": list(PIECE_COLORS)}).encode()


async def options(request: Request) -> Response:
    return Response(
        options_body(),
        media_type="application/json",
        headers={"Cache-Control": "public, max-age=3600"},
    )


def _ai_seats(identity: Identity, level: str, color: str) -> dict[Color, Seat]:
    human, computer = seat_of(identity), Seat.computer(level)
    if color == "random":
        color = secrets.choice(("x", "o"))
    return (
        {Color.X: human, Color.O: computer} if color == "x" else {Color.X: computer, Color.O: human}
    )


async def create_ai_game(request: Request) -> Response:
    identity = await acting(request)
    body = await body_of(request)
    opts = parse_options(body, allow_rated=False)
    level = parse_level(body.get("level"), opts.game)
    rnd = await club_of(request).rounds.create(
        opts, _ai_seats(identity, level, opts.color), by=identity.user_id
    )
    return JSONResponse({"game": rnd.id}, status_code=201)


async def create_hotseat_game(request: Request) -> Response:
    """Two people on one device: the same identity plays both sides (casual)."""
    identity = await acting(request)
    opts = parse_options(await body_of(request))
    if opts.rated:
        raise bad_field("hot-seat games are casual: rated must be false")
    me = seat_of(identity)
    rnd = await club_of(request).rounds.create(
        opts, {Color.X: me, Color.O: me}, by=identity.user_id
    )
    return JSONResponse({"game": rnd.id}, status_code=201)


async def play_again(request: Request) -> Response:
    """From a finished game: a new one on the same board, rules, start and clock,
    against the same kind of opponent (the computer at the same level, the hot
    seat, or the same person, invited again), each side keeping its colour."""
    identity = await acting(request)
    club = club_of(request)
    try:
        rnd: Round = await club.rounds.read(request.path_params["game_id"])
    except ClubError:
        raise not_found("this game") from None
    color = rnd.color_of(identity.user_id)
    if color is None:
        raise ClubError("not-a-player", "only its players can play a game again", 403)
    if rnd.live:
        raise ClubError("not-allowed", "the game is still going on", 409)
    opts = replace(rnd.options, color=color.char)
    if rnd.hotseat:
        me = seat_of(identity)
        new = await club.rounds.create(
            replace(opts, rated=False), {Color.X: me, Color.O: me}, by=identity.user_id
        )
        return JSONResponse({"game": new.id}, status_code=201)
    level = rnd.seats[color.other].ai
    if level is not None:
        new = await club.rounds.create(
            opts, _ai_seats(identity, level, color.char), by=identity.user_id
        )
        return JSONResponse({"game": new.id}, status_code=201)
    opponent = rnd.seats[color.other]
    invitation = await club.lobby.invite(identity, opponent.name, opts)
    return JSONResponse(
        {"invitation": await club.lobby.invitation_json(invitation)}, status_code=201
    )


async def live_games(request: Request) -> Response:
    game = game_filter(request)
    cluster = club_of(request).rounds.cluster
    if cluster is not None:
        # Every node's games, as each node last shared them (within a second or so).
        games = [found for found in cluster.watchable() if game is None or found["kind"] == game]
        games.sort(key=lambda found: -found["spectators"])
        return JSONResponse({"games": games[:200]})
    rounds = [
        rnd
        for rnd in club_of(request).rounds.watchable_rounds()
        if game is None or rnd.options.game == game
    ]
    rounds.sort(key=lambda rnd: (-rnd.spectator_count(), -rnd.created_at))
    return JSONResponse({"games": [rnd.summary_json() for rnd in rounds[:200]]})


async def game_record(request: Request) -> Response:
    club = club_of(request)
    try:
        rnd: Round = await club.rounds.read(request.path_params["game_id"])
    except ClubError:
        raise not_found("this game") from None
    # Replaying every position costs about 50 microseconds a move: made once per
    # version of the game (and presence of its players), not once per request.
    body = _cached(rnd, "record", (rnd.version, tuple(rnd.online().values())), _record_body)
    return Response(body, media_type="application/json")


def _cached(rnd: Round, kind: str, key: Any, make: Callable[[Round], bytes]) -> bytes:
    """``make(rnd)``, made again only when ``key`` (the game's version, ...) changes."""
    held = rnd.record_cache.get(kind)
    if held is None or held[0] != key:
        held = rnd.record_cache[kind] = (key, make(rnd))
    return held[1]


def _record_body(rnd: Round) -> bytes:
    return json.dumps(_record_json(rnd)).encode()


def record_info(rnd: Round) -> RecordInfo:
    """What a record file says about a game of the club."""
    players = rnd.players_json()
    return RecordInfo(
        id=rnd.id,
        rules=rnd.options.rules,
        blocks=rnd.options.blocks,
        start=rnd.start_fen,
        moves=list(rnd.moves),
        rated=rnd.options.rated,
        created_at=rnd.created_at,
        players=(players["x"]["name"], players["o"]["name"]),
        ending=(
            (rnd.winner.char if rnd.winner is not None else None, rnd.reason)
            if rnd.reason is not None
            else None
        ),
    )


def _file_body(rnd: Round) -> bytes:
    return rnd.options.kind.write_record(record_info(rnd)).text.encode()


def _record_json(rnd: Round) -> dict[str, Any]:
    kind = rnd.options.kind
    positions = kind.replay(rnd.options.rules, rnd.options.blocks, rnd.start_fen, rnd.moves)
    players = rnd.players_json()
    record = kind.write_record(record_info(rnd))
    board = rnd.board.view(live=False)
    sizes: dict[str, Any] = {key: board[key] for key in ("width", "height") if key in board}
    return (
        {
            "id": rnd.id,
            "kind": kind.id,
            "status": rnd.status,
            "rules": rnd.options.rules,
            "blocks": rnd.options.blocks,
            **sizes,
            "clock": rnd.options.clock_json(),
            "rated": rnd.options.rated,
            "players": players,
            "start_fen": rnd.start_fen,
            "start_position": rnd.start_fen,
            "moves": list(rnd.moves),
            "positions": positions,
            "result": rnd.result_json(),
            "created_at": rnd.created_at,
            "ended_at": rnd.ended_at,
            "rematch_of": rnd.rematch_of,
            "start": rnd.start_label,
            "hotseat": rnd.hotseat,
            "record": {"format": record.format, "filename": record.filename, "text": record.text},
            record.format: record.text,
        }
    )


async def _record_file(request: Request, only: Game | None = None) -> Response:
    club = club_of(request)
    try:
        rnd: Round = await club.rounds.read(request.path_params["game_id"])
    except ClubError:
        raise not_found("this game") from None
    kind = rnd.options.kind
    if only is not None and kind is not only:
        raise ClubError(
            "not-found",
            f"this is {kind.name} game: its record is at /api/games/{rnd.id}/record",
            404,
        )
    return Response(
        _cached(rnd, "file", rnd.version, _file_body),
        media_type=kind.record_media_type,
        headers={"Content-Disposition": f'attachment; filename="{kind.record_filename(rnd.id)}"'},
    )


async def game_pgn(request: Request) -> Response:
    """An Ataxx game as a PGN file to download (the club's save format)."""
    return await _record_file(request, GAMES["ataxx"])


async def game_record_file(request: Request) -> Response:
    """Any game as its record file to download: PGN for Ataxx, OGN for Awele."""
    return await _record_file(request)


#: The field of ``POST /api/records`` that holds each kind of record (its format), and
#: its game.
RECORD_FIELDS = {kind.record_format: kind.id for kind in GAMES.values()}


async def load_record(request: Request) -> Response:
    """A record (PGN, OGN) read and checked: its positions, to replay or to continue from."""
    identity = await acting(request)
    club = club_of(request)
    body = await body_of(request, club.settings.max_record_bytes)
    given = [name for name in RECORD_FIELDS if name in body]
    if len(given) != 1:
        raise bad_field(
            "give the record's text in exactly one of "
            + ", ".join(f"{name} ({GAMES[game].name})" for name, game in RECORD_FIELDS.items())
        )
    field = given[0]
    # Reading a record costs CPU in proportion to its moves: a worker process does
    # it, in the player's turn (the engine's fair queue), never the event loop.
    record = await club.engines.run(
        identity.user_id,
        boards.read_record_json,
        body[field],
        club.settings.max_record_plies,
        RECORD_FIELDS[field],
    )
    return Response(record, media_type="application/json")


# -- boards: the editor, the gallery, set-up positions ---------------------------------


async def describe_blocks(request: Request) -> Response:
    params = request.query_params
    if "squares" in params:
        return JSONResponse(boards.describe_squares(params["squares"]))
    if "code" in params:
        return JSONResponse(boards.describe_code(params["code"]))
    raise bad_field("give code=3ghx or squares=c4,e4")


async def random_blocks(request: Request) -> Response:
    low = query_int(request.query_params, "min", 1, 24)
    high = query_int(request.query_params, "max", 12, 24)
    if low > high:
        raise bad_field("min must not be above max")
    return JSONResponse(boards.random_board(low, high))


async def blocks_gallery(request: Request) -> Response:
    text = request.query_params.get("blocks")
    count = None if text is None else query_int(request.query_params, "blocks", 0, 24)
    offset = query_int(request.query_params, "offset", 0, 100_000)
    limit = query_int(request.query_params, "limit", 60, 200)
    return JSONResponse(await asyncio.to_thread(boards.gallery, count, offset, limit))


async def check_setup(request: Request) -> Response:
    """A game's set-up (rules, blocks, start, fen) checked exactly as a new game would be."""
    params = request.query_params
    body: dict[str, Any] = {
        key: params[key]
        for key in ("game", "rules", "blocks", "start", "fen", "position")
        if key in params
    }
    opts = parse_options(body)
    start = opts.start_fen()
    position = opts.position(start)
    return JSONResponse(
        {
            "kind": opts.game,
            "rules": opts.rules,
            "blocks": opts.blocks,
            "start": opts.start(),
            **opts.kind.setup_json(Setup(opts.rules, opts.blocks, opts.setup)),
            "start_fen": start,
            "start_position": start,
            "turn": position.turn.char,
            **position.view(live=True),
        }
    )


async def analysis(request: Request) -> Response:
    """The endgame tables' value of a position and of each of its moves (``table``:
    ``null`` where no table covers it); in a thread, as a first probe checks a file."""
    from gameclub.server.analysis import MAX_POSITION_CHARS, table_analysis

    params = request.query_params
    position = params.get("position")
    if not position or not position.strip():
        raise bad_field("give position=... (an Ataxx FEN or an Awele position)")
    if len(position) > MAX_POSITION_CHARS:
        raise bad_field(f"position: at most {MAX_POSITION_CHARS} characters")
    return JSONResponse(await asyncio.to_thread(
        table_analysis, params.get("game", "ataxx"), params.get("rules"),
        params.get("options", ""), position.strip()))


async def board_statistics(request: Request) -> Response:
    return JSONResponse({"boards": await game_store.board_stats(club_of(request).db)})


# -- lobby ---------------------------------------------------------------------------------


async def lobby(request: Request) -> Response:
    identity = await current(request)
    viewer = identity.user_id if identity is not None else None
    return JSONResponse(club_of(request).lobby.to_json(viewer, game_filter(request)))


async def create_seek(request: Request) -> Response:
    identity = await acting(request)
    opts = parse_options(await body_of(request))
    seek = await club_of(request).lobby.create_seek(identity, opts)
    return JSONResponse({"seek": seek.to_json(identity.user_id)}, status_code=201)


async def cancel_seek(request: Request) -> Response:
    identity = await acting(request)
    await club_of(request).lobby.cancel_anywhere(identity, request.path_params["seek_id"])
    return JSONResponse({"ok": True})


async def accept_seek(request: Request) -> Response:
    identity = await acting(request)
    game = await club_of(request).lobby.accept_anywhere(identity, request.path_params["seek_id"])
    return JSONResponse({"game": game}, status_code=201)


async def create_invitation(request: Request) -> Response:
    identity = await acting(request)
    body = await body_of(request)
    opts: GameOptions = parse_options(body)
    lobby_ = club_of(request).lobby
    invitation = await lobby_.invite(identity, body.get("to"), opts)
    return JSONResponse({"invitation": await lobby_.invitation_json(invitation)}, status_code=201)


async def list_invitations(request: Request) -> Response:
    identity = await current(request)
    if identity is None:
        return JSONResponse({"incoming": [], "outgoing": []})
    return JSONResponse(await club_of(request).lobby.invitations_of(identity))


async def get_invitation(request: Request) -> Response:
    lobby_ = club_of(request).lobby
    invitation = await lobby_.get_invitation(request.path_params["invitation_id"])
    return JSONResponse({"invitation": await lobby_.invitation_json(invitation)})


async def accept_invitation(request: Request) -> Response:
    identity = await acting(request)
    rnd = await club_of(request).lobby.accept_invitation(
        identity, request.path_params["invitation_id"]
    )
    return JSONResponse({"game": rnd.id}, status_code=201)


async def decline_invitation(request: Request) -> Response:
    identity = await acting(request)
    await club_of(request).lobby.decline_invitation(identity, request.path_params["invitation_id"])
    return JSONResponse({"ok": True})


async def cancel_invitation(request: Request) -> Response:
    identity = await acting(request)
    await club_of(request).lobby.cancel_invitation(identity, request.path_params["invitation_id"])
    return JSONResponse({"ok": True})


# -- players ---------------------------------------------------------------------------------


def profile_json(user: User, rating: Rating, rated_games: int) -> dict[str, Any]:
    """A player with their rating in one game."""
    return {
        "id": user.id,
        "name": user.name,
        "guest": user.guest,
        "rating": round(rating.rating),
        "rd": round(rating.rd, 1),
        "provisional": rating.provisional,
        "rating_text": rating.text(),
        "rated_games": rated_games,
        "created_at": user.created_at,
    }


async def _user(request: Request) -> User:
    name = request.path_params["name"]
    user = await game_store.user_by_name(club_of(request).db, name) if key(name) else None
    if user is None:
        raise not_found(f"player {name!r}")
    return user


async def user_profile(request: Request) -> Response:
    """A player: ``user`` with their Ataxx rating (as before each game had its own),
    ``ratings`` in every game, and ``stats`` of one game (``?game=``, default Ataxx)."""
    user = await _user(request)
    game = game_filter(request) or "ataxx"
    db = club_of(request).db
    stats = await game_store.user_stats(db, user.id, game)
    ratings = await game_store.ratings_of_user(db, user.id)
    rating, rated_games = ratings.get("ataxx", (Rating(), 0))
    return JSONResponse(
        {
            "user": profile_json(user, rating, rated_games),
            "ratings": ratings_json(ratings),
            "stats": stats,
        }
    )


async def user_games(request: Request) -> Response:
    user = await _user(request)
    offset = query_int(request.query_params, "offset", 0, 1_000_000)
    limit = query_int(request.query_params, "limit", 20, 100)
    db = club_of(request).db
    games, total = await game_store.games_of_user(
        db, user.id, offset=offset, limit=limit, game=game_filter(request)
    )
    ids = {uid for g in games for uid in (g.x_user_id, g.o_user_id) if uid is not None}
    users = await game_store.users_by_id(db, list(ids))
    # Players are shown with their rating in the game of each row.
    ratings = {
        kind: await game_store.ratings_of(db, list(ids), kind) for kind in {g.game for g in games}
    }
    return JSONResponse(
        {"games": [_game_summary(g, users, ratings[g.game]) for g in games], "total": total}
    )


def _game_summary(
    game: GameRow, users: dict[int, User], ratings: dict[int, Rating]
) -> dict[str, Any]:
    def player(user_id: int | None, ai: str | None) -> dict[str, Any]:
        if ai is not None:
            return Seat.computer(ai).to_json()
        user = users.get(user_id) if user_id is not None else None
        if user is None:
            return Seat(user_id, "?").to_json()
        return Seat.of_user(user, ratings.get(user.id)).to_json()

    clock = None
    if game.clock_base_ms is not None:
        clock = {"base": game.clock_base_ms // 1000, "increment": (game.clock_inc_ms or 0) // 1000}
    return {
        "id": game.id,
        "kind": game.game,
        "players": {"x": player(game.x_user_id, game.x_ai), "o": player(game.o_user_id, game.o_ai)},
        "rules": game.rules,
        "blocks": game.blocks,
        "clock": clock,
        "rated": game.rated,
        "status": game.status,
        "hotseat": game.x_user_id is not None and game.x_user_id == game.o_user_id,
        "result": None
        if game.reason is None
        else {
            "winner": game.winner,
            "reason": game.reason,
            "score": [game.score_x, game.score_o],
            "rating_diff": (
                {"x": round(game.x_rating_diff, 1), "o": round(game.o_rating_diff, 1)}
                if game.x_rating_diff is not None and game.o_rating_diff is not None
                else None
            ),
        },
        "plies": game.plies,
        "created_at": game.created_at,
        "ended_at": game.ended_at,
    }


async def user_ratings(request: Request) -> Response:
    user = await _user(request)
    game = game_filter(request) or "ataxx"
    rows = await game_store.rating_history(club_of(request).db, user.id, game)
    return JSONResponse(
        {
            "kind": game,
            "history": [
                {"at": r.at, "rating": round(r.rating, 1), "rd": round(r.rd, 1), "game": r.game_id}
                for r in rows
            ]
        }
    )


async def leaderboard(request: Request) -> Response:
    game = game_filter(request) or "ataxx"
    rows = await game_store.leaderboard(club_of(request).db, game)
    return JSONResponse(
        {
            "kind": game,
            "players": [
                profile_json(user, Rating(row.rating, row.rd, row.volatility), row.rated_games)
                for user, row in rows
            ],
        }
    )


async def api_not_found(request: Request) -> Response:
    raise ClubError("not-found", f"no API endpoint {request.method} {request.url.path}", 404)


routes = [
    Route("/api/me", me, methods=["GET"]),
    Route("/api/signup", signup, methods=["POST"]),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/logout", logout, methods=["POST"]),
    Route("/api/options", options, methods=["GET"]),
    Route("/api/prefs", set_prefs, methods=["POST"]),
    Route("/api/games/ai", create_ai_game, methods=["POST"]),
    Route("/api/games/hotseat", create_hotseat_game, methods=["POST"]),
    Route("/api/games/live", live_games, methods=["GET"]),
    Route("/api/games/{game_id}", game_record, methods=["GET"]),
    Route("/api/games/{game_id}/pgn", game_pgn, methods=["GET"]),
    Route("/api/games/{game_id}/record", game_record_file, methods=["GET"]),
    Route("/api/games/{game_id}/again", play_again, methods=["POST"]),
    Route("/api/records", load_record, methods=["POST"]),
    Route("/api/blocks", describe_blocks, methods=["GET"]),
    Route("/api/blocks/random", random_blocks, methods=["GET"]),
    Route("/api/blocks/gallery", blocks_gallery, methods=["GET"]),
    Route("/api/setup", check_setup, methods=["GET"]),
    Route("/api/stats/boards", board_statistics, methods=["GET"]),
    Route("/api/analysis", analysis, methods=["GET"]),
    Route("/api/lobby", lobby, methods=["GET"]),
    Route("/api/seeks", create_seek, methods=["POST"]),
    Route("/api/seeks/{seek_id}", cancel_seek, methods=["DELETE"]),
    Route("/api/seeks/{seek_id}/accept", accept_seek, methods=["POST"]),
    Route("/api/invitations", create_invitation, methods=["POST"]),
    Route("/api/invitations", list_invitations, methods=["GET"]),
    Route("/api/invitations/{invitation_id}", get_invitation, methods=["GET"]),
    Route("/api/invitations/{invitation_id}", cancel_invitation, methods=["DELETE"]),
    Route("/api/invitations/{invitation_id}/accept", accept_invitation, methods=["POST"]),
    Route("/api/invitations/{invitation_id}/decline", decline_invitation, methods=["POST"]),
    Route("/api/users/{name}", user_profile, methods=["GET"]),
    Route("/api/users/{name}/games", user_games, methods=["GET"]),
    Route("/api/users/{name}/ratings", user_ratings, methods=["GET"]),
    Route("/api/leaderboard", leaderboard, methods=["GET"]),
    # "/api" itself too: a client may normalise "/api/." to it, and it is no page.
    *(Route(path, api_not_found, methods=["GET", "POST", "DELETE", "PUT", "PATCH"])
      for path in ("/api", "/api/{rest:path}")),
]
