"""Bot and admin tokens: generated random, shown once, stored only as a hash, compared in constant time."""

import hashlib
import hmac
import secrets

TOKEN_BYTES = 32
"""Random bytes per token (256 bits; 43 URL-safe characters)."""


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """Hex SHA-256 of the token.

    A plain fast hash is right here, unlike for passwords: the tokens are 256 random bits, so there is no
    dictionary to try and no salt or slow KDF (bcrypt, argon2) would add anything; a leaked table of
    hashes cannot be turned back into tokens. And being unsalted, the hash can be looked up by index.
    """
    return hashlib.sha256(token.encode()).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison, so response timing says nothing about how much of a hash matched."""
    return hmac.compare_digest(hash_token(token), stored_hash)
