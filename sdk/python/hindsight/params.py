"""Strategy parameters: declared with their defaults, set per run through environment variables."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .errors import ParamError

Params = dict[str, Any]

_TRUE = ("true", "1")
_FALSE = ("false", "0")


def env_name(name: str) -> str:
    """The environment variable of a parameter: its name in upper snake case (`fast` FAST,
    `stopLoss` STOP_LOSS, `stop_loss` STOP_LOSS)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", spaced).upper()


def parse_value(variable: str, text: str, default: Any) -> Any:
    """`text` as the type of `default` (bool, int, float or str); a ParamError names `variable`."""
    if isinstance(default, bool):
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ParamError(variable, f"{text!r} is not a boolean; use true or false")
    if isinstance(default, int):
        if not re.fullmatch(r"\s*-?[0-9]+\s*", text):
            raise ParamError(variable, f"{text!r} is not an integer (the default is {default})")
        return int(text)
    if isinstance(default, float):
        if not re.fullmatch(r"\s*-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?\s*", text):
            raise ParamError(variable, f"{text!r} is not a number (the default is {default})")
        return float(text)
    if isinstance(default, str):
        return text
    raise ParamError(variable, f"parameters are bool, int, float or str; the default {default!r} is none of these")


def read_params(declared: Mapping[str, Any], environ: Mapping[str, str]) -> Params:
    """Each declared parameter: its environment variable parsed as the default's type, else the default."""
    params: Params = {}
    for name, default in declared.items():
        variable = env_name(name)
        text = environ.get(variable)
        params[name] = default if text is None else parse_value(variable, text, default)
    return params
