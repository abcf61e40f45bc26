"""The club: Ataxx in the browser over HTTP and WebSockets (Starlette, SQLAlchemy).

Build the app with :func:`gameclub.server.app.create_app`; run it with
:func:`gameclub.server.app.serve` or ``python -m gameclub.server``.
"""
