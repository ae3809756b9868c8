"""The server's OpenAPI description, worked out once per test process (it takes a second or
two) for every module that reads it: an app that is never started, only described."""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema

from d100.server.app import create_app

APP = create_app("sqlite://", migrate=False)
DESCRIBED: dict[str, Any] = APP.openapi()  # FastAPI keeps it on the app: APP.openapi() is this


@cache
def described_schema() -> type[jsonschema.protocols.Validator]:
    """The description's JSON Schema dialect, the description checked against it once (a
    fifth of a second: ``jsonschema.validate`` does it again on every call)."""
    dialect = jsonschema.validators.validator_for(DESCRIBED)
    dialect.check_schema(DESCRIBED)
    return dialect


def fits(schema: dict[str, Any]) -> jsonschema.protocols.Validator:
    """A validator of ``schema`` (a component's ``$ref``, an operation's body) read within the
    description: ``.validate(x)`` raises ``jsonschema.ValidationError`` as
    ``jsonschema.validate(x, {**schema, **DESCRIBED})`` does."""
    whole = {**schema, **DESCRIBED}
    dialect = described_schema()
    dialect.check_schema(schema)
    return dialect(whole)
