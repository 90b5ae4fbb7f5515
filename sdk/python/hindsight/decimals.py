"""Quantities and prices as the protocol's decimal strings: canonical, never from a float."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

DecimalLike = str | int | Decimal


def decimal_string(value: object, field: str = "value") -> str:
    """Renders `value` (str, int or Decimal) as a canonical decimal string: no exponent, no trailing
    zeros after the point, no leading zeros, never `-0`. A float is refused with a TypeError (binary
    floats are not exact decimals: pass "0.1" or Decimal("0.1")); anything that is not a finite number
    with a ValueError."""
    if isinstance(value, float):
        raise TypeError(
            f"{field}: the float {value!r} is refused; pass a decimal string such as {str(value)!r}, "
            "an int or a decimal.Decimal"
        )
    if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
        raise TypeError(f"{field}: expected a decimal string, an int or a decimal.Decimal, not {type(value).__name__}")
    if isinstance(value, Decimal):
        number = value
    else:
        try:
            number = Decimal(value.strip() if isinstance(value, str) else value)
        except InvalidOperation:
            raise ValueError(f"{field}: {value!r} is not a decimal number") from None
    if not number.is_finite():
        raise ValueError(f"{field}: {value!r} is not a finite decimal number")
    text = format(number, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    if text in ("-0", ""):
        return "0"
    return text
