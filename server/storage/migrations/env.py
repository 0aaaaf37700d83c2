"""Alembic environment: runs migrations on the connection ``Store.open`` hands over.

To write a new revision from the command line, see docs/storage.md.
"""

from alembic import context
from sqlalchemy import create_engine

from server.storage.models import Base

config = context.config
connection = config.attributes.get("connection")
if connection is not None:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
else:
    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    engine = create_engine(url or "sqlite:///conquest.sqlite3")
    with engine.begin() as own_connection:
        context.configure(connection=own_connection, target_metadata=Base.metadata, render_as_batch=True)
        context.run_migrations()
    engine.dispose()
