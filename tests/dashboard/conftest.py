"""The dashboard tests drive games with the server tests' raw client (tests/server/raw_client.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
